# The Windows build under Wine, as CI runs it (scripts/windows.sh --ci): rigport.exe and every test
# program cross-built with MinGW-w64, the samples converted to the same bytes as this build's CLI,
# and every test program run under Wine (less the tests that start node or Blender, which the Linux
# run covers). Cold, about 19 CPU-minutes, nearly all of it compiling; it starts first (COST) so that
# it overlaps the short tests.
if(NOT WIN32)
  find_program(RIGPORT_MINGW_CXX x86_64-w64-mingw32-g++-posix)
  find_program(RIGPORT_WINE wine)
  if(RIGPORT_MINGW_CXX AND RIGPORT_WINE)
    add_test(NAME windows_wine
             COMMAND ${CMAKE_COMMAND} -E env RIGPORT_LINUX=$<TARGET_FILE:rigport_cli> bash ${CMAKE_SOURCE_DIR}/scripts/windows.sh --ci
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(windows_wine PROPERTIES TIMEOUT 2400 COST 10000)
  else()
    add_test(NAME windows_wine COMMAND sh -c "echo 'MinGW-w64 or Wine is missing: run scripts/setup.sh' >&2; exit 1")
  endif()
endif()
