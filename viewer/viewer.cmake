# Builds the `rigport view` page into the CLI: esbuild bundles viewer/src/main.js (three.js from
# node_modules, pinned by package-lock.json) into one minified IIFE, then embed.cmake inlines it
# into viewer/page.html and writes the bytes as a C++ source. Included for the CLI only, so the
# fuzz build (no CLI) never needs node. Sets RIGPORT_VIEWER_SOURCES.
set(RIGPORT_ESBUILD ${CMAKE_SOURCE_DIR}/node_modules/.bin/esbuild)
if(NOT EXISTS ${RIGPORT_ESBUILD} OR NOT EXISTS ${CMAKE_SOURCE_DIR}/node_modules/three/package.json)
  message(FATAL_ERROR "rigport view needs esbuild and three from npm: run scripts/setup.sh (npm ci)")
endif()

file(GLOB RIGPORT_VIEWER_JS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/viewer/src/*.js)
set(RIGPORT_VIEWER_BUNDLE ${CMAKE_BINARY_DIR}/viewer/bundle.js)
add_custom_command(
  OUTPUT ${RIGPORT_VIEWER_BUNDLE}
  COMMAND ${RIGPORT_ESBUILD} ${CMAKE_SOURCE_DIR}/viewer/src/main.js --bundle --minify --format=iife
          --target=es2020 --legal-comments=none --log-level=warning --outfile=${RIGPORT_VIEWER_BUNDLE}
  DEPENDS ${RIGPORT_VIEWER_JS} ${CMAKE_SOURCE_DIR}/package-lock.json
  COMMENT "esbuild: viewer/src/main.js -> viewer/bundle.js"
  VERBATIM)

set(RIGPORT_VIEWER_CPP ${CMAKE_BINARY_DIR}/viewer/viewer_page.cpp)
add_custom_command(
  OUTPUT ${RIGPORT_VIEWER_CPP}
  COMMAND ${CMAKE_COMMAND} -DTEMPLATE=${CMAKE_SOURCE_DIR}/viewer/page.html -DBUNDLE=${RIGPORT_VIEWER_BUNDLE}
          -DOUT=${RIGPORT_VIEWER_CPP} -P ${CMAKE_SOURCE_DIR}/viewer/embed.cmake
  DEPENDS ${RIGPORT_VIEWER_BUNDLE} ${CMAKE_SOURCE_DIR}/viewer/page.html ${CMAKE_SOURCE_DIR}/viewer/embed.cmake
  COMMENT "embedding the viewer page into viewer_page.cpp"
  VERBATIM)
set(RIGPORT_VIEWER_SOURCES ${RIGPORT_VIEWER_CPP})
