// Seed derivation: every random stream of a run derives from the scenario seed plus a
// purpose tag and an entity id, so streams are independent of each other and of the order
// in which simulated actors happen to draw (docs/explanation/determinism.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace edgetrain::util {

// SplitMix64 finaliser: a cheap, well-mixed bijection on 64-bit words.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// FNV-1a over the tag, so purposes are named in the code ("partition", "init", ...).
constexpr uint64_t hash_tag(std::string_view tag) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : tag) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return h;
}

constexpr uint64_t derive_seed(uint64_t scenario_seed, std::string_view purpose, uint64_t id = 0) {
  return mix64(mix64(scenario_seed ^ hash_tag(purpose)) + id);
}

}  // namespace edgetrain::util
