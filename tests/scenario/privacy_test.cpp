// Tests of the privacy keys (privacy.dp and stop.epsilon): defaults, the order's default by placement,
// and each refusal as one line naming its key.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {
json with_dp(json dp) {
  json doc = minimal_doc();
  doc["privacy"] = {{"dp", std::move(dp)}};
  return doc;
}
}  // namespace

TEST_CASE("privacy: none by default, dp's defaults") {
  TempDir dir;
  CHECK(!parse_in(dir, minimal_doc()).privacy.dp);
  const Scenario s = parse_in(dir, with_dp(json::object()));
  REQUIRE(s.privacy.dp);
  CHECK(s.privacy.dp->placement == "central");
  CHECK(s.privacy.dp->clip == 1.0);
  CHECK(s.privacy.dp->noise_multiplier == 1.0);
  CHECK(s.privacy.dp->delta == 1e-5);
  CHECK(s.privacy.dp->order == "clip_compress_noise");
  CHECK(s.privacy.dp->sampling == "fixed_size");
  CHECK(!s.stop.epsilon);
}

TEST_CASE("privacy: local devices add their noise before compression, distributed ones after, unless told") {
  TempDir dir;
  const Scenario local = parse_in(dir, with_dp({{"placement", "local"}}));
  CHECK(local.privacy.dp->order == "clip_noise_compress");
  CHECK(local.privacy.dp->noise_on_devices());
  CHECK(local.privacy.dp->noise_before_compression());
  const Scenario distributed = parse_in(dir, with_dp({{"placement", "distributed"}}));
  CHECK(distributed.privacy.dp->order == "clip_compress_noise");
  CHECK(distributed.privacy.dp->noise_on_devices());
  // Without compression, a distributed device may noise first: nothing drops its share.
  CHECK(parse_in(dir, with_dp({{"placement", "distributed"}, {"order", "clip_noise_compress"}})).privacy.dp);
  CHECK(parse_error(dir, with_dp({{"placement", "distributed"}, {"order", "clip_noise_compress"}}),
                    {"compression.kind=topk"})
            .starts_with("privacy.dp.order: clip_noise_compress with placement distributed and compression topk: "));
  const Scenario after = parse_in(dir, with_dp({{"placement", "local"}, {"order", "clip_compress_noise"}}));
  CHECK(!after.privacy.dp->noise_before_compression());
  const Scenario budget = parse_in(dir, with_dp(json::object()), {"stop.epsilon=2.5"});
  CHECK(*budget.stop.epsilon == 2.5);
}

TEST_CASE("privacy: bad settings are refused in one line naming the key") {
  TempDir dir;
  CHECK(parse_error(dir, with_dp({{"clip", 0}})) == "privacy.dp.clip: must be > 0, got 0");
  CHECK(parse_error(dir, with_dp({{"clip", -1}})) == "privacy.dp.clip: must be > 0, got -1");
  CHECK(parse_error(dir, with_dp({{"noise_multiplier", 0}})) == "privacy.dp.noise_multiplier: must be in (0, 100], got 0");
  CHECK(parse_error(dir, with_dp({{"delta", 1}})) == "privacy.dp.delta: must be in (0, 1), got 1");
  CHECK(parse_error(dir, with_dp({{"delta", 0}})) == "privacy.dp.delta: must be in (0, 1), got 0");
  CHECK(parse_error(dir, with_dp({{"order", "clip_noise_compress"}})).starts_with(
      "privacy.dp.order: clip_noise_compress is not defined with placement central"));
  CHECK(parse_error(dir, with_dp({{"order", "noise_first"}})).starts_with("privacy.dp.order: "));
  CHECK(parse_error(dir, minimal_doc(), {"stop.epsilon=1"}) ==
        "stop.epsilon: needs privacy.dp (there is no epsilon to spend without it)");
  CHECK(parse_error(dir, with_dp(json::object()), {"stop.epsilon=0"}) == "stop.epsilon: must be > 0, got 0");
}

TEST_CASE("privacy: dp needs synchronous rounds of one aggregator and a selection blind to the data") {
  TempDir dir;
  CHECK(parse_error(dir, with_dp(json::object()), {"training.mode=async"}) ==
        "privacy.dp: needs synchronous rounds (training.mode sync, or local-sgd with aggregation sync), not mode async");
  CHECK(parse_error(dir, with_dp(json::object()), {"training.mode=local-sgd", "training.aggregation=async"})
            .starts_with("privacy.dp: needs synchronous rounds"));
  CHECK(parse_in(dir, with_dp(json::object()), {"training.mode=local-sgd"}).privacy.dp);
  CHECK(parse_error(dir, with_dp(json::object()), {"topology.kind=gossip"}).starts_with("privacy.dp: needs topology.kind flat"));
  CHECK(parse_error(dir, with_dp(json::object()),
                    {"training.selection.kind=oort", "training.selection.per_round=1"})
            .starts_with("privacy.dp: not with training.selection.kind oort"));
  CHECK(parse_in(dir, with_dp(json::object()), {"training.selection.kind=random", "training.selection.per_round=1"}).privacy.dp);
}
