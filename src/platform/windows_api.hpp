// <windows.h> as the platform room's Windows files include it: without the min/max macros that
// break std::min and std::max, and without the rarely used APIs.
#pragma once

#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
