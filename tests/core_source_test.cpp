// Source: a mapped file that shrinks while it is read (another program truncates it) must not
// kill the process with SIGBUS; the bytes past its new end read as zeros and the Source says
// from where, so that the read can be refused with that offset. And the atomic writes, whose rules
// differ on Windows (a rename that refuses to replace): those tests run there too (under Wine,
// scripts/windows_tests.sh); the ones about SIGBUS, FIFOs and devices are POSIX's alone (Windows
// refuses to shrink a mapped file: renderware_dff_test checks that).
#include <gtest/gtest.h>

#ifndef _WIN32
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "core/budget.hpp"
#include "core/source.hpp"
#include "platform/files.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

std::vector<uint8_t> pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(1 + i % 251);  // never zero
  return bytes;
}

std::string writeFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = test::scratchDir("core_source") + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

#ifndef _WIN32
// First in this program, before any test switches the guard on: a library call alone changes no
// process-wide state (issue 25): reading a large file installs no SIGBUS handler, and the file is
// read into memory rather than mapped unguarded.
TEST(CoreSource, ALibraryReadInstallsNoSignalHandlerAndMapsNothingUnguarded) {
  const std::vector<uint8_t> original = pattern(2 * Source::kReadBelowBytes);
  const std::string path = writeFile("library.bin", original);
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGBUS, nullptr, &before), 0);
  auto view = platform::openFileView(path, Source::kReadBelowBytes);
  ASSERT_TRUE(view.ok()) << view.error().describe();
  EXPECT_FALSE(view->mapped());
  EXPECT_TRUE(std::equal(original.begin(), original.end(), view->bytes().begin()));
  auto source = Source::open(path, Budget::kDefaultLimit);
  ASSERT_TRUE(source.ok()) << source.error().describe();
  struct sigaction after {};
  ASSERT_EQ(::sigaction(SIGBUS, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
  EXPECT_EQ(after.sa_handler, SIG_DFL);
}

// A FIFO named on the command line blocked open() forever, and /dev/zero was buffered up to the
// memory limit before it was refused (issue 25): both are refused at once, naming what they are.
TEST(CoreSource, AFifoOrADeviceIsRefusedAtOnceNamingWhatItIs) {
  const std::string fifo = test::scratchDir("core_source") + "/pipe";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto piped = Source::open(fifo, Budget::kDefaultLimit);  // no writer: would block without O_NONBLOCK
  ASSERT_FALSE(piped.ok());
  EXPECT_EQ(piped.error().code, ErrorCode::Io);
  EXPECT_NE(piped.error().describe().find("FIFO"), std::string::npos) << piped.error().describe();
  auto zero = Source::open("/dev/zero", Budget::kDefaultLimit);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().describe().find("character device"), std::string::npos) << zero.error().describe();
  auto folder = Source::open(test::scratchDir("core_source"), Budget::kDefaultLimit);
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.error().describe().find("directory"), std::string::npos) << folder.error().describe();
}

#endif  // POSIX: signals, FIFOs and devices

