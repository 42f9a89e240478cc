#include "formats/battleforge/influences.hpp"

#include <utility>

namespace rigport::battleforge {

Influences4 merged(Influences4 v) {
  for (uint32_t i = 1; i < v.n; ++i)  // insertion sort: at most 4
    for (uint32_t j = i; j > 0 && v.at[j - 1].bone > v.at[j].bone; --j) std::swap(v.at[j - 1], v.at[j]);
  Influences4 m;
  for (uint32_t i = 0; i < v.n; ++i) {
    if (m.n > 0 && m.at[m.n - 1].bone == v.at[i].bone) m.at[m.n - 1].weight += v.at[i].weight;
    else m.at[m.n++] = v.at[i];
  }
  return m;
}

bool sameMergedInfluences(const Influences4& x, const Influences4& y) {
  const Influences4 a = merged(x), b = merged(y);
  if (a.n != b.n) return false;
  for (uint32_t i = 0; i < a.n; ++i) {
    if (a.at[i].bone != b.at[i].bone || !withinOneStep(a.at[i].weight, b.at[i].weight)) return false;
  }
  return true;
}

}  // namespace rigport::battleforge
