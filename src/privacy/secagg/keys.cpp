// See keys.hpp.
#include "privacy/secagg/keys.hpp"

#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

#include "privacy/secagg/config.hpp"
#include "privacy/secagg/digest.hpp"

namespace edgetrain::privacy::secagg {
namespace {

struct FreeKey {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct FreeKeyContext {
  void operator()(EVP_PKEY_CTX* ctx) const { EVP_PKEY_CTX_free(ctx); }
};
struct FreeDigestContext {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, FreeKey>;

[[noreturn]] void libcrypto_failed(const char* what) {
  throw std::runtime_error(std::string("secagg: ") + what + " failed in libcrypto");
}

KeyPtr private_key(int type, const Key& secret) {
  KeyPtr key(EVP_PKEY_new_raw_private_key(type, nullptr, secret.data(), secret.size()));
  if (!key) libcrypto_failed("loading a raw private key");
  return key;
}

KeyPair key_pair(int type, const Key& secret) {
  const auto key = private_key(type, secret);
  KeyPair pair{secret, {}};
  size_t length = pair.public_key.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), pair.public_key.data(), &length) != 1 || length != pair.public_key.size())
    libcrypto_failed("computing a public key");
  return pair;
}

}  // namespace

KeyPair x25519_key_pair(const Key& secret) { return key_pair(EVP_PKEY_X25519, secret); }

Key x25519_agree(const Key& secret, const Key& peer_public) {
  const auto own = private_key(EVP_PKEY_X25519, secret);
  const KeyPtr peer(EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nullptr, peer_public.data(), peer_public.size()));
  if (!peer) libcrypto_failed("loading a raw public key");
  const std::unique_ptr<EVP_PKEY_CTX, FreeKeyContext> ctx(EVP_PKEY_CTX_new(own.get(), nullptr));
  if (!ctx || EVP_PKEY_derive_init(ctx.get()) != 1) libcrypto_failed("X25519 set-up");
  if (EVP_PKEY_derive_set_peer(ctx.get(), peer.get()) != 1)
    throw ProtocolAbort("secagg: a peer's X25519 key is invalid");
  Key shared{};
  size_t length = shared.size();
  // libcrypto refuses an all-zero result, which only a low-order peer key produces.
  if (EVP_PKEY_derive(ctx.get(), shared.data(), &length) != 1 || length != shared.size())
    throw ProtocolAbort("secagg: X25519 agreement with a low-order peer key");
  return shared;
}

Key derive_key(const Key& shared, std::string_view purpose) {
  Bytes input(purpose.begin(), purpose.end());
  input.push_back(0);
  input.insert(input.end(), shared.begin(), shared.end());
  return sha256(input);
}

KeyPair ed25519_key_pair(const Key& secret) { return key_pair(EVP_PKEY_ED25519, secret); }

Signature ed25519_sign(const Key& secret, std::span<const uint8_t> message) {
  const auto key = private_key(EVP_PKEY_ED25519, secret);
  const std::unique_ptr<EVP_MD_CTX, FreeDigestContext> ctx(EVP_MD_CTX_new());
  Signature signature{};
  size_t length = signature.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), signature.data(), &length, message.data(), message.size()) != 1 ||
      length != signature.size())
    libcrypto_failed("Ed25519 signing");
  return signature;
}

bool ed25519_verify(const Key& public_key, std::span<const uint8_t> message, const Signature& signature) {
  const KeyPtr key(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, public_key.data(), public_key.size()));
  if (!key) return false;
  const std::unique_ptr<EVP_MD_CTX, FreeDigestContext> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1)
    libcrypto_failed("Ed25519 verification set-up");
  return EVP_DigestVerify(ctx.get(), signature.data(), signature.size(), message.data(), message.size()) == 1;
}

}  // namespace edgetrain::privacy::secagg