// A write that refuses to replace: of two writers of one path, exactly one succeeds, and the loser
// leaves the winner's file and no temporary behind (issue 25: both exited 0 in 28 of 100 runs).
TEST(CoreSource, AWriteThatRefusesToReplaceLeavesTheFirstFileAndNoTemporary) {
  const std::string dir = test::scratchDir("core_source_refuse");
  const std::string path = dir + "/out.glb";
  const std::vector<uint8_t> first = pattern(100), second = pattern(200);
  ASSERT_TRUE(platform::writeFileAtomic(path, first, platform::Overwrite::Refuse).ok());
  const Status again = platform::writeFileAtomic(path, second, platform::Overwrite::Refuse);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::Usage);
  EXPECT_EQ(again.error().file, path);
  {
    // Closed before the replace below: Windows refuses to replace a file that is open.
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> kept((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(kept, first);
  }
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
  ASSERT_TRUE(platform::writeFileAtomic(path, second, platform::Overwrite::Replace).ok());
}

std::vector<uint8_t> readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

size_t filesIn(const std::string& dir) {
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files += e.is_regular_file() ? 1 : 0;
  return files;
}

// The parts go into the file one after another, whatever their count and sizes: parts under 4 KiB
// (gathered into 64 KiB of staging on POSIX) more than the staging holds, small parts between large
// ones, more large parts than one writev call takes (1,024), empty ones among them, one of 1 MiB.
TEST(CoreSource, AWriteOfManyPartsHoldsThemInOrder) {
  const std::string dir = test::scratchDir("core_source_parts");
  const std::vector<uint8_t> bytes = pattern((1 << 20) + 150 * 151 / 2 + 3000 * 50 + 1200 * (10 + 4096));
  std::vector<std::span<const uint8_t>> parts;
  size_t at = 0;
  const auto part = [&](size_t n) {
    parts.emplace_back(bytes.data() + at, n);
    at += n;
  };
  for (size_t n = 0; n < 150; ++n) {  // sizes 0, 1, ..., 149 (and an empty part after each tenth)
    part(n);
    if (n % 10 == 0) part(0);
  }
  for (size_t n = 0; n < 3000; ++n) part(n % 2 == 0 ? 1 : 99);  // 150,000 bytes of small parts
  for (size_t n = 0; n < 1200; ++n) {  // 2,400 vectors
    part(10);
    part(4096);
  }
  part(bytes.size() - at);
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/parts.bin", parts).ok());
  EXPECT_EQ(readAll(dir + "/parts.bin"), bytes);
  EXPECT_EQ(filesIn(dir), 1u) << "no temporary left";
}

// The folders a written file names are made when missing (looked for only once its temporary file
// does not open); a file where a folder must be is named in the error.
TEST(CoreSource, AWriteMakesItsMissingFoldersAndNamesAFileInTheWay) {
  const std::string dir = test::scratchDir("core_source_folders");
  std::filesystem::remove_all(dir);
  const std::vector<uint8_t> bytes = pattern(50);
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/a/b/out.glb", bytes).ok());
  EXPECT_EQ(readAll(dir + "/a/b/out.glb"), bytes);
  EXPECT_EQ(filesIn(dir + "/a/b"), 1u) << "no temporary left";
  const Status blocked = platform::writeFileAtomic(dir + "/a/b/out.glb/c/x.glb", bytes);
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.error().message.find("cannot create the folder"), std::string::npos) << blocked.error().describe();
  EXPECT_EQ(filesIn(dir + "/a/b"), 1u) << "no temporary left";
}

// A .gltf and its .bin (issue 25): a failed --gltf --overwrite deleted the new .bin and kept the
// old .gltf, a pair that no longer matched. Now a write that fails on the second file leaves both
// old files as they were, and no temporary.
TEST(CoreSource, FilesWrittenTogetherAreAllKeptAsTheyWereWhenOneCannotBeWritten) {
  const std::string dir = test::scratchDir("core_source_pair");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<uint8_t> oldBin = pattern(10), newBin = pattern(20), gltf = pattern(30);
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/model.bin", oldBin).ok());
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/blocker", gltf).ok());  // a file where a folder must be
  const std::span<const uint8_t> bin[] = {newBin};
  const std::span<const uint8_t> json[] = {gltf};
  const platform::FileToWrite pair[] = {{dir + "/model.bin", bin}, {dir + "/blocker/model.gltf", json}};
  const Status written = platform::writeFilesAtomic(pair, platform::Overwrite::Replace);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().file, dir + "/blocker/model.gltf");
  EXPECT_EQ(readAll(dir + "/model.bin"), oldBin);
  EXPECT_EQ(filesIn(dir), 2u) << "no temporary left";

  const platform::FileToWrite fine[] = {{dir + "/model.bin", bin}, {dir + "/model.gltf", json}};
  ASSERT_TRUE(platform::writeFilesAtomic(fine, platform::Overwrite::Replace).ok());
  EXPECT_EQ(readAll(dir + "/model.bin"), newBin);
  EXPECT_EQ(readAll(dir + "/model.gltf"), gltf);
}

