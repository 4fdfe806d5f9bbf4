// Small data files written byte by byte for the loaders' tests: .npy arrays, zip archives (stored
// or deflated, as numpy.savez and savez_compressed write them), and scratch folders.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace fixtures {

namespace fs = std::filesystem;

inline fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-data-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

inline std::string le(uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// An .npy array: `descr` ('|u1', '<f4', '<i8'...), its shape, and its data as bytes.
inline std::string npy(const std::string& descr, const std::vector<int64_t>& shape, const std::string& data) {
  std::string dims;
  for (int64_t d : shape) dims += std::to_string(d) + ", ";
  if (shape.size() > 1) dims.resize(dims.size() - 2);
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  return std::string("\x93NUMPY\x01\x00", 8) + le(dict.size(), 2) + dict + data;
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  std::string s(v.size() * sizeof(T), '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());
  return s;
}

inline std::string raw_deflate(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 16, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A zip archive of `members` (name, bytes), stored or deflated; with `zip64`, the central
// directory keeps its sizes and offsets in ZIP64 extra fields and a ZIP64 end record (as zip tools
// write archives past 4 GiB).
inline std::string zip(const std::vector<std::pair<std::string, std::string>>& members, bool deflated = false,
                       bool zip64 = false) {
  std::string body, directory;
  for (const auto& [name, data] : members) {
    const uint32_t crc =
        static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    const std::string stored = deflated ? raw_deflate(data) : data;
    const uint16_t method = deflated ? 8 : 0;
    const std::string head = le(20, 2) + le(0, 2) + le(method, 2) + le(0, 2) + le(0, 2) + le(crc, 4);
    const std::string sizes = le(stored.size(), 4) + le(data.size(), 4) + le(name.size(), 2);
    const std::string far = le(0xffffffff, 4) + le(0xffffffff, 4) + le(name.size(), 2);
    const std::string extra = le(1, 2) + le(24, 2) + le(data.size(), 8) + le(stored.size(), 8) + le(body.size(), 8);
    directory += le(0x02014b50, 4) + le(45, 2) + head + (zip64 ? far + le(extra.size(), 2) : sizes + le(0, 2)) +
                 le(0, 2) + le(0, 2) + le(0, 2) + le(0, 4) + (zip64 ? le(0xffffffff, 4) : le(body.size(), 4)) + name +
                 (zip64 ? extra : "");
    body += le(0x04034b50, 4) + head + sizes + le(0, 2) + name + stored;
  }
  std::string end;
  if (zip64) {
    const uint64_t record = body.size() + directory.size();
    end += le(0x06064b50, 4) + le(44, 8) + le(45, 2) + le(45, 2) + le(0, 4) + le(0, 4) + le(members.size(), 8) +
           le(members.size(), 8) + le(directory.size(), 8) + le(body.size(), 8);
    end += le(0x07064b50, 4) + le(0, 4) + le(record, 8) + le(1, 4);
    return body + directory + end + le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(0xffff, 2) + le(0xffff, 2) +
           le(0xffffffff, 4) + le(0xffffffff, 4) + le(0, 2);
  }
  return body + directory + le(0x06054b50, 4) + le(0, 2) + le(0, 2) + le(members.size(), 2) +
         le(members.size(), 2) + le(directory.size(), 4) + le(body.size(), 4) + le(0, 2);
}

}  // namespace fixtures
