// See messages.hpp.
#include "privacy/secagg/messages.hpp"

#include <algorithm>
#include <stdexcept>

#include "privacy/secagg/wire.hpp"

namespace edgetrain::privacy::secagg {
namespace {

constexpr size_t kAdvertBytes = 2 * kX25519KeyBytes + kEd25519SignatureBytes;

void expect_tag(Reader& in, Tag tag, const char* what) {
  const uint8_t got = in.u8();
  if (got != static_cast<uint8_t>(tag))
    throw std::invalid_argument(std::string("secagg ") + what + ": tag " + std::to_string(got) + ", expected " +
                                std::to_string(static_cast<int>(tag)));
}

void write_advert(Writer& out, const Advert& a) {
  out.bytes(a.cipher_public);
  out.bytes(a.mask_public);
  out.bytes(a.signature);
}

Advert read_advert(Reader& in) {
  Advert a;
  in.bytes(a.cipher_public);
  in.bytes(a.mask_public);
  in.bytes(a.signature);
  return a;
}

void write_share(Writer& out, const Share& s) {
  for (uint64_t y : s.y) out.u64(y);
}

Share read_share(Reader& in, uint32_t holder) {
  Share s;
  s.holder = holder;
  for (auto& y : s.y) y = in.u64();
  return s;
}

// Lists of ids go out sorted and without repeats; a message breaking that is malformed.
void check_increasing(const std::vector<uint32_t>& ids, const char* what) {
  if (std::adjacent_find(ids.begin(), ids.end(), [](uint32_t a, uint32_t b) { return a >= b; }) != ids.end())
    throw std::invalid_argument(std::string("secagg ") + what + ": ids not strictly increasing");
}

template <class T>
void check_increasing_ids(const std::vector<T>& entries, const char* what) {
  std::vector<uint32_t> ids;
  for (const auto& e : entries) ids.push_back(e.id);
  check_increasing(ids, what);
}

}  // namespace

Bytes advert_signed_bytes(const Advert& advert) {
  Bytes out(advert.cipher_public.begin(), advert.cipher_public.end());
  out.insert(out.end(), advert.mask_public.begin(), advert.mask_public.end());
  return out;
}

Bytes encode_advert(const Advert& advert) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::advert));
  write_advert(out, advert);
  return out.take();
}

Advert decode_advert(std::span<const uint8_t> message) {
  Reader in(message, "advert");
  expect_tag(in, Tag::advert, "advert");
  const Advert a = read_advert(in);
  in.finish();
  return a;
}

Bytes encode_peer_adverts(const std::vector<PeerAdvert>& adverts) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::peer_adverts));
  out.u32(static_cast<uint32_t>(adverts.size()));
  for (const auto& p : adverts) {
    out.u32(p.id);
    write_advert(out, p.advert);
  }
  return out.take();
}

std::vector<PeerAdvert> decode_peer_adverts(std::span<const uint8_t> message) {
  Reader in(message, "peer adverts");
  expect_tag(in, Tag::peer_adverts, "peer adverts");
  std::vector<PeerAdvert> adverts(in.count(kIdBytes + kAdvertBytes));
  for (auto& p : adverts) {
    p.id = in.u32();
    p.advert = read_advert(in);
  }
  in.finish();
  check_increasing_ids(adverts, "peer adverts");
  return adverts;
}

Bytes encode_sealed(Tag tag, const std::vector<Sealed>& sealed) {
  if (tag != Tag::sealed_to_peers && tag != Tag::sealed_from_peers)
    throw std::invalid_argument("secagg: sealed shares go to or come from peers");
  Writer out;
  out.u8(static_cast<uint8_t>(tag));
  out.u32(static_cast<uint32_t>(sealed.size()));
  for (const auto& s : sealed) {
    if (s.sealed.size() != kSealedSharePairBytes)
      throw std::invalid_argument("secagg: a sealed share pair has " + std::to_string(s.sealed.size()) + " bytes");
    out.u32(s.peer);
    out.bytes(s.sealed);
  }
  return out.take();
}

