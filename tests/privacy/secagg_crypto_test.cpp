// The primitives under secure aggregation: the AES-CTR PRG, X25519 agreement and the derived keys,
// Ed25519 signatures, AES-256-GCM sealing, and the SecAgg+ graph.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "privacy/secagg/aead.hpp"
#include "privacy/secagg/digest.hpp"
#include "privacy/secagg/graph.hpp"
#include "privacy/secagg/keys.hpp"
#include "privacy/secagg/prg.hpp"

using namespace edgetrain::privacy::secagg;

TEST_CASE("the PRG is a function of its seed, and a mask added then subtracted leaves the vector") {
  const Key seed = seed_key(1, "prg", 0);
  std::vector<uint32_t> a(10000, 5), b(10000, 5), c(10000, 5);
  apply_mask(seed, false, a, 32);
  apply_mask(seed, false, b, 32);
  apply_mask(seed_key(1, "prg", 1), false, c, 32);
  CHECK(a == b);
  CHECK(a != c);
  apply_mask(seed, true, a, 32);
  CHECK(a == std::vector<uint32_t>(10000, 5));
  // Reduced mod 2^b for smaller fields.
  std::vector<uint32_t> small(1000, 0);
  apply_mask(seed, false, small, 12);
  for (uint32_t v : small) CHECK(v < 4096);
}

TEST_CASE("X25519: both ends of a pair derive the same keys, distinct per purpose") {
  const auto u = x25519_key_pair(seed_key(2, "x", 1));
  const auto v = x25519_key_pair(seed_key(2, "x", 2));
  const Key uv = x25519_agree(u.secret, v.public_key);
  CHECK(uv == x25519_agree(v.secret, u.public_key));
  CHECK(derive_key(uv, kMaskPurpose) != derive_key(uv, kSharePurpose));
  CHECK(x25519_key_pair(u.secret).public_key == u.public_key);
  CHECK_THROWS_AS(x25519_agree(u.secret, Key{}), ProtocolAbort);  // the zero point has low order
}

TEST_CASE("Ed25519 signatures are deterministic and bound to the message and the key") {
  const auto key = ed25519_key_pair(seed_key(3, "sign", 0));
  const Bytes message{1, 2, 3};
  const auto signature = ed25519_sign(key.secret, message);
  CHECK(signature == ed25519_sign(key.secret, message));
  CHECK(ed25519_verify(key.public_key, message, signature));
  CHECK_FALSE(ed25519_verify(key.public_key, Bytes{1, 2, 4}, signature));
  CHECK_FALSE(ed25519_verify(ed25519_key_pair(seed_key(3, "sign", 1)).public_key, message, signature));
}

TEST_CASE("AES-256-GCM opens what it sealed, and nothing altered or under another key") {
  const Key key = seed_key(4, "gcm", 0);
  const Bytes plain(88, 7);
  const Bytes sealed = seal(key, pair_nonce(3, 9), plain);
  CHECK(sealed.size() == sealed_size(plain.size()));
  CHECK(open(key, sealed) == plain);
  Bytes altered = sealed;
  altered[20] ^= 1;
  CHECK_FALSE(open(key, altered));
  CHECK_FALSE(open(seed_key(4, "gcm", 1), sealed));
  CHECK(pair_nonce(3, 9) != pair_nonce(9, 3));
}

TEST_CASE("the SecAgg+ graph is k-regular, symmetric and laid out by the seed") {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 30; ++i) ids.push_back(100 + i);
  for (uint32_t k : {4u, 5u, 29u}) {
    const Config config{Kind::secagg_plus, 2, 1, 32, k};
    const auto graph = build_graph(config, ids, 1);
    for (const auto& [u, list] : graph) {
      CHECK(list.size() == k);
      CHECK(std::set<uint32_t>(list.begin(), list.end()).size() == k);
      for (uint32_t v : list) CHECK(std::binary_search(graph.at(v).begin(), graph.at(v).end(), u));
    }
    CHECK(graph == build_graph(config, ids, 1));
    if (k < 29) CHECK(graph != build_graph(config, ids, 2));
  }
  const Config odd{Kind::secagg_plus, 2, 1, 32, 3};
  const std::vector<uint32_t> seven{1, 2, 3, 4, 5, 6, 7};
  CHECK_THROWS_AS(build_graph(odd, seven, 1), std::invalid_argument);
}
