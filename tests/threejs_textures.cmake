# The three.js texture check of issue 29 (tools/texture_render_test.mjs): render_texture_quads
# (tests/render/) writes a quad per pixel format of every texture reader, each textured with four
# coloured quadrants the tests encode, and the demo character as a DFF with a TXD; the CLI converts
# them; plain three.js in one headless Chromium renders them all unlit and the colours at the
# quadrants' centres (and on the character's front and back) must be the encoded ones. A missing node
# or Chromium fails the test. Screenshots land in ${CMAKE_BINARY_DIR}/threejs_textures_test/*.png.
add_executable(render_texture_quads ${CMAKE_CURRENT_SOURCE_DIR}/render/texture_quads.cpp ${CMAKE_CURRENT_SOURCE_DIR}/render/quad_pattern.cpp)
target_link_libraries(render_texture_quads PRIVATE rigport_test_support)
if(RIGPORT_NODE)
  add_test(NAME threejs_textures
           COMMAND ${RIGPORT_NODE} ${CMAKE_SOURCE_DIR}/tools/texture_render_test.mjs --rigport $<TARGET_FILE:rigport_cli>
                   --quads $<TARGET_FILE:render_texture_quads> --work ${CMAKE_BINARY_DIR}/threejs_textures_test)
  set_tests_properties(threejs_textures PROPERTIES TIMEOUT 60)
else()
  add_test(NAME threejs_textures COMMAND sh -c "echo 'node is missing: run scripts/setup.sh' >&2; exit 1")
endif()
