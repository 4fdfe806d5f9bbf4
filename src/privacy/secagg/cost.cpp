// See cost.hpp.
#include "privacy/secagg/cost.hpp"

#include "privacy/secagg/messages.hpp"

namespace edgetrain::privacy::secagg {

double work_flops(const Work& w, uint32_t threshold) {
  const auto t = static_cast<double>(threshold);
  const auto n = [](uint64_t count) { return static_cast<double>(count); };
  return n(w.key_generations + w.key_agreements) * kX25519Flops + n(w.signatures_made) * kSignFlops +
         n(w.signatures_verified) * kVerifyFlops + n(w.prg_elements) * kPrgElementFlops +
         n(w.bytes_encrypted + w.bytes_decrypted) * kSealedByteFlops +
         n(w.shares_made) * kShareChunks * t * kModularMultiplyFlops +
         n(w.reconstructions) * kShareChunks * t * t * kModularMultiplyFlops;
}

Work client_work(Phase phase, const ClientCounts& c) {
  Work w;
  switch (phase) {
    case Phase::advertise_keys:  // its three key pairs, and its advert signed
      w.key_generations = 3;
      w.signatures_made = 1;
      break;
    case Phase::share_keys:  // the peers' adverts checked; two secrets shared among them and itself, sealed
      w.signatures_verified = c.peers;
      w.shares_made = 2 * (c.peers + 1);
      w.key_agreements = c.peers;
      w.bytes_encrypted = c.peers * kSharePairBytes;
      break;
    case Phase::masked_input:  // its self mask and one pairwise mask per partner
      w.key_agreements = c.partners;
      w.prg_elements = c.vector_length * (1 + c.partners);
      break;
    case Phase::consistency: w.signatures_made = 1; break;
    case Phase::unmasking:  // the survivors' signatures checked; its partners' shares opened
      w.signatures_verified = c.signers;
      w.bytes_decrypted = c.partners * kSharePairBytes;
      break;
  }
  return w;
}

}  // namespace edgetrain::privacy::secagg
