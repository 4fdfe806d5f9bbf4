// See sizes.hpp.
#include "privacy/secagg/sizes.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "privacy/secagg/messages.hpp"

namespace edgetrain::privacy::secagg::sizes {
namespace {

constexpr uint64_t kListHead = kTagBytes + kCountBytes;

}  // namespace

uint64_t advert() { return kTagBytes + 2 * kX25519KeyBytes + kEd25519SignatureBytes; }

uint64_t peer_adverts(uint64_t entries) {
  return kListHead + entries * (kIdBytes + 2 * kX25519KeyBytes + kEd25519SignatureBytes);
}

uint64_t sealed_shares(uint64_t peers) { return kListHead + peers * (kIdBytes + kSealedSharePairBytes); }

uint64_t masked_input(uint64_t length, uint32_t field_bits) {
  return kTagBytes + kCountBytes + (length * field_bits + 7) / 8;
}

uint64_t survivors(uint64_t survivors) { return kListHead + survivors * kIdBytes; }

uint64_t signature() { return kTagBytes + kEd25519SignatureBytes; }

uint64_t peer_signatures(uint64_t entries) { return kListHead + entries * (kIdBytes + kEd25519SignatureBytes); }

uint64_t unmask_shares(uint64_t shares) { return kListHead + shares * (kIdBytes + kShareBytes); }

std::array<PhaseSizes, 5> round_sizes(const Config& config, uint32_t participants, const Dropouts& dropouts) {
  validate(config, participants);
  // live[i]: clients asked in phase i (live[0] = n); live[i + 1]: those that answered it.
  std::array<uint32_t, 6> live{participants};
  for (size_t i = 0; i < 5; ++i) {
    if (dropouts.silent[i] > live[i])
      throw std::invalid_argument("secagg sizes: " + std::to_string(dropouts.silent[i]) + " of " +
                                  std::to_string(live[i]) + " clients drop in phase " + std::to_string(i));
    live[i + 1] = live[i] - dropouts.silent[i];
  }
  // Live neighbours of a live client when `alive` clients are live: all others for SecAgg; for SecAgg+ the
  // mean share of its k, the other alive - 1 clients spread over the n - 1 it could have.
  const auto neighbours = [&](uint32_t alive) -> uint64_t {
    if (alive == 0) return 0;
    if (config.kind == Kind::secagg) return alive - 1;
    return static_cast<uint64_t>(
        std::llround(static_cast<double>(config.neighbours) * (alive - 1) / (participants - 1)));
  };
  std::array<PhaseSizes, 5> out{};
  out[0] = {0, 0, live[1], advert()};
  out[1] = {live[1], peer_adverts(neighbours(live[1]) + 1), live[2], sealed_shares(neighbours(live[1]))};
  out[2] = {live[2], sealed_shares(neighbours(live[2])), live[3],
            masked_input(config.vector_length, config.field_bits)};
  out[3] = {live[3], survivors(live[3]), live[4], signature()};
  // Round 4 answers carry a share per neighbour in U2 and one of the client's own seed.
  out[4] = {live[4], peer_signatures(neighbours(live[4]) + 1), live[5], unmask_shares(neighbours(live[2]) + 1)};
  return out;
}

}  // namespace edgetrain::privacy::secagg::sizes
