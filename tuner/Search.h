// The search strategy: a seeded random start, then mutations of the best candidate so far.
//
// Pure C++ over the dimension sizes of a SearchSpace. Candidate i depends
// only on the seed and on which earlier candidates were best, so two runs
// with the same seed explore the same candidates in the same order as long
// as their measurements rank the candidates the same way. Mutation (in the
// manner of Adams2019's and MetaSchedule's evolutionary search, without their
// learned cost model: on these kernels a measurement costs a second or two,
// so the budget is spent on measurements): one to three fields changed, an
// integer field moved one or two steps along its ordered values, a boolean
// or enum field flipped or redrawn.
#ifndef SSM_TUNER_SEARCH_H
#define SSM_TUNER_SEARCH_H

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

namespace ssm::tune {

class Search {
public:
  /// `sizes`: the number of values of each dimension; `ordered[i]`: whether
  /// dimension i's values are ordered (integers) rather than categories.
  Search(std::vector<size_t> sizes, std::vector<bool> ordered, uint64_t seed,
         unsigned randomStart = 6);

  /// The next point to try: `randomStart` random points, then (3 in 4)
  /// mutations of `best` or (1 in 4) random points; random while `best` is
  /// not set.
  std::vector<size_t> next(const std::optional<std::vector<size_t>> &best);
  /// The point next() returned last was not measured (a duplicate, or over
  /// the register file): a random-start point gives its slot back, so the
  /// random start is always `randomStart` measured points, which no timing
  /// influences (the same seed then tries the same first candidates).
  void reject() {
    if (lastFromStart)
      ++randomLeft;
    lastFromStart = false;
  }

private:
  std::vector<size_t> random();
  std::vector<size_t> mutate(std::vector<size_t> p);
  uint64_t draw(uint64_t n) { return n ? rng() % n : 0; }

  std::vector<size_t> sizes;
  std::vector<bool> ordered;
  std::mt19937_64 rng;
  unsigned randomLeft;
  bool lastFromStart = false;
};

} // namespace ssm::tune

#endif
