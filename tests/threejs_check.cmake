# The three.js check of issue 13 (tools/threejs_check_test.mjs through tools/browser.mjs): plain
# three.js from npm in headless Chromium loads the demo .glb and the converted RenderWare sample,
# plays the first clip, and the frame must be lit (not black) under a hemisphere light, the
# character upright and facing the camera on +Z; each criterion also has a control that must fail.
# A missing node or Chromium fails the test (scripts/setup.sh installs both). Screenshots land in
# ${CMAKE_BINARY_DIR}/threejs_check_test/*.png.
rigport_node_test(threejs_check threejs_check_test.mjs 60)
