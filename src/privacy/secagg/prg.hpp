// The pseudorandom generator of secure aggregation (Bonawitz et al. 2017, section 3, "PRG"): a 32-byte
// seed is the key of AES-256 in counter mode from a zero counter, and its key stream, read as
// little-endian 32-bit words reduced mod 2^b, is the mask. Each seed masks one vector once, so the fixed
// counter start never repeats a stream under the same key. Also the byte stream behind Shamir's random
// coefficients.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "privacy/secagg/primitives.hpp"

struct evp_cipher_ctx_st;  // OpenSSL's EVP_CIPHER_CTX, kept out of this header

namespace edgetrain::privacy::secagg {

class Prg {
 public:
  explicit Prg(const Key& seed);
  void fill(std::span<uint8_t> out);
  uint64_t next_u64();

 private:
  struct Free {
    void operator()(evp_cipher_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_cipher_ctx_st, Free> ctx_;
};

// acc -= PRG(seed) when `subtract`, else acc += PRG(seed), element-wise mod 2^b; acc.size() elements
// expanded (what Work::prg_elements counts).
void apply_mask(const Key& seed, bool subtract, std::span<uint32_t> acc, uint32_t bits);

}  // namespace edgetrain::privacy::secagg
