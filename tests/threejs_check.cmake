# The three.js check of issue 13 (tools/threejs_check_test.mjs through tools/browser.mjs): plain
# three.js from npm in headless Chromium loads the demo .glb and the converted RenderWare sample,
# plays the first clip, and the frame must be lit (not black) under a hemisphere light, the
# character upright and facing the camera on +Z; each criterion also has a control that must fail.
# A missing node or Chromium fails the test (scripts/setup.sh installs both). Screenshots land in
# ${CMAKE_BINARY_DIR}/threejs_check_test/*.png.
find_program(RIGPORT_NODE node)
if(RIGPORT_NODE)
  add_test(NAME threejs_check
           COMMAND ${RIGPORT_NODE} ${CMAKE_SOURCE_DIR}/tools/threejs_check_test.mjs --rigport $<TARGET_FILE:rigport_cli>
                   --samples ${RIGPORT_SAMPLES_DIR} --work ${CMAKE_BINARY_DIR}/threejs_check_test)
  set_tests_properties(threejs_check PROPERTIES TIMEOUT 60)
else()
  add_test(NAME threejs_check COMMAND sh -c "echo 'node is missing: run scripts/setup.sh' >&2; exit 1")
endif()