// Refusing to replace: when the second file exists, the first, already moved into place by this
// call, is removed again, so the call leaves nothing of its own.
TEST(CoreSource, FilesWrittenTogetherThatRefuseToReplaceLeaveNothingWhenOneExists) {
  const std::string dir = test::scratchDir("core_source_pair_refuse");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<uint8_t> theirs = pattern(7), bin = pattern(20), gltf = pattern(30);
  ASSERT_TRUE(platform::writeFileAtomic(dir + "/model.gltf", theirs).ok());
  const std::span<const uint8_t> binParts[] = {bin};
  const std::span<const uint8_t> gltfParts[] = {gltf};
  const platform::FileToWrite pair[] = {{dir + "/model.bin", binParts}, {dir + "/model.gltf", gltfParts}};
  const Status written = platform::writeFilesAtomic(pair, platform::Overwrite::Refuse);
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(written.error().code, ErrorCode::Usage);
  EXPECT_EQ(written.error().file, dir + "/model.gltf");
  EXPECT_FALSE(std::filesystem::exists(dir + "/model.bin"));
  EXPECT_EQ(readAll(dir + "/model.gltf"), theirs);
  EXPECT_EQ(filesIn(dir), 1u);
}

#ifndef _WIN32
TEST(CoreSource, AMappedFileThatShrinksWhileReadGivesZerosAndTheOffsetOfItsNewEnd) {
  platform::enableMappingFaultGuard();  // as a program does (the CLI, first thing)
  const size_t size = 3 * Source::kReadBelowBytes + 123;
  const std::vector<uint8_t> original = pattern(size);
  const std::string path = writeFile("shrinks.bin", original);
  auto source = Source::open(path, Budget::kDefaultLimit);
  ASSERT_TRUE(source.ok()) << source.error().describe();
  const std::span<const uint8_t> bytes = (*source)->bytes();
  ASSERT_EQ(bytes.size(), size);
  EXPECT_FALSE((*source)->unreadableFrom().has_value());
  EXPECT_EQ(bytes[size - 1], original[size - 1]);  // mapped and readable to its last byte

  const size_t kept = Source::kReadBelowBytes + 1000;
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(kept)), 0);
  // Read every byte, in order, as a reader would.
  const uint64_t sum = std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t end = (kept + page - 1) / page * page;  // the kernel zero-fills the new last page's tail
  ASSERT_TRUE((*source)->unreadableFrom().has_value());
  EXPECT_EQ(*(*source)->unreadableFrom(), end);
  EXPECT_EQ(sum, std::accumulate(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(kept), uint64_t{0}));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(kept), original.begin()));
  EXPECT_TRUE(std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(kept), bytes.end(), [](uint8_t b) { return b == 0; }));
  (*source)->release(bytes);  // giving back zero pages is harmless
  EXPECT_EQ(bytes[size - 1], 0);
}
#endif  // POSIX: truncating a mapped file

// The guard's slots are reused: a file mapped after a damaged one was let go starts clean, and
// many mappings at once are each guarded or read whole, never left unguarded.
TEST(CoreSource, GuardSlotsAreReusedAndNeverRunOut) {
  platform::enableMappingFaultGuard();
  const std::vector<uint8_t> original = pattern(Source::kReadBelowBytes + 4096 * 3);
  const std::string path = writeFile("many.bin", original);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::shared_ptr<const Source>> open;
    for (int i = 0; i < 300; ++i) {  // more than the guard has slots
      auto source = Source::open(path, Budget::kDefaultLimit);
      ASSERT_TRUE(source.ok()) << source.error().describe();
      ASSERT_TRUE(std::equal(original.begin(), original.end(), (*source)->bytes().begin()));
      EXPECT_FALSE((*source)->unreadableFrom().has_value());
      open.push_back(std::move(*source));
    }
  }
}

// A view is the caller's bytes, not a copy of them (the read-back check reads what it encoded so).
TEST(CoreSource, AViewReadsTheCallersBytesInPlace) {
  const std::vector<uint8_t> bytes = {1, 2, 3, 4, 5};
  const auto source = Source::viewOf(bytes, "encoded.dff");
  EXPECT_EQ(source->bytes().data(), bytes.data());
  EXPECT_EQ(source->bytes().size(), bytes.size());
  EXPECT_EQ(source->name(), "encoded.dff");
  EXPECT_FALSE(source->unreadableFrom().has_value());
}

}  // namespace
}  // namespace rigport
