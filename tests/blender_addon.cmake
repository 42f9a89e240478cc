# The Blender add-on (blender/rigport_blender), installed from build/rigport_blender.zip into a scratch
# Blender user folder and driven headless by tools/blender_addon_test.py: `import` checks every format's
# sample and demo file, `export` the edit round trip back to the game formats, `walkthrough` renders
# README's walkthrough (`blender ... --part walkthrough --docs docs` writes its pictures there). A missing Blender fails
# the tests (scripts/setup.sh installs it), never skips them.
find_program(RIGPORT_BLENDER blender)
foreach(part import export walkthrough)
  set(work ${CMAKE_BINARY_DIR}/blender_addon_${part}_test)
  if(RIGPORT_BLENDER)
    add_test(NAME blender_addon_${part}
             COMMAND ${CMAKE_COMMAND} -E env BLENDER_USER_SCRIPTS=${work}/scripts BLENDER_USER_CONFIG=${work}/config
                     ${RIGPORT_BLENDER} -b --factory-startup --python-exit-code 1
                     --python ${CMAKE_SOURCE_DIR}/tools/blender_addon_test.py --
                     --part ${part} --zip ${RIGPORT_ADDON_ZIP} --rigport $<TARGET_FILE:rigport_cli>
                     --samples ${RIGPORT_SAMPLES_DIR} --work ${work})
    set_tests_properties(blender_addon_${part} PROPERTIES TIMEOUT 300)
  else()
    add_test(NAME blender_addon_${part} COMMAND sh -c "echo 'blender is missing: run scripts/setup.sh' >&2; exit 1")
  endif()
endforeach()
