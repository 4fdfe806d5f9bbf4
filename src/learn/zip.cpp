// See zip.hpp. Little-endian fields read byte by byte; a member's data starts after its local
// header, whose name and extra lengths may differ from the central directory's.
#include "learn/zip.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>

#include "learn/dataset.hpp"
#include "util/printable.hpp"

namespace edgetrain::learn {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;
constexpr uint32_t kDirectoryEntry = 0x02014b50, kLocalHeader = 0x04034b50;
constexpr uint32_t kFar = 0xffffffff;  // a 32-bit field whose value is in the ZIP64 extra field
constexpr size_t kChunk = size_t{1} << 20;

uint64_t le(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

ZipArchive::ZipArchive(const std::filesystem::path& path) : path_(path), in_(regular_data_file(path), std::ios::binary) {
  auto bad = [&](const std::string& what) { return DataError("dataset: " + path_.string() + " " + what); };
  if (!in_) throw DataError("dataset: cannot open " + path_.string());
  const uint64_t size = std::filesystem::file_size(path_);
  // The end-of-directory record: its last 22 bytes plus a comment of up to 65535.
  const uint64_t tail_size = std::min<uint64_t>(size, 22 + 65535);
  std::vector<unsigned char> tail(tail_size);
  in_.seekg(static_cast<std::streamoff>(size - tail_size));
  in_.read(reinterpret_cast<char*>(tail.data()), static_cast<std::streamsize>(tail_size));
  int64_t at = static_cast<int64_t>(tail_size) - 22;
  while (at >= 0 && le(&tail[at], 4) != kEndOfDirectory) --at;
  if (at < 0) throw bad("is not a zip archive (no end of central directory: truncated?)");
  uint64_t entries = le(&tail[at + 10], 2), directory_size = le(&tail[at + 12], 4),
           directory_offset = le(&tail[at + 16], 4);
  if (entries == 0xffff || directory_offset == kFar || directory_size == kFar) {
    // ZIP64: the locator just before points to the 64-bit end record.
    const uint64_t locator = size - tail_size + static_cast<uint64_t>(at) - 20;
    std::array<unsigned char, 56> b{};
    in_.seekg(static_cast<std::streamoff>(locator));
    in_.read(reinterpret_cast<char*>(b.data()), 20);
    if (!in_ || le(b.data(), 4) != kZip64Locator) throw bad("has a damaged ZIP64 end of central directory");
    in_.seekg(static_cast<std::streamoff>(le(&b[8], 8)));
    in_.read(reinterpret_cast<char*>(b.data()), 56);
    if (!in_ || le(b.data(), 4) != kZip64End) throw bad("has a damaged ZIP64 end of central directory");
    entries = le(&b[32], 8);
    directory_size = le(&b[40], 8);
    directory_offset = le(&b[48], 8);
  }
  if (directory_offset > size || directory_size > size - directory_offset) {
    throw bad("has a central directory beyond its end (truncated?)");
  }
  std::vector<unsigned char> dir(directory_size);
  in_.seekg(static_cast<std::streamoff>(directory_offset));
  in_.read(reinterpret_cast<char*>(dir.data()), static_cast<std::streamsize>(directory_size));
  if (!in_) throw bad("is truncated (central directory)");
  size_t p = 0;
  for (uint64_t e = 0; e < entries; ++e) {
    if (p + 46 > dir.size() || le(&dir[p], 4) != kDirectoryEntry) throw bad("has a damaged central directory");
    ZipMember m;
    m.method = static_cast<uint16_t>(le(&dir[p + 10], 2));
    m.compressed = le(&dir[p + 20], 4);
    m.uncompressed = le(&dir[p + 24], 4);
    const size_t name_len = le(&dir[p + 28], 2), extra_len = le(&dir[p + 30], 2), comment_len = le(&dir[p + 32], 2);
    m.header_offset = le(&dir[p + 42], 4);
    if (p + 46 + name_len + extra_len + comment_len > dir.size()) throw bad("has a damaged central directory");
    m.name.assign(reinterpret_cast<const char*>(&dir[p + 46]), name_len);
    // ZIP64 extra field (id 1): the 64-bit values of the fields set to 0xffffffff, in this order.
    for (size_t x = p + 46 + name_len; x + 4 <= p + 46 + name_len + extra_len;) {
      const uint64_t id = le(&dir[x], 2), len = le(&dir[x + 2], 2);
      size_t v = x + 4;
      if (id == 1) {
        for (uint64_t* field : {&m.uncompressed, &m.compressed, &m.header_offset}) {
          if (*field == kFar && v + 8 <= x + 4 + len) {
            *field = le(&dir[v], 8);
            v += 8;
          }
        }
      }
      x += 4 + len;
    }
    members_.push_back(std::move(m));
    p += 46 + name_len + extra_len + comment_len;
  }
}

const ZipMember& ZipArchive::member(const std::string& name) const {
  for (const ZipMember& m : members_) {
    if (m.name == name) return m;
  }
  // The archive's own names, escaped (one line) and at most ten of them.
  std::string there;
  for (size_t i = 0; i < members_.size() && i < 10; ++i) there += (i ? ", " : "") + util::printable(members_[i].name);
  if (members_.size() > 10) there += " and " + std::to_string(members_.size() - 10) + " more";
  throw DataError("dataset: " + util::printable(path_.string()) + " has no array " + name +
                  " (it holds: " + (there.empty() ? "nothing" : there) + ")");
}

void ZipArchive::read(const ZipMember& m, const std::function<bool(const char*, size_t)>& sink) {
  auto bad = [&](const std::string& what) {
    return DataError("dataset: " + path_.string() + ": " + m.name + " " + what);
  };
  if (m.method != 0 && m.method != 8) {
    throw bad("uses zip compression method " + std::to_string(m.method) + " (only stored and deflated are read)");
  }
  std::array<unsigned char, 30> local{};
  in_.clear();
  in_.seekg(static_cast<std::streamoff>(m.header_offset));
  in_.read(reinterpret_cast<char*>(local.data()), 30);
  if (!in_ || le(local.data(), 4) != kLocalHeader) throw bad("has a damaged local header (truncated archive?)");
  in_.seekg(static_cast<std::streamoff>(m.header_offset + 30 + le(&local[26], 2) + le(&local[28], 2)));
  std::vector<char> chunk(kChunk), out(m.method == 8 ? kChunk : 0);
  uint64_t left = m.compressed;
  std::unique_ptr<z_stream, void (*)(z_stream*)> z(new z_stream{}, [](z_stream* s) {
    inflateEnd(s);
    delete s;
  });
  if (m.method == 8 && inflateInit2(z.get(), -MAX_WBITS) != Z_OK) throw bad("cannot be inflated");
  bool ended = false;
  while (left > 0 && !ended) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(left, chunk.size()));
    in_.read(chunk.data(), static_cast<std::streamsize>(want));
    const auto got = static_cast<size_t>(in_.gcount());
    if (got == 0) break;
    left -= got;
    if (m.method == 0) {
      if (!sink(chunk.data(), got)) return;
      continue;
    }
    z->next_in = reinterpret_cast<Bytef*>(chunk.data());
    z->avail_in = static_cast<uInt>(got);
    do {  // until the input is used and the output was not cut by a full buffer
      z->next_out = reinterpret_cast<Bytef*>(out.data());
      z->avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(z.get(), Z_NO_FLUSH);
      if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) throw bad("holds corrupt deflated data");
      const size_t produced = out.size() - z->avail_out;
      if (produced > 0 && !sink(out.data(), produced)) return;
      ended = rc == Z_STREAM_END;
      if (rc == Z_BUF_ERROR && produced == 0) break;
    } while ((z->avail_in > 0 || z->avail_out == 0) && !ended);
  }
  if (left > 0 || (m.method == 8 && !ended)) {
    throw bad("is cut short: the archive ends " + std::to_string(left) + " bytes before the member's end");
  }
}

}  // namespace edgetrain::learn
