// See digest.hpp.
#include "privacy/secagg/digest.hpp"

#include <openssl/evp.h>

#include <stdexcept>

#include "util/seed.hpp"

namespace edgetrain::privacy::secagg {

Key sha256(std::span<const uint8_t> data) {
  Key out{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &length, EVP_sha256(), nullptr) != 1 || length != out.size())
    throw std::runtime_error("secagg: SHA-256 failed in libcrypto");
  return out;
}

Key seed_key(uint64_t seed, std::string_view purpose, uint64_t id) {
  const uint64_t word = util::derive_seed(seed, purpose, id);
  std::array<uint8_t, 8> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(word >> (8 * i));
  return sha256(bytes);
}

}  // namespace edgetrain::privacy::secagg
