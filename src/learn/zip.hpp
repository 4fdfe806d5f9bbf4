// Reading the members of a zip archive (what numpy.savez writes): the central directory, ZIP64
// included, and each member's bytes, stored or deflated (zlib), streamed in chunks so that no size
// written in the archive is trusted for an allocation. No LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace edgetrain::learn {

struct ZipMember {
  std::string name;
  uint16_t method = 0;  // 0 stored, 8 deflated
  uint64_t compressed = 0, uncompressed = 0, header_offset = 0;
};

class ZipArchive {
 public:
  // Reads the central directory; throws DataError naming the file when it is not a zip archive.
  explicit ZipArchive(const std::filesystem::path& path);
  const std::vector<ZipMember>& members() const { return members_; }
  const std::filesystem::path& path() const { return path_; }
  // The member called `name`, or DataError listing the members there are.
  const ZipMember& member(const std::string& name) const;
  // Passes the member's uncompressed bytes to `sink` in chunks until the member ends or `sink`
  // returns false. Throws DataError when the data is cut short or corrupt.
  void read(const ZipMember& m, const std::function<bool(const char*, size_t)>& sink);

 private:
  std::filesystem::path path_;
  std::ifstream in_;
  std::vector<ZipMember> members_;
};

}  // namespace edgetrain::learn
