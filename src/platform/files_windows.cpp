// platform/files.hpp on Windows: CreateFileW and file mapping views, MoveFileExW. Windows refuses
// to shrink a file that has a mapped view (ERROR_USER_MAPPED_FILE), so no fault guard is needed
// for the truncation POSIX guards against.
#if defined(_WIN32)

#include "platform/windows_api.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "platform/files_os.hpp"

namespace rigport::platform {
namespace {

std::atomic<bool> mappingAllowed{false};

Error systemError(const std::string& path, const char* what, DWORD err) {
  return ioError(path, fmt::format("{}: {}", what, std::system_category().message(static_cast<int>(err))));
}

// A file handle closed on every way out.
struct Handle {
  HANDLE h = INVALID_HANDLE_VALUE;
  ~Handle() {
    if (h != INVALID_HANDLE_VALUE && h != nullptr) CloseHandle(h);
  }
};

}  // namespace

void enableMappingFaultGuard() { mappingAllowed.store(true, std::memory_order_release); }

Result<FileView> openFileView(const std::string& path, size_t mapAbove) {
  const std::wstring wide = pathFromUtf8(path).wstring();
  const DWORD attributes = GetFileAttributesW(wide.c_str());
  if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
    return ioError(path, "is a directory; rigport reads regular files");
  }
  Handle file;
  file.h = CreateFileW(wide.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                       FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
  if (file.h == INVALID_HANDLE_VALUE) return systemError(path, "cannot open", GetLastError());
  // Named as POSIX names them (files_posix.cpp): a console, NUL or COM port is a character device.
  if (const DWORD type = GetFileType(file.h); type != FILE_TYPE_DISK) {
    const char* kind = type == FILE_TYPE_CHAR ? "a character device" : type == FILE_TYPE_PIPE ? "a pipe" : "not a regular file";
    return ioError(path, fmt::format("is {}; rigport reads regular files", kind));
  }
  LARGE_INTEGER size{};
  if (!GetFileSizeEx(file.h, &size)) return systemError(path, "cannot get its size", GetLastError());
  const auto bytes = static_cast<uint64_t>(size.QuadPart);
  if (bytes > SIZE_MAX) return ioError(path, "too large for this process's address space");
  FileView view;
  if (bytes > mapAbove && mappingAllowed.load(std::memory_order_acquire)) {
    Handle mapping;
    mapping.h = CreateFileMappingW(file.h, nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (mapping.h != nullptr) {
      if (void* at = MapViewOfFile(mapping.h, FILE_MAP_READ, 0, 0, 0); at != nullptr) {
        view.mapping_ = static_cast<const uint8_t*>(at);
        view.size_ = static_cast<size_t>(bytes);
        return view;
      }
    }
  }
  view.owned_.resize(static_cast<size_t>(bytes));
  size_t done = 0;
  while (done < view.owned_.size()) {
    const DWORD want = static_cast<DWORD>(std::min<size_t>(view.owned_.size() - done, 1u << 30));
    DWORD got = 0;
    if (!ReadFile(file.h, view.owned_.data() + done, want, &got, nullptr)) return systemError(path, "read failed", GetLastError());
    if (got == 0) break;  // the file shrank since its size was taken: what was read is what it holds
    done += got;
  }
  view.owned_.resize(done);
  return view;
}

FileView::~FileView() {
  if (mapping_ != nullptr) UnmapViewOfFile(mapping_);
  mapping_ = nullptr;
}

// Windows has no cheap way to drop a file view's pages from the working set piece by piece; they
// are the system cache's to reclaim.
void FileView::release(std::span<const uint8_t>) const {}

std::optional<uint64_t> FileView::unreadableFrom() const { return std::nullopt; }

std::optional<WriteFailure> writeWholeFile(const std::string& utf8Path, std::span<const std::span<const uint8_t>> parts) {
  std::ofstream out(pathFromUtf8(utf8Path), std::ios::binary | std::ios::trunc);
  if (!out) return WriteFailure{false, std::strerror(errno)};
  for (std::span<const uint8_t> bytes : parts) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  if (!out) return WriteFailure{true, "write failed"};
  return std::nullopt;
}

Status moveIntoPlace(const std::string& temporary, const std::string& target, Overwrite overwrite, const std::string& targetName) {
  const DWORD flags = MOVEFILE_WRITE_THROUGH | (overwrite == Overwrite::Replace ? MOVEFILE_REPLACE_EXISTING : 0);
  if (MoveFileExW(pathFromUtf8(temporary).c_str(), pathFromUtf8(target).c_str(), flags)) return Ok{};
  const DWORD err = GetLastError();
  if (overwrite == Overwrite::Refuse && (err == ERROR_ALREADY_EXISTS || err == ERROR_FILE_EXISTS)) {
    Error e = makeError(ErrorCode::Usage, kExistsMessage);
    e.file = targetName;
    return e;
  }
  return systemError(targetName, "cannot move into place", err);
}

void pauseBriefly() noexcept { Sleep(50); }

void removeFileNow(const char* utf8Path) noexcept {
  wchar_t wide[4096];
  if (MultiByteToWideChar(CP_UTF8, 0, utf8Path, -1, wide, 4096) > 0) DeleteFileW(wide);
}

}  // namespace rigport::platform

#endif
