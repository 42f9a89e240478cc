// Random rigs for tests that hold a fast path to its rule over many shapes rather than one.
#pragma once

#include <random>

#include "core/rig.hpp"

namespace rigport::test {

// `count` bones named b0, b1, ..., each under an earlier one, with random rest poses scaled 0.7-1.7.
Skeleton randomSkeleton(std::mt19937& random, int count);

}  // namespace rigport::test
