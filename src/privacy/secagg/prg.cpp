// See prg.hpp.
#include "privacy/secagg/prg.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "privacy/secagg/field.hpp"

namespace edgetrain::privacy::secagg {

void Prg::Free::operator()(evp_cipher_ctx_st* ctx) const { EVP_CIPHER_CTX_free(ctx); }

Prg::Prg(const Key& seed) : ctx_(EVP_CIPHER_CTX_new()) {
  const std::array<uint8_t, 16> counter{};
  if (!ctx_ || EVP_EncryptInit_ex(ctx_.get(), EVP_aes_256_ctr(), nullptr, seed.data(), counter.data()) != 1)
    throw std::runtime_error("secagg: AES-256-CTR set-up failed in libcrypto");
}

void Prg::fill(std::span<uint8_t> out) {
  // CTR's key stream is the encryption of zeros; EVP keeps the position across calls.
  std::fill(out.begin(), out.end(), uint8_t{0});
  int written = 0;
  if (EVP_EncryptUpdate(ctx_.get(), out.data(), &written, out.data(), static_cast<int>(out.size())) != 1 ||
      written != static_cast<int>(out.size()))
    throw std::runtime_error("secagg: AES-256-CTR failed in libcrypto");
}

uint64_t Prg::next_u64() {
  std::array<uint8_t, 8> bytes{};
  fill(bytes);
  uint64_t word = 0;
  for (size_t i = 0; i < bytes.size(); ++i) word |= static_cast<uint64_t>(bytes[i]) << (8 * i);
  return word;
}

void apply_mask(const Key& seed, bool subtract, std::span<uint32_t> acc, uint32_t bits) {
  const uint32_t mask = field_mask(bits);
  Prg prg(seed);
  // A bounded buffer: masks are as long as the model, which may not fit twice in memory.
  constexpr size_t kChunk = 4096;
  std::array<uint8_t, 4 * kChunk> stream{};
  for (size_t start = 0; start < acc.size(); start += kChunk) {
    const size_t count = std::min(kChunk, acc.size() - start);
    prg.fill(std::span(stream).first(4 * count));
    for (size_t i = 0; i < count; ++i) {
      const uint32_t r = static_cast<uint32_t>(stream[4 * i]) | static_cast<uint32_t>(stream[4 * i + 1]) << 8 |
                         static_cast<uint32_t>(stream[4 * i + 2]) << 16 |
                         static_cast<uint32_t>(stream[4 * i + 3]) << 24;
      uint32_t& a = acc[start + i];
      a = (subtract ? a - r : a + r) & mask;
    }
  }
}

}  // namespace edgetrain::privacy::secagg
