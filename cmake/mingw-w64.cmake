# Cross-compiles rigport for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix:
# the posix thread model, so std::thread and std::mutex work for convert -j). Used by
# scripts/windows.sh; the host's /usr/include is never searched (glibc headers would clash with
# MinGW's C library), so cmake/mingw-deps.cmake offers the header-only libraries alone.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)  # libpng and libsquish (scripts/windows_deps.sh)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
# Every executable (rigport.exe and each test program) linked -static: the C++ runtime, libgcc and
# winpthreads inside, so none needs a MinGW DLL beside it. Without it a test program dies under Wine
# before main with STATUS_DLL_NOT_FOUND (0xC0000135, seen as exit 53) and prints nothing.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
# Debian's MinGW headers and libraries (zlib among them), then RIGPORT_MINGW_PREFIX: libpng, libsquish
# and GoogleTest as scripts/windows_deps.sh cross-builds them.
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 ${RIGPORT_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # host tools (esbuild, cmake -P) run on the host
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
