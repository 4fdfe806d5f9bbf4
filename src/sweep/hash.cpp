// See hash.hpp.
#include "sweep/hash.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace edgetrain::sweep {

std::string scenario_hash(const nlohmann::json& resolved) {
  // nlohmann::json keeps object keys sorted: dump() is canonical for equal documents.
  const std::string text = resolved.dump();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed (OpenSSL)");
  }
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace edgetrain::sweep
