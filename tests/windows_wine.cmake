# The Windows build under Wine, CI's share of it (scripts/windows.sh --smoke): rigport.exe cross-built
# with MinGW-w64, the samples converted to the same bytes as this build's CLI, and the test programs
# of the platform room, the CLI and the fuzz findings run under Wine. Cold, about 12 CPU-minutes of
# compiling; it starts first (COST) so that it overlaps the short tests.
if(NOT WIN32)
  find_program(RIGPORT_MINGW_CXX x86_64-w64-mingw32-g++-posix)
  find_program(RIGPORT_WINE wine)
  if(RIGPORT_MINGW_CXX AND RIGPORT_WINE)
    add_test(NAME windows_smoke
             COMMAND ${CMAKE_COMMAND} -E env RIGPORT_LINUX=$<TARGET_FILE:rigport_cli> bash ${CMAKE_SOURCE_DIR}/scripts/windows.sh --smoke
             WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(windows_smoke PROPERTIES TIMEOUT 2400 COST 10000)
  else()
    add_test(NAME windows_smoke COMMAND sh -c "echo 'MinGW-w64 or Wine is missing: run scripts/setup.sh' >&2; exit 1")
  endif()
endif()
