# The Windows cross build's header-only dependencies (cmake/mingw-w64.cmake; libpng, libsquish and
# GoogleTest are scripts/windows_deps.sh's, zlib Debian's MinGW package): fmt, CLI11, nlohmann-json, glm, RapidJSON and
# tinygltf are header-only from Debian (fmt's and tinygltf's compiled parts are src/deps), but their
# headers sit in the host's /usr/include beside glibc's, which MinGW must not see. So the build dir
# gets a folder of symlinks to just those libraries' headers, and the imported targets the native
# build's find_package calls would make point at it.
set(RIGPORT_CROSS_INCLUDE ${CMAKE_BINARY_DIR}/cross-include)
file(MAKE_DIRECTORY ${RIGPORT_CROSS_INCLUDE})
foreach(header fmt CLI nlohmann glm tiny_gltf.h rapidjson)
  if(NOT EXISTS /usr/include/${header})
    message(FATAL_ERROR "The Windows build needs /usr/include/${header}: run scripts/setup.sh")
  endif()
  file(CREATE_LINK /usr/include/${header} ${RIGPORT_CROSS_INCLUDE}/${header} SYMBOLIC)
endforeach()
foreach(target fmt::fmt CLI11::CLI11 nlohmann_json::nlohmann_json glm::glm TinyGLTF::TinyGLTF)
  add_library(${target} INTERFACE IMPORTED)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${RIGPORT_CROSS_INCLUDE})
endforeach()
set(RAPIDJSON_INCLUDE_DIRS ${RIGPORT_CROSS_INCLUDE})  # what RapidJSON's own config file sets
# The test programs are Windows programs: scripts/windows_tests.sh runs them under Wine, so the build
# does not run them to list their tests (gtest_discover_tests' default).
set(CMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE PRE_TEST)
# libsquish's and libpng's headers (the Linux build finds them in /usr/include).
include_directories(SYSTEM ${RIGPORT_MINGW_PREFIX}/include)
