// The sizes of secure-aggregation messages from formulas equal the lengths of the real serialized
// messages, message by message and phase by phase.
#include <doctest/doctest.h>

#include <algorithm>

#include "privacy/secagg/graph.hpp"
#include "privacy/secagg/sizes.hpp"
#include "secagg_round.hpp"

using namespace edgetrain::privacy::secagg;
using edgetrain::privacy::secagg::test::client_ids;
using edgetrain::privacy::secagg::test::Round;
using edgetrain::privacy::secagg::test::run_round;

namespace {

// Every recorded message of a phase has the size round_sizes gives it.
void check_round_sizes(const Round& r, const std::array<sizes::PhaseSizes, 5>& expected) {
  for (size_t p = 0; p < 5; ++p) {
    CAPTURE(p);
    CHECK(r.download[p].size() == expected[p].receivers);
    for (const auto& [id, bytes] : r.download[p]) CHECK(bytes == expected[p].download);
    CHECK(r.upload[p].size() == expected[p].senders);
    for (const auto& [id, bytes] : r.upload[p]) CHECK(bytes == expected[p].upload);
  }
}

size_t live(const std::vector<uint32_t>& neighbours, const std::vector<uint32_t>& set) {
  size_t n = 0;
  for (uint32_t v : neighbours) n += std::binary_search(set.begin(), set.end(), v);
  return n;
}

}  // namespace

TEST_CASE("the primitive sizes: a share pair seals to 116 bytes, an advert is 129") {
  CHECK(kSealedSharePairBytes == 12 + 4 + 4 + 40 + 40 + 16);
  CHECK(sizes::advert() == 1 + 32 + 32 + 64);
  CHECK(sizes::masked_input(1000, 32) == 1 + 4 + 4000);
  CHECK(sizes::masked_input(3, 20) == 1 + 4 + 8);
}

TEST_CASE("SecAgg: round_sizes equals the serialized lengths, with dropouts in every phase") {
  const Config config{Kind::secagg, 4, 50, 24, 0};
  const auto ids = client_ids(12);
  sizes::Dropouts d;
  d.silent = {1, 1, 2, 1, 1};
  const auto r = run_round(config, 12, 1, {{{ids[0]}, {ids[1]}, {ids[2], ids[3]}, {ids[4]}, {ids[5]}}});
  REQUIRE(r.sum);
  check_round_sizes(r, sizes::round_sizes(config, 12, d));
}

TEST_CASE("SecAgg+: round_sizes equals the serialized lengths without dropouts") {
  const Config config{Kind::secagg_plus, 3, 20, 32, 4};
  const auto r = run_round(config, 15, 2);
  REQUIRE(r.sum);
  check_round_sizes(r, sizes::round_sizes(config, 15, {}));
}

TEST_CASE("SecAgg+ with dropouts: each message's formula, given its client's live neighbours, is its length") {
  const Config config{Kind::secagg_plus, 3, 20, 32, 6};
  const auto ids = client_ids(16);
  const uint64_t seed = 3;
  const auto r = run_round(config, 16, seed, {{{ids[0]}, {ids[1]}, {ids[2]}, {ids[3]}, {ids[4]}}});
  REQUIRE(r.sum);
  const auto graph = build_graph(config, ids, seed);
  const auto& [u1, u2, u3, u4, u5] = r.answered;
  for (const auto& [u, bytes] : r.download[1]) CHECK(bytes == sizes::peer_adverts(live(graph.at(u), u1) + 1));
  for (const auto& [u, bytes] : r.upload[1]) CHECK(bytes == sizes::sealed_shares(live(graph.at(u), u1)));
  for (const auto& [u, bytes] : r.download[2]) CHECK(bytes == sizes::sealed_shares(live(graph.at(u), u2)));
  for (const auto& [u, bytes] : r.upload[2]) CHECK(bytes == sizes::masked_input(20, 32));
  for (const auto& [u, bytes] : r.download[3]) CHECK(bytes == sizes::survivors(u3.size()));
  for (const auto& [u, bytes] : r.upload[3]) CHECK(bytes == sizes::signature());
  for (const auto& [u, bytes] : r.download[4]) CHECK(bytes == sizes::peer_signatures(live(graph.at(u), u4) + 1));
  for (const auto& [u, bytes] : r.upload[4]) CHECK(bytes == sizes::unmask_shares(live(graph.at(u), u2) + 1));
  CHECK(u5.size() == 11);
}
