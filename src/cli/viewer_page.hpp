// The viewer page (viewer/page.html with the esbuild bundle of viewer/src/ inlined), generated at
// build time by viewer/viewer.cmake into viewer_page.cpp and linked into the CLI only.
#pragma once

#include <string_view>

namespace rigport::cli {

// The page splits where the embedded models go: head, then one
// <script type="application/octet-stream" class="rigport-model"> element per model, then tail.
std::string_view viewerPageHead();
std::string_view viewerPageTail();

}  // namespace rigport::cli
