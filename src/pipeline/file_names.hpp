// Names that come from inside a file (a rig's, a clip's) turned into one part of an output path.
#pragma once

#include <string>
#include <string_view>

namespace rigport {

// `name` as one file name part that every file system rigport runs on accepts: path separators,
// control characters and the characters Windows reserves (< > : " | ? *) become '_', "." and ".."
// become "_", trailing dots and spaces (which Windows drops) go, and a name longer than
// kMaxFileNamePart bytes is cut at a UTF-8 character boundary (file systems refuse 256 and more,
// and the caller still adds a suffix and an extension). An empty name becomes `fallback`.
inline constexpr size_t kMaxFileNamePart = 200;
std::string fileSafe(std::string_view name, std::string_view fallback);

}  // namespace rigport
