# The installed package (issue 25, "a public API and an installed package"): `cmake --install` of
# this build into a scratch prefix, tests/package (the README's example) configured with
# find_package(rigport) against it alone, built, and run on a sample; its .glb must be the CLI's,
# byte for byte.
add_test(NAME package_example
         COMMAND ${CMAKE_COMMAND} -DBUILD_DIR=${CMAKE_BINARY_DIR} -DEXAMPLE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/package
                 -DWORK=${CMAKE_BINARY_DIR}/package_example_test -DCLI=$<TARGET_FILE:rigport_cli>
                 -DSAMPLE=${RIGPORT_SAMPLES_DIR}/renderware/synthetic_skin_rw33002.dff -DGENERATOR=${CMAKE_GENERATOR}
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/package/run_example.cmake)
set_tests_properties(package_example PROPERTIES TIMEOUT 300)
