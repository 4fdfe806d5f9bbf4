// Secure aggregation end to end (Bonawitz et al. 2017; SecAgg+ of Bell et al. 2020): the server's
// unmasked sum equals the plain sum mod 2^b of the quantised inputs of the clients whose masked input
// arrived, with no dropouts and with dropouts in every phase; a round below threshold fails; the same
// seed gives the same bytes; SecAgg+ spares the server the O(n^2) work of SecAgg.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "privacy/secagg/digest.hpp"
#include "privacy/secagg/graph.hpp"
#include "secagg_round.hpp"

using namespace edgetrain::privacy::secagg;
using edgetrain::privacy::secagg::test::client_ids;
using edgetrain::privacy::secagg::test::run_round;

namespace {

Config secagg_config(uint32_t t, uint32_t m) { return {Kind::secagg, t, m, 32, 0}; }
Config plus_config(uint32_t k, uint32_t t, uint32_t m) { return {Kind::secagg_plus, t, m, 32, k}; }

void check_exact(const edgetrain::privacy::secagg::test::Round& r) {
  REQUIRE_FALSE(r.failure);
  REQUIRE(r.sum);
  CHECK(*r.sum == r.expected);
}

}  // namespace

TEST_CASE("SecAgg without dropouts: the sum is the plain sum, and decodes to the sum of the updates") {
  const auto r = run_round(secagg_config(5, 64), 8, 1);
  check_exact(r);
  CHECK(r.answered[2].size() == 8);
  const auto decoded = decode_sum(*r.sum, r.fixed_point);
  for (size_t i = 0; i < decoded.size(); ++i) {
    double plain = 0;
    for (const auto& [id, u] : r.updates) plain += std::clamp(static_cast<double>(u[i]), -1.0, 1.0);
    // Each quantised value is within 1/(2 scale) of its clipped float.
    CHECK(std::abs(decoded[i] - plain) <= 8 * 0.5 / r.fixed_point.scale + 1e-12);
  }
}

TEST_CASE("SecAgg recovers the masks of clients that drop after ShareKeys and ignores earlier dropouts") {
  const auto ids = client_ids(10);
  // One never advertises, one drops after advertising, two after ShareKeys, one after MaskedInput, one
  // after ConsistencyCheck (its input counts: it is in U3).
  const auto r = run_round(secagg_config(4, 40), 10, 2, {{{ids[0]}, {ids[1]}, {ids[2], ids[3]}, {ids[4]}, {ids[5]}}});
  check_exact(r);
  CHECK(r.answered[1].size() == 8);           // U2
  CHECK(r.answered[2].size() == 6);           // U3
  CHECK(r.answered[4].size() == 4);           // U5
  CHECK(r.server_work.reconstructions == 8);  // b_v of 6 survivors, s_v^SK of 2 dropouts
}

TEST_CASE("SecAgg+ gives the exact sum without dropouts and with dropouts in every phase") {
  const Config config = plus_config(6, 4, 33);
  SUBCASE("no dropouts") { check_exact(run_round(config, 20, 3)); }
  SUBCASE("dropouts") {
    const auto ids = client_ids(20);
    const auto r = run_round(config, 20, 4, {{{ids[0]}, {ids[5]}, {ids[10], ids[11]}, {ids[15]}, {ids[18]}}});
    check_exact(r);
    CHECK(r.answered[1].size() == 18);
    CHECK(r.answered[2].size() == 16);
  }
  SUBCASE("odd degree on an even number of clients, and b = 20") {
    const Config odd{Kind::secagg_plus, 3, 17, 20, 5};
    const auto ids = client_ids(12);
    check_exact(run_round(odd, 12, 5, {{{}, {}, {ids[3]}, {ids[7]}, {}}}));
  }
}

