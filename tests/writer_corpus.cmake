# The writer corpus (tests/writer_corpus_test.cpp): tools/blender_corpus.py, in one headless Blender,
# exports the demo character under each case and packs the default export with gltfpack, into the
# build tree, as the fixture every corpus test requires (`ctest -R WriterCorpus` runs it first). A
# missing Blender or gltfpack fails the fixture, and so every corpus test, never skips them
# (scripts/setup.sh installs both).
find_program(RIGPORT_BLENDER blender)
find_program(RIGPORT_GLTFPACK gltfpack)
set(RIGPORT_CORPUS_DIR ${CMAKE_BINARY_DIR}/writer_corpus)
target_compile_definitions(writer_corpus_test PRIVATE RIGPORT_CORPUS_DIR="${RIGPORT_CORPUS_DIR}")
if(RIGPORT_BLENDER AND RIGPORT_GLTFPACK)
  add_test(NAME writer_corpus_make
           COMMAND ${RIGPORT_BLENDER} -b --factory-startup --python-exit-code 1
                   --python ${CMAKE_SOURCE_DIR}/tools/blender_corpus.py --
                   --rigport $<TARGET_FILE:rigport_cli> --gltfpack ${RIGPORT_GLTFPACK} --out ${RIGPORT_CORPUS_DIR})
else()
  add_test(NAME writer_corpus_make COMMAND sh -c "echo 'blender or gltfpack is missing: run scripts/setup.sh' >&2; exit 1")
endif()
set_tests_properties(writer_corpus_make PROPERTIES FIXTURES_SETUP writer_corpus TIMEOUT 300)
