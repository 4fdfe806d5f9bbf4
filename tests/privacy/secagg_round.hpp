// A whole secure-aggregation round driven in memory for the tests: real clients and a real server,
// messages handed over directly, and chosen clients silent in chosen phases (a dropout is a client
// whose answer never arrives). Keeps every message's length and bytes, and the plain sum mod 2^b of the
// quantised inputs of the clients whose masked input arrived, which the protocol must reproduce.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

#include "privacy/secagg/client.hpp"
#include "privacy/secagg/field.hpp"
#include "privacy/secagg/server.hpp"

namespace edgetrain::privacy::secagg::test {

struct Round {
  std::vector<uint32_t> ids;
  std::map<uint32_t, std::vector<float>> updates;
  std::map<uint32_t, std::vector<uint32_t>> inputs;  // quantised
  FixedPoint fixed_point;
  std::array<std::vector<uint32_t>, 5> answered;         // U1 ... U5 as the server closed each phase
  std::array<std::map<uint32_t, uint64_t>, 5> download;  // server -> client bytes, by phase and client
  std::array<std::map<uint32_t, uint64_t>, 5> upload;    // client -> server bytes
  std::vector<Bytes> transcript;                         // every message in order
  std::optional<PhaseResult> failure;
  std::optional<std::vector<uint32_t>> sum;
  std::vector<uint32_t> expected;  // plain sum of U3's inputs mod 2^b
  Work server_work;
  std::map<uint32_t, Work> client_work;
};

// Client ids 7, 12, 17, ...: not 0..n-1, so nothing leans on ids being positions.
inline std::vector<uint32_t> client_ids(uint32_t n) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < n; ++i) ids.push_back(7 + 5 * i);
  return ids;
}

// silent[p]: clients that do not answer phase p.
inline Round run_round(const Config& config, uint32_t n, uint64_t seed,
                       const std::array<std::set<uint32_t>, 5>& silent = {}) {
  Round r;
  r.ids = client_ids(n);
  r.fixed_point = {config.field_bits, 1.0, scale_for(n, 1.0, config.field_bits)};
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-1.2f, 1.2f);  // beyond the range too: clipping is exercised
  std::map<uint32_t, SecAggClient> clients;
  for (uint32_t id : r.ids) {
    auto& u = r.updates[id];
    for (uint32_t i = 0; i < config.vector_length; ++i) u.push_back(value(rng));
    r.inputs[id] = quantise(u, r.fixed_point);
    clients.emplace(id, SecAggClient(config, id, seed));
  }
  SecAggServer server(config, r.ids, seed);
  std::map<uint32_t, Bytes> asked;
  for (uint32_t id : r.ids) asked[id] = {};
  for (int p = 0; p < 5; ++p) {
    const auto phase = static_cast<Phase>(p);
    for (const auto& [id, message] : asked) {
      if (p > 0) {
        r.download[p][id] = message.size();
        r.transcript.push_back(message);
      }
      if (silent[p].contains(id)) continue;
      auto& c = clients.at(id);
      Bytes answer;
      switch (phase) {
        case Phase::advertise_keys: answer = c.advertise(); break;
        case Phase::share_keys: answer = c.share_keys(message); break;
        case Phase::masked_input: answer = c.masked_input(message, r.inputs.at(id)); break;
        case Phase::consistency: answer = c.consistency(message); break;
        case Phase::unmasking: answer = c.unmask(message); break;
      }
      r.upload[p][id] = answer.size();
      r.transcript.push_back(answer);
      server.receive(phase, id, answer);
    }
    auto result = server.close(phase);
    r.answered[p] = result.answered;
    if (result.failed) {
      r.failure = std::move(result);
      break;
    }
    if (phase == Phase::masked_input) {
      r.expected.assign(config.vector_length, 0);
      for (uint32_t u : result.answered) add_mod(r.expected, r.inputs.at(u), config.field_bits);
    }
    asked = std::move(result.next);
  }
  r.sum = server.sum();
  r.server_work = server.work();
  for (const auto& [id, c] : clients) r.client_work[id] = c.work();
  return r;
}

}  // namespace edgetrain::privacy::secagg::test
