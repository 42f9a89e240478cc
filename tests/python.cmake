# The Python module (python/rigport_python.cpp), checked by tools/python_module_test.py against the
# CLI with the interpreter it was built for. Without pybind11 the test fails saying so (scripts/setup.sh
# installs it), never skips.
if(TARGET rigport_python)
  add_test(NAME python_module
           COMMAND ${Python_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/python_module_test.py
                   --module-dir $<TARGET_FILE_DIR:rigport_python> --rigport $<TARGET_FILE:rigport_cli>
                   --samples ${RIGPORT_SAMPLES_DIR} --work ${CMAKE_BINARY_DIR}/python_module_test)
  set_tests_properties(python_module PROPERTIES TIMEOUT 300)
else()
  add_test(NAME python_module COMMAND sh -c "echo 'pybind11 is missing: run scripts/setup.sh' >&2; exit 1")
endif()
