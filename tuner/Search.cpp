// The search strategy (see Search.h).
#include "tuner/Search.h"

namespace ssm::tune {

Search::Search(std::vector<size_t> sizes, std::vector<bool> ordered, uint64_t seed,
               unsigned randomStart)
    : sizes(std::move(sizes)), ordered(std::move(ordered)), rng(seed), randomLeft(randomStart) {}

std::vector<size_t> Search::random() {
  std::vector<size_t> p(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    p[i] = draw(sizes[i]);
  return p;
}

std::vector<size_t> Search::mutate(std::vector<size_t> p) {
  // Dimensions with a choice to make.
  std::vector<size_t> free;
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 1)
      free.push_back(i);
  if (free.empty())
    return p;
  unsigned changes = 1 + static_cast<unsigned>(draw(4) == 0) + static_cast<unsigned>(draw(8) == 0);
  for (unsigned c = 0; c < changes; ++c) {
    size_t i = free[draw(free.size())];
    if (ordered[i]) {
      int64_t step = 1 + static_cast<int64_t>(draw(3) == 0);
      int64_t v = static_cast<int64_t>(p[i]) + (draw(2) ? step : -step);
      v = std::max<int64_t>(0, std::min<int64_t>(static_cast<int64_t>(sizes[i]) - 1, v));
      p[i] = static_cast<size_t>(v);
    } else {
      size_t v = draw(sizes[i] - 1);
      p[i] = v >= p[i] ? v + 1 : v; // a different category
    }
  }
  return p;
}

std::vector<size_t> Search::next(const std::optional<std::vector<size_t>> &best) {
  lastFromStart = false;
  if (randomLeft > 0 || !best) {
    if (randomLeft > 0) {
      --randomLeft;
      lastFromStart = true;
    }
    return random();
  }
  if (draw(4) == 0)
    return random();
  return mutate(*best);
}

} // namespace ssm::tune
