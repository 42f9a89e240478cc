# `rigport view` pages in headless Chromium (tools/view_page_test.mjs through tools/browser.mjs):
# loads without console errors or network, clips, non-blank frames, animation, weights, picking.
# A missing node or Chromium fails the test (scripts/setup.sh installs both).
find_program(RIGPORT_NODE node)
if(RIGPORT_NODE)
  add_test(NAME view_page
           COMMAND ${RIGPORT_NODE} ${CMAKE_SOURCE_DIR}/tools/view_page_test.mjs --rigport $<TARGET_FILE:rigport_cli>
                   --samples ${RIGPORT_SAMPLES_DIR} --work ${CMAKE_BINARY_DIR}/view_page_test)
  set_tests_properties(view_page PROPERTIES TIMEOUT 180)
else()
  add_test(NAME view_page COMMAND sh -c "echo 'node is missing: run scripts/setup.sh' >&2; exit 1")
endif()