TEST_CASE("a phase that leaves fewer than t live clients fails the round") {
  SUBCASE("SecAgg: 3 of 6 left after MaskedInput, t = 4") {
    const auto ids = client_ids(6);
    const auto r = run_round(secagg_config(4, 8), 6, 6, {{{}, {}, {ids[0], ids[1], ids[2]}, {}, {}}});
    REQUIRE(r.failure);
    CHECK(r.failure->failure.find("MaskedInputCollection") != std::string::npos);
    CHECK(r.failure->next.empty());
    CHECK_FALSE(r.sum);
  }
  SUBCASE("SecAgg+: one client's neighbourhood falls below t though most clients remain") {
    const Config config = plus_config(4, 4, 8);
    const auto ids = client_ids(16);
    const auto graph = build_graph(config, ids, 7);
    const auto& around = graph.at(ids[0]);
    const auto r = run_round(config, 16, 7, {{{}, {around[0], around[1]}, {}, {}, {}}});
    REQUIRE(r.failure);
    CHECK(r.failure->failure.find("ShareKeys") != std::string::npos);
  }
  SUBCASE("Unmasking: too few shares come back") {
    const auto ids = client_ids(5);
    const auto r = run_round(secagg_config(3, 8), 5, 8, {{{}, {}, {}, {}, {ids[0], ids[1], ids[2]}}});
    REQUIRE(r.failure);
    CHECK(r.failure->failure.find("Unmasking") != std::string::npos);
  }
}

TEST_CASE("the same seed gives byte-identical messages, another seed other bytes") {
  const Config config = plus_config(4, 3, 16);
  const auto ids = client_ids(10);
  const std::array<std::set<uint32_t>, 5> silent{{{}, {}, {ids[2]}, {ids[4]}, {}}};
  const auto a = run_round(config, 10, 9, silent);
  const auto b = run_round(config, 10, 9, silent);
  const auto c = run_round(config, 10, 10, silent);
  check_exact(a);
  CHECK(a.transcript == b.transcript);
  CHECK(a.server_work == b.server_work);
  CHECK(a.transcript != c.transcript);
}

TEST_CASE("the server misuse is refused with a clear error") {
  const Config config = secagg_config(2, 4);
  const auto ids = client_ids(3);
  SecAggServer server(config, ids, 1);
  SecAggClient client(config, ids[0], 1);
  const Bytes advert = client.advertise();
  CHECK_THROWS_AS(server.receive(Phase::share_keys, ids[0], advert), std::invalid_argument);
  CHECK_THROWS_AS(server.receive(Phase::advertise_keys, 999, advert), std::invalid_argument);
  server.receive(Phase::advertise_keys, ids[0], advert);
  CHECK_THROWS_AS(server.receive(Phase::advertise_keys, ids[0], advert), std::invalid_argument);
  CHECK_THROWS_AS(server.receive(Phase::advertise_keys, ids[1], Bytes{1, 2, 3}), std::invalid_argument);
  CHECK_THROWS_AS(server.close(Phase::masked_input), std::invalid_argument);
  CHECK_THROWS_AS(client.share_keys(advert), std::invalid_argument);  // a message of the wrong kind
  CHECK_THROWS_AS(client.unmask(Bytes{}), std::invalid_argument);     // out of order
}

TEST_CASE("a client aborts on a forged advert") {
  const Config config = secagg_config(2, 4);
  const auto ids = client_ids(2);
  SecAggClient a(config, ids[0], 1), b(config, ids[1], 1);
  const auto own = decode_advert(a.advertise());
  auto other = decode_advert(b.advertise());
  other.signature[0] ^= 1;
  const Bytes list = encode_peer_adverts({{ids[0], own}, {ids[1], other}});
  CHECK_THROWS_AS(a.share_keys(list), ProtocolAbort);
}

TEST_CASE("SecAgg+'s default neighbourhood holds every other client up to 13 per round, with SecAgg's threshold") {
  // docs/explanation/secure-aggregation.md: "up to 13 devices a round SecAgg+ is SecAgg".
  for (uint32_t n = 3; n <= 13; ++n) {
    CAPTURE(n);
    CHECK(bell_neighbours(n).neighbours == n - 1);
    CHECK(bell_neighbours(n).threshold == n / 2 + 1);  // SecAgg's strict majority
  }
  CHECK(bell_neighbours(14).neighbours < 13);
}

