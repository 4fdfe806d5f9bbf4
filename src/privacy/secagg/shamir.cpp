// See shamir.hpp.
#include "privacy/secagg/shamir.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

namespace edgetrain::privacy::secagg {
namespace {

constexpr size_t kChunkBytes = 7;

uint64_t reduce(unsigned __int128 x) {
  // 2^61 = 1 mod p: fold the high bits onto the low ones twice, then one conditional subtraction.
  uint64_t r = static_cast<uint64_t>(x & kShamirPrime) + static_cast<uint64_t>(x >> 61);
  r = (r & kShamirPrime) + (r >> 61);
  return r >= kShamirPrime ? r - kShamirPrime : r;
}

uint64_t mul(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) * b); }
uint64_t add(uint64_t a, uint64_t b) { return reduce(static_cast<unsigned __int128>(a) + b); }
uint64_t sub(uint64_t a, uint64_t b) { return add(a, kShamirPrime - b); }

uint64_t inverse(uint64_t a) {
  // Fermat: a^(p-2) = a^-1 for a != 0 mod p.
  uint64_t result = 1, base = a;
  for (uint64_t e = kShamirPrime - 2; e > 0; e >>= 1) {
    if (e & 1) result = mul(result, base);
    base = mul(base, base);
  }
  return result;
}

uint64_t x_of(uint32_t holder) { return uint64_t{holder} + 1; }

uint64_t uniform(Prg& prg) {
  // Rejection keeps the coefficients uniform mod p (only 2^61 - 1 itself is redrawn).
  for (;;) {
    const uint64_t r = prg.next_u64() & kShamirPrime;
    if (r < kShamirPrime) return r;
  }
}

std::array<uint64_t, kShamirChunks> chunks_of(const Key& secret) {
  std::array<uint64_t, kShamirChunks> out{};
  for (size_t i = 0; i < secret.size(); ++i) out[i / kChunkBytes] |= uint64_t{secret[i]} << (8 * (i % kChunkBytes));
  return out;
}

}  // namespace

std::vector<Share> share_secret(const Key& secret, uint32_t threshold, std::span<const uint32_t> holders,
                                Prg& coefficients) {
  if (threshold == 0 || threshold > holders.size())
    throw std::invalid_argument("shamir: threshold " + std::to_string(threshold) + " for " +
                                std::to_string(holders.size()) + " holders");
  if (std::set<uint32_t>(holders.begin(), holders.end()).size() != holders.size())
    throw std::invalid_argument("shamir: holders repeat");
  const auto constant = chunks_of(secret);
  std::vector<Share> shares(holders.size());
  for (size_t h = 0; h < holders.size(); ++h) shares[h].holder = holders[h];
  std::vector<uint64_t> poly(threshold);
  for (size_t c = 0; c < kShamirChunks; ++c) {
    poly[0] = constant[c];
    for (size_t j = 1; j < threshold; ++j) poly[j] = uniform(coefficients);
    for (auto& share : shares) {
      const uint64_t x = x_of(share.holder);
      uint64_t y = 0;
      for (size_t j = threshold; j-- > 0;) y = add(mul(y, x), poly[j]);  // Horner
      share.y[c] = y;
    }
  }
  return shares;
}

Key reconstruct_secret(std::span<const Share> shares, uint32_t threshold) {
  if (threshold == 0) throw std::invalid_argument("shamir: threshold must be at least 1");
  if (shares.size() < threshold)
    throw std::invalid_argument("shamir: " + std::to_string(shares.size()) + " shares, " + std::to_string(threshold) +
                                " needed to reconstruct");
  const auto used = shares.first(threshold);
  std::set<uint32_t> holders;
  for (const auto& s : used) {
    if (!holders.insert(s.holder).second) throw std::invalid_argument("shamir: two shares of one holder");
    for (uint64_t y : s.y)
      if (y >= kShamirPrime) throw std::invalid_argument("shamir: a share value lies outside the field");
  }
  // Lagrange basis at 0: l_i = prod_{j != i} x_j / (x_j - x_i), computed once for all chunks.
  std::vector<uint64_t> basis(used.size());
  for (size_t i = 0; i < used.size(); ++i) {
    uint64_t num = 1, den = 1;
    for (size_t j = 0; j < used.size(); ++j) {
      if (j == i) continue;
      num = mul(num, x_of(used[j].holder));
      den = mul(den, sub(x_of(used[j].holder), x_of(used[i].holder)));
    }
    basis[i] = mul(num, inverse(den));
  }
  Key secret{};
  for (size_t c = 0; c < kShamirChunks; ++c) {
    uint64_t value = 0;
    for (size_t i = 0; i < used.size(); ++i) value = add(value, mul(basis[i], used[i].y[c]));
    const size_t width = std::min(kChunkBytes, secret.size() - c * kChunkBytes);
    if (value >> (8 * width) != 0) throw std::invalid_argument("shamir: the shares do not belong to one secret");
    for (size_t b = 0; b < width; ++b) secret[c * kChunkBytes + b] = static_cast<uint8_t>(value >> (8 * b));
  }
  return secret;
}

}  // namespace edgetrain::privacy::secagg
