// --include patterns: the shell's wildcards (* ? [set] [!set], \ quoting), as fnmatch(3) has them,
// in ISO C++ so that they mean the same on Windows.
#pragma once

#include <string_view>

namespace rigport::cli {

// Whether `subject` matches `pattern` whole. With `pathname`, wildcards never match '/' (fnmatch's
// FNM_PATHNAME): "models/*.dff" matches "models/a.dff" but not "models/x/a.dff".
bool globMatch(std::string_view pattern, std::string_view subject, bool pathname);

}  // namespace rigport::cli
