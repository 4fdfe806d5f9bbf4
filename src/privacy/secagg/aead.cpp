// See aead.hpp.
#include "privacy/secagg/aead.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace edgetrain::privacy::secagg {
namespace {

struct FreeCipherContext {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherPtr = std::unique_ptr<EVP_CIPHER_CTX, FreeCipherContext>;

}  // namespace

Nonce pair_nonce(uint32_t sender, uint32_t recipient) {
  Nonce nonce{};
  for (size_t i = 0; i < 4; ++i) {
    nonce[i] = static_cast<uint8_t>(sender >> (8 * i));
    nonce[4 + i] = static_cast<uint8_t>(recipient >> (8 * i));
  }
  return nonce;
}

Bytes seal(const Key& key, const Nonce& nonce, std::span<const uint8_t> plain) {
  Bytes out(sealed_size(plain.size()));
  std::copy(nonce.begin(), nonce.end(), out.begin());
  const CipherPtr ctx(EVP_CIPHER_CTX_new());
  int written = 0, final_bytes = 0;
  uint8_t* body = out.data() + kGcmNonceBytes;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), nonce.data()) != 1 ||
      EVP_EncryptUpdate(ctx.get(), body, &written, plain.data(), static_cast<int>(plain.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), body + written, &final_bytes) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kGcmTagBytes, body + plain.size()) != 1)
    throw std::runtime_error("secagg: AES-256-GCM sealing failed in libcrypto");
  return out;
}

std::optional<Bytes> open(const Key& key, std::span<const uint8_t> sealed) {
  if (sealed.size() < sealed_size(0)) return std::nullopt;
  const size_t plain_bytes = sealed.size() - sealed_size(0);
  Bytes plain(plain_bytes);
  const uint8_t* body = sealed.data() + kGcmNonceBytes;
  Bytes tag(body + plain_bytes, body + plain_bytes + kGcmTagBytes);
  const CipherPtr ctx(EVP_CIPHER_CTX_new());
  int written = 0, final_bytes = 0;
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key.data(), sealed.data()) != 1 ||
      EVP_DecryptUpdate(ctx.get(), plain.data(), &written, body, static_cast<int>(plain_bytes)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kGcmTagBytes, tag.data()) != 1)
    throw std::runtime_error("secagg: AES-256-GCM opening failed in libcrypto");
  if (EVP_DecryptFinal_ex(ctx.get(), plain.data() + written, &final_bytes) != 1) return std::nullopt;
  return plain;
}

}  // namespace edgetrain::privacy::secagg
