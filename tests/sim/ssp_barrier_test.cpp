// The SSP barrier's bookkeeping (sim/ssp_barrier.hpp) without a simulator: who is held, when they are
// released, what leaving and rejoining do, and the held time.
#include "sim/aggregate/ssp_barrier.hpp"

#include <doctest/doctest.h>

using edgetrain::sim::SspBarrier;

TEST_CASE("ssp barrier: a member more than the bound ahead of the slowest is held until it catches up") {
  SspBarrier b(3, 1);
  for (size_t m = 0; m < 3; ++m) CHECK(b.pull(m, 0.0));
  b.pushed(0);
  CHECK(b.pull(0, 1.0));  // 1 ahead: within the bound
  b.pushed(0);
  CHECK(!b.pull(0, 2.0));  // 2 ahead of members 1 and 2
  CHECK(b.held(0));
  b.pushed(1);
  CHECK(b.released(3.0).empty());  // member 2 is still at 0
  b.pushed(2);
  CHECK(b.released(4.5) == std::vector<size_t>{0});
  CHECK(!b.held(0));
  CHECK(b.holds() == 1);
  CHECK(b.held_s() == doctest::Approx(2.5));
  // A bound of 0 is lockstep.
  SspBarrier lockstep(2, 0);
  lockstep.pushed(1);
  CHECK(!lockstep.pull(1, 0.0));
  CHECK(lockstep.pull(0, 0.0));
}

TEST_CASE("ssp barrier: a member that leaves holds nobody back and rejoins at the slowest's clock") {
  SspBarrier b(3, 0);
  b.pushed(0);
  b.pushed(1);
  CHECK(!b.pull(0, 1.0));
  CHECK(!b.pull(1, 1.0));
  b.leave(2, 2.0);  // member 2, the slowest, went off: the others go on
  CHECK(b.released(2.0) == std::vector<size_t>{0, 1});
  for (int i = 0; i < 5; ++i) {
    b.pushed(0);
    b.pushed(1);
  }
  CHECK(b.pull(2, 3.0));  // back: at the slowest's clock, 6, not held behind its own 0
  CHECK(b.clock(2) == 6);
  CHECK(b.pull(0, 3.0));
  // A held member that leaves is no longer held; its held time ends then.
  b.pushed(0);
  CHECK(!b.pull(0, 4.0));
  b.leave(0, 5.0);
  CHECK(!b.held(0));
  CHECK(b.released(5.0).empty());
  b.finish(9.0);
  CHECK(b.held_s() == doctest::Approx(1.0 + 1.0 + 1.0));
}