TEST_CASE("SecAgg+ at n = 100 costs the server O(n k), SecAgg O(n^2)") {
  const uint32_t n = 100, m = 8;
  const auto choice = bell_neighbours(n);
  CHECK(choice.neighbours < 30);
  const auto ids = client_ids(n);
  // Ten clients drop after ShareKeys (they sent shares, not their masked input): the server recomputes
  // their pairwise masks with every live partner.
  std::set<uint32_t> dropped(ids.begin(), ids.begin() + 10);
  const std::array<std::set<uint32_t>, 5> silent{{{}, {}, dropped, {}, {}}};
  const auto plain = run_round(secagg_config(51, m), n, 11, silent);
  const auto plus = run_round(plus_config(choice.neighbours, choice.threshold, m), n, 11, silent);
  check_exact(plain);
  check_exact(plus);
  // SecAgg: 10 dropouts x 90 survivors; SecAgg+: at most 10 x k.
  CHECK(plain.server_work.key_agreements == 10 * 90);
  CHECK(plus.server_work.key_agreements <= 10 * choice.neighbours);
  CHECK(plain.server_work.prg_elements == m * (90 + 10 * 90));
  CHECK(plus.server_work.prg_elements <= m * (90 + 10 * choice.neighbours));
  // A client agrees once per neighbour for encryption and once per partner in U2 for masks.
  CHECK(plain.client_work.at(ids[50]).key_agreements == 99 + 99);
  CHECK(plus.client_work.at(ids[50]).key_agreements <= 2 * choice.neighbours);
  CHECK(plus.client_work.at(ids[50]).shares_made == 2 * (choice.neighbours + 1));
}

TEST_CASE("a client aborts on a survivor list without it and on signatures over another list") {
  const Config config = secagg_config(2, 4);
  const auto ids = client_ids(3);
  SecAggServer server(config, ids, 5);
  std::map<uint32_t, SecAggClient> clients;
  for (uint32_t id : ids) clients.emplace(id, SecAggClient(config, id, 5));
  for (auto& [id, c] : clients) server.receive(Phase::advertise_keys, id, c.advertise());
  auto next = server.close(Phase::advertise_keys).next;
  for (auto& [id, c] : clients) server.receive(Phase::share_keys, id, c.share_keys(next.at(id)));
  next = server.close(Phase::share_keys).next;
  const std::vector<uint32_t> input(4, 1);
  for (auto& [id, c] : clients) server.receive(Phase::masked_input, id, c.masked_input(next.at(id), input));
  next = server.close(Phase::masked_input).next;
  CHECK_THROWS_AS(clients.at(ids[0]).consistency(encode_survivors({ids[1], ids[2]})), ProtocolAbort);
  // Client 1 signs the true U3; client 2 is shown a signature of client 0 over a list without client 1.
  const Bytes signed_by_1 = clients.at(ids[1]).consistency(next.at(ids[1]));
  clients.at(ids[2]).consistency(next.at(ids[2]));
  const Bytes other_list = encode_survivors({ids[0], ids[2]});
  // Client 0's signing key, derived as the client derives it (client.cpp).
  const Signature forged = ed25519_sign(seed_key(5, "secagg signing key", ids[0]), other_list);
  const Bytes signatures =
      encode_peer_signatures({{ids[0], forged}, {ids[1], decode_signature(signed_by_1)}, {ids[2], Signature{}}});
  CHECK_THROWS_AS(clients.at(ids[2]).unmask(signatures), ProtocolAbort);
}

TEST_CASE("after Unmasking the round is over: the server refuses further phases") {
  const Config config = secagg_config(2, 3);
  const auto ids = client_ids(2);
  SecAggServer server(config, ids, 6);
  std::map<uint32_t, SecAggClient> clients;
  for (uint32_t id : ids) clients.emplace(id, SecAggClient(config, id, 6));
  const std::vector<uint32_t> input{1, 2, 3};
  for (auto& [id, c] : clients) server.receive(Phase::advertise_keys, id, c.advertise());
  auto next = server.close(Phase::advertise_keys).next;
  for (auto& [id, c] : clients) server.receive(Phase::share_keys, id, c.share_keys(next.at(id)));
  next = server.close(Phase::share_keys).next;
  for (auto& [id, c] : clients) server.receive(Phase::masked_input, id, c.masked_input(next.at(id), input));
  next = server.close(Phase::masked_input).next;
  for (auto& [id, c] : clients) server.receive(Phase::consistency, id, c.consistency(next.at(id)));
  next = server.close(Phase::consistency).next;
  for (auto& [id, c] : clients) server.receive(Phase::unmasking, id, c.unmask(next.at(id)));
  const auto last = server.close(Phase::unmasking);
  CHECK_FALSE(last.failed);
  CHECK(last.next.empty());
  CHECK(server.sum() == std::vector<uint32_t>{2, 4, 6});
  CHECK_THROWS_AS(server.close(Phase::unmasking), std::invalid_argument);
}