std::vector<Sealed> decode_sealed(Tag tag, std::span<const uint8_t> message) {
  Reader in(message, "sealed shares");
  expect_tag(in, tag, "sealed shares");
  std::vector<Sealed> sealed(in.count(kIdBytes + kSealedSharePairBytes));
  std::vector<uint32_t> peers;
  for (auto& s : sealed) {
    s.peer = in.u32();
    s.sealed.resize(kSealedSharePairBytes);
    in.bytes(s.sealed);
    peers.push_back(s.peer);
  }
  in.finish();
  check_increasing(peers, "sealed shares");
  return sealed;
}

Bytes encode_share_pair(const SharePair& pair) {
  Writer out;
  out.u32(pair.from);
  out.u32(pair.to);
  write_share(out, pair.mask_key);
  write_share(out, pair.self_seed);
  return out.take();
}

SharePair decode_share_pair(std::span<const uint8_t> plain, uint32_t holder) {
  Reader in(plain, "share pair");
  SharePair pair;
  pair.from = in.u32();
  pair.to = in.u32();
  pair.mask_key = read_share(in, holder);
  pair.self_seed = read_share(in, holder);
  in.finish();
  return pair;
}

Bytes encode_masked_input(std::span<const uint32_t> y, uint32_t bits) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::masked_input));
  out.u32(static_cast<uint32_t>(y.size()));
  out.packed(y, bits);
  return out.take();
}

std::vector<uint32_t> decode_masked_input(std::span<const uint8_t> message, uint32_t length, uint32_t bits) {
  Reader in(message, "masked input");
  expect_tag(in, Tag::masked_input, "masked input");
  const uint32_t count = in.u32();
  if (count != length)
    throw std::invalid_argument("secagg masked input: " + std::to_string(count) + " elements, expected " +
                                std::to_string(length));
  auto y = in.packed(count, bits);
  in.finish();
  return y;
}

Bytes encode_survivors(const std::vector<uint32_t>& ids) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::survivors));
  out.u32(static_cast<uint32_t>(ids.size()));
  for (uint32_t id : ids) out.u32(id);
  return out.take();
}

std::vector<uint32_t> decode_survivors(std::span<const uint8_t> message) {
  Reader in(message, "survivors");
  expect_tag(in, Tag::survivors, "survivors");
  std::vector<uint32_t> ids(in.count(kIdBytes));
  for (auto& id : ids) id = in.u32();
  in.finish();
  check_increasing(ids, "survivors");
  return ids;
}

Bytes encode_signature(const Signature& signature) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::signature));
  out.bytes(signature);
  return out.take();
}

Signature decode_signature(std::span<const uint8_t> message) {
  Reader in(message, "signature");
  expect_tag(in, Tag::signature, "signature");
  Signature s{};
  in.bytes(s);
  in.finish();
  return s;
}

Bytes encode_peer_signatures(const std::vector<PeerSignature>& signatures) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::peer_signatures));
  out.u32(static_cast<uint32_t>(signatures.size()));
  for (const auto& s : signatures) {
    out.u32(s.id);
    out.bytes(s.signature);
  }
  return out.take();
}

std::vector<PeerSignature> decode_peer_signatures(std::span<const uint8_t> message) {
  Reader in(message, "peer signatures");
  expect_tag(in, Tag::peer_signatures, "peer signatures");
  std::vector<PeerSignature> signatures(in.count(kIdBytes + kEd25519SignatureBytes));
  for (auto& s : signatures) {
    s.id = in.u32();
    in.bytes(s.signature);
  }
  in.finish();
  check_increasing_ids(signatures, "peer signatures");
  return signatures;
}

Bytes encode_unmask_shares(const std::vector<OwnedShare>& shares) {
  Writer out;
  out.u8(static_cast<uint8_t>(Tag::unmask_shares));
  out.u32(static_cast<uint32_t>(shares.size()));
  for (const auto& s : shares) {
    out.u32(s.owner);
    write_share(out, s.share);
  }
  return out.take();
}

std::vector<OwnedShare> decode_unmask_shares(std::span<const uint8_t> message, uint32_t holder) {
  Reader in(message, "unmask shares");
  expect_tag(in, Tag::unmask_shares, "unmask shares");
  std::vector<OwnedShare> shares(in.count(kIdBytes + kShareBytes));
  std::vector<uint32_t> owners;
  for (auto& s : shares) {
    s.owner = in.u32();
    s.share = read_share(in, holder);
    owners.push_back(s.owner);
  }
  in.finish();
  check_increasing(owners, "unmask shares");
  return shares;
}

}  // namespace edgetrain::privacy::secagg
