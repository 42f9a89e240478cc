# Every reader's libFuzzer target, built with clang and run briefly on the samples.
find_program(RIGPORT_CLANGXX clang++)
if(RIGPORT_CLANGXX)
  # A fixed seed: the same mutations on every run, so a failure here can be reproduced (scripts/fuzz.sh).
  add_test(NAME fuzz_smoke COMMAND ${CMAKE_COMMAND} -E env FUZZ_SEED=1 bash ${CMAKE_SOURCE_DIR}/scripts/fuzz.sh 15 WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  # COST: started first, beside windows_wine, so the long builds overlap the short tests. The
  # timeout is a hang guard: cold, its clang build shares the two cores with windows_wine's (CI
  # took 582 s for it alone beside the short tests).
  set_tests_properties(fuzz_smoke PROPERTIES TIMEOUT 2400 COST 10000)
else()
  add_test(NAME fuzz_smoke COMMAND sh -c "echo 'clang++ is missing: run scripts/setup.sh' >&2; exit 1")
endif()
