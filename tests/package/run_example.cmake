# Run by the package_example test (tests/package.cmake) with cmake -P; not a tests/*.cmake, which the
# suite includes.
function(run)
  execute_process(COMMAND ${ARGV} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "failed (${code}): ${ARGV}\n${out}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${WORK})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix --strip)  # the CLI without its debug info
# Only the scratch prefix is searched for rigport: no path into this build or source tree.
run(${CMAKE_COMMAND} -S ${EXAMPLE_DIR} -B ${WORK}/build -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK}/prefix)
run(${CMAKE_COMMAND} --build ${WORK}/build)
run(${WORK}/build/convert_example ${SAMPLE} ${WORK}/example.glb)
run(${CLI} convert ${SAMPLE} -o ${WORK}/cli.glb --quiet)
file(SHA256 ${WORK}/example.glb example)
file(SHA256 ${WORK}/cli.glb cli)
if(NOT example STREQUAL cli)
  message(FATAL_ERROR "the example's .glb differs from the CLI's: ${WORK}/example.glb ${WORK}/cli.glb")
endif()
file(SIZE ${WORK}/example.glb size)
message(STATUS "convert_example built against the installed package wrote the CLI's .glb (${size} bytes)")
