// IDX reading (big-endian header, uint8 payload) through zlib's gzread, which also reads
// uncompressed files as they are (a gzipped file whole through libdeflate first: three times zlib's speed,
// a fifth of a real run's start-up), and the seeded synthetic generator.
#include "learn/dataset.hpp"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <utility>

#include "util/read_input.hpp"
#include "util/seed.hpp"

namespace edgetrain::learn {

const std::filesystem::path& regular_data_file(const std::filesystem::path& file) {
  util::check_regular_input_as<DataError>(file, util::kDataFileInput);
  return file;
}

int64_t classes_of_top_label(int64_t top, const std::string& where) {
  if (top >= kMaxClasses)
    throw DataError("dataset: " + where + " has label " + std::to_string(top) + ": labels are 0 to " +
                    std::to_string(kMaxClasses - 1));
  return top + 1;
}

namespace {

namespace fs = std::filesystem;

// The IDX datasets read here (MNIST, Fashion-MNIST) have ten classes, labelled 0-9.
constexpr int64_t kIdxClasses = 10;
constexpr uint32_t kImagesMagic = 0x803, kLabelsMagic = 0x801;  // uint8 data, 3 and 1 dimensions

// Finds `stem` or `stem.gz` in dir.
fs::path find_idx(const fs::path& dir, const std::string& stem) {
  for (const auto& candidate : {dir / stem, dir / (stem + ".gz")}) {
    if (fs::is_regular_file(candidate)) return candidate;
  }
  throw DataError("dataset: " + (dir / stem).string() + "[.gz] not found");
}

// An open IDX file (gzread also reads uncompressed files as they are) and its checked header.
class IdxReader {
 public:
  IdxReader(const fs::path& path, uint32_t expected_magic)
      : path_(path), file_(gzopen(regular_data_file(path).c_str(), "rb"), gzclose) {
    if (!file_) throw DataError("dataset: cannot open " + path.string());
    const uint32_t magic = read_be32();
    if (magic != expected_magic) {
      throw error("has IDX magic " + hex(magic) + ", expected " + hex(expected_magic) + " (" +
                  (expected_magic == kImagesMagic ? "uint8 images" : "uint8 labels") + ")");
    }
    for (uint32_t i = 0; i < (magic & 0xff); ++i) dims_.push_back(read_be32());
    for (size_t i = 0; i < dims_.size(); ++i) {
      if (dims_[i] == 0) throw error("IDX header has dimension " + std::to_string(i) + " = 0 (" + shape() + ")");
    }
  }

  const std::vector<uint32_t>& dims() const { return dims_; }
  uint64_t count() const { return dims_[0]; }
  uint64_t item_bytes() const {  // at most 2^64: two uint32 dimensions
    uint64_t n = 1;
    for (size_t i = 1; i < dims_.size(); ++i) n *= dims_[i];
    return n;
  }
  std::string shape() const {
    std::string s;
    for (uint32_t d : dims_) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s;
  }
  const fs::path& path() const { return path_; }
  // What reading holds at the run's peak beside the items kept, from the file's size: decompressed whole, the
  // compressed bytes (the whole content becomes the items, or the kept ones are copied out of it; that copy
  // happens while LibTorch loads on a thread of its own, below the run's peak: tests/mpi/memory_test.py);
  // read as it comes, a chunk (the items' buffer is reserved at their size).
  uint64_t read_overhead_hint() const { return whole_length() ? fs::file_size(path_) : kChunkBytes; }
  // How many items the file can hold, from its size without reading it: the data length of an
  // uncompressed file, or gzip's trailer (the uncompressed length modulo 2^32, at most deflate's 1032:1). A
  // hint for estimates only: read_items checks the real length.
  uint64_t count_hint() const {
    const uint64_t header = 4 * (1 + dims_.size());
    const uint64_t length = length_hint();
    return length > header ? std::min(count(), (length - header) / item_bytes()) : 0;
  }
  DataError error(const std::string& what) const { return DataError("dataset: " + path_.string() + " " + what); }

  // The first `keep` items. The header is never trusted for allocation: data is read in chunks
  // and kept as it comes, and the rest of the file is read (not kept) to check that it holds
  // exactly the claimed count x item bytes, gzipped or not.
  std::vector<uint8_t> read_items(uint64_t keep) {
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    const uint64_t keep_bytes = keep > max / item_bytes() ? max : keep * item_bytes();  // an upper bound, not a size
    std::vector<uint8_t> data;
    uint64_t total = 0;
    if (std::optional<std::vector<uint8_t>> whole = decompressed_whole()) {
      const uint64_t header = std::min<uint64_t>(4 * (1 + dims_.size()), whole->size());
      total = whole->size() - header;
      check_length(total);
      if (keep_bytes < total)  // the kept items alone: the whole content's buffer goes
        return std::vector<uint8_t>(whole->begin() + static_cast<std::ptrdiff_t>(header),
                                    whole->begin() + static_cast<std::ptrdiff_t>(header + keep_bytes));
      // Every item: in place of the whole content, its header dropped (no second copy).
      whole->erase(whole->begin(), whole->begin() + static_cast<std::ptrdiff_t>(header));
      return std::move(*whole);
    }
    data.reserve(std::min(keep_bytes, length_hint()));  // what the memory estimate counted: no growth by doubling
    std::vector<char> chunk(kChunkBytes);
    while (true) {
      const int got = gzread(file_.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
      if (got < 0) throw error("is not a readable IDX file (corrupt gzip data?)");
      if (got == 0) break;
      const uint64_t n = static_cast<uint64_t>(got);
      if (total < keep_bytes) {
        const uint64_t take = std::min(n, keep_bytes - total);
        data.insert(data.end(), chunk.data(), chunk.data() + take);
      }
      total += n;
    }
    check_length(total);
    return data;
  }

 private:
  // count x item bytes, compared without overflow: the header claims up to 2^96 bytes.
  void check_length(uint64_t total) const {
    const bool exact = total % item_bytes() == 0 && total / item_bytes() == count();
    if (!exact) {
      throw error("holds " + std::to_string(total) + " bytes of data, but its header (" + shape() + ") claims " +
                  std::to_string(count()) + " items of " + std::to_string(item_bytes()) + " bytes");
    }
  }
  static constexpr uint64_t kChunkBytes = 1 << 20;  // what gzread reads at a time

  // The file's data length: its size, or its gzip trailer's length (at most deflate's 1032:1).
  uint64_t length_hint() const {
    const uint64_t size = fs::file_size(path_);
    return gzdirect(file_.get()) ? size : std::min(gzip_trailer_length(), 1032 * size);
  }
  // The uncompressed length in a gzip file's trailer (modulo 2^32).
  uint64_t gzip_trailer_length() const {
    std::ifstream in(path_, std::ios::binary);
    std::array<unsigned char, 4> b{};
    in.seekg(-4, std::ios::end);
    in.read(reinterpret_cast<char*>(b.data()), 4);
    return uint64_t{b[0]} | (uint64_t{b[1]} << 8) | (uint64_t{b[2]} << 16) | (uint64_t{b[3]} << 24);
  }
  // The length decompressed_whole would make of a gzipped file: nothing when the file is not gzipped or its
  // trailer's length is implausible (more than deflate's 1032:1 or 1 GiB).
  std::optional<uint64_t> whole_length() const {
    constexpr uint64_t kMaxWhole = uint64_t{1} << 30;
    if (gzdirect(file_.get())) return std::nullopt;
    std::error_code ec;
    const uint64_t size = fs::file_size(path_, ec);
    if (ec || size < 18 || size > kMaxWhole) return std::nullopt;
    const uint64_t length = gzip_trailer_length();
    if (length > kMaxWhole || length > 1032 * size) return std::nullopt;
    return length;
  }
  // A single-member gzip file's whole content (header included), decompressed at once by libdeflate; nothing
  // when whole_length() says no, or the file holds more than one member or its trailer's length is not its
  // length: gzread's stream then reads it, and says what is wrong.
  std::optional<std::vector<uint8_t>> decompressed_whole() const {
    const std::optional<uint64_t> length = whole_length();
    if (!length) return std::nullopt;
    const uint64_t size = fs::file_size(path_);
    std::vector<uint8_t> in(size);
    std::ifstream file(path_, std::ios::binary);
    if (!file.read(reinterpret_cast<char*>(in.data()), static_cast<std::streamsize>(size))) return std::nullopt;
    std::vector<uint8_t> out(*length);
    const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> d(
        libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
    size_t used = 0, made = 0;
    if (!d || libdeflate_gzip_decompress_ex(d.get(), in.data(), in.size(), out.data(), out.size(), &used, &made) !=
                  LIBDEFLATE_SUCCESS ||
        used != in.size() || made != out.size())
      return std::nullopt;
    return out;
  }

  uint32_t read_be32() {
    std::array<unsigned char, 4> b{};
    if (gzread(file_.get(), b.data(), 4) != 4) throw error("is truncated or not an IDX file (short header)");
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  }
  static std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
  }

  fs::path path_;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file_;
  std::vector<uint32_t> dims_;
};

// One split's two files, headers read and checked against each other.
struct Split {
  IdxReader images, labels;
};

Split open_split(const fs::path& dir, const std::string& prefix) {
  Split s{IdxReader(find_idx(dir, prefix + "-images-idx3-ubyte"), kImagesMagic),
          IdxReader(find_idx(dir, prefix + "-labels-idx1-ubyte"), kLabelsMagic)};
  if (s.images.count() != s.labels.count()) {
    throw DataError("dataset: " + s.images.path().string() + " holds " + std::to_string(s.images.count()) +
                    " images but " + s.labels.path().string() + " " + std::to_string(s.labels.count()) + " labels");
  }
  return s;
}

uint64_t kept(const IdxReader& images, int64_t limit) {
  return limit > 0 ? std::min<uint64_t>(images.count(), static_cast<uint64_t>(limit)) : images.count();
}

// Reads the first `limit` samples of a split (0 = all). Every label of the file must be a class
// (0-9), used or not: a file with others is not the dataset it claims to be.
Dataset read_split(Split& split, int64_t limit) {
  const uint64_t keep = kept(split.images, limit);
  std::vector<uint8_t> pixels = split.images.read_items(keep);
  std::vector<uint8_t> label_bytes = split.labels.read_items(split.labels.count());  // one byte each: small
  for (size_t i = 0; i < label_bytes.size(); ++i) {
    if (label_bytes[i] >= kIdxClasses) {
      throw split.labels.error("has label " + std::to_string(label_bytes[i]) + " at index " + std::to_string(i) +
                               ", outside 0-" + std::to_string(kIdxClasses - 1));
    }
  }
  Dataset d;
  d.channels = 1;
  d.height = split.images.dims()[1];
  d.width = split.images.dims()[2];
  d.classes = kIdxClasses;
  d.raw_sample_bytes = d.height * d.width;
  d.codes = std::move(pixels);  // the value of a code is set by standardise()
  d.labels.assign(label_bytes.begin(), label_bytes.begin() + static_cast<std::ptrdiff_t>(keep));
  return d;
}

// Both splits' headers, checked before any data is read: test images have the training shape.
std::pair<Split, Split> open_splits(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw DataError("dataset: " + dir.string() + " is not a directory");
  std::pair<Split, Split> splits{open_split(dir, "train"), open_split(dir, "t10k")};
  const IdxReader &train = splits.first.images, &test = splits.second.images;
  if (train.dims()[1] != test.dims()[1] || train.dims()[2] != test.dims()[2]) {
    throw DataError("dataset: " + test.path().string() + " holds " + test.shape() + " images but " +
                    train.path().string() + " " + train.shape() + ": the image sizes differ");
  }
  return splits;
}

}  // namespace

void standardise(DatasetPair& pair) {
  if (pair.train.tokens) return;
  if (!pair.train.codes.empty()) {
    // Pixels scale to [0, 1] (p / 255 in fp32), then standardise; each of the 256 codes gets the
    // value each of its pixels would get, so nothing is stored per pixel but its byte.
    std::array<float, 256> scaled;
    for (size_t p = 0; p < scaled.size(); ++p) scaled[p] = static_cast<float>(p) / 255.0f;
    double sum = 0, sum_sq = 0;
    for (uint8_t c : pair.train.codes) {
      const float v = scaled[c];
      sum += v;
      sum_sq += double{v} * v;
    }
    const double n = static_cast<double>(pair.train.codes.size());
    const double mean = sum / n;
    const double std_dev = std::sqrt(std::max(sum_sq / n - mean * mean, 1e-12));
    for (Dataset* d : {&pair.train, &pair.test}) {
      for (size_t p = 0; p < scaled.size(); ++p) d->code_values[p] = static_cast<float>((scaled[p] - mean) / std_dev);
    }
    return;
  }
  double sum = 0, sum_sq = 0;
  for (float v : pair.train.features) {
    sum += v;
    sum_sq += double{v} * v;
  }
  const double n = std::max<double>(1, static_cast<double>(pair.train.features.size()));
  const double mean = sum / n;
  const double std_dev = std::sqrt(std::max(sum_sq / n - mean * mean, 1e-12));
  for (Dataset* d : {&pair.train, &pair.test}) {
    for (float& v : d->features) v = static_cast<float>((v - mean) / std_dev);
  }
}

void finish_dataset(DatasetPair& pair, int64_t classes, const std::string& where_train, const std::string& where_test) {
  if (classes <= 0) {
    int64_t top = 1;
    for (const auto& [d, where] : {std::pair{&pair.train, &where_train}, std::pair{&pair.test, &where_test}}) {
      for (int64_t l : d->labels) top = std::max(top, l);
      classes = classes_of_top_label(top, *where);
    }
  }
  for (const auto& [d, where] : {std::pair{&pair.train, &where_train}, std::pair{&pair.test, &where_test}}) {
    for (size_t i = 0; i < d->labels.size(); ++i) {
      const int64_t l = d->labels[i];
      if (l < 0 || l >= classes) {
        throw DataError("dataset: " + *where + " has label " + std::to_string(l) + " at sample " + std::to_string(i) +
                        ", outside 0-" + std::to_string(classes - 1) +
                        (l < 0 ? "" : " (dataset.classes = " + std::to_string(classes) + ")"));
      }
    }
    d->classes = classes;
  }
  standardise(pair);
}

DatasetPair load_idx_dataset(const fs::path& dir, int64_t train_limit, int64_t test_limit) {
  auto [train, test] = open_splits(dir);
  DatasetPair pair{read_split(train, train_limit), read_split(test, test_limit)};
  standardise(pair);
  return pair;
}

DatasetShape idx_dataset_shape(const fs::path& dir, int64_t train_limit, int64_t test_limit) {
  auto [train, test] = open_splits(dir);
  DatasetShape shape;
  shape.train_samples = static_cast<int64_t>(std::min(kept(train.images, train_limit), train.images.count_hint()));
  shape.test_samples = static_cast<int64_t>(std::min(kept(test.images, test_limit), test.images.count_hint()));
  shape.channels = 1;
  shape.height = train.images.dims()[1];
  shape.width = train.images.dims()[2];
  shape.classes = kIdxClasses;
  // What reading holds beside the codes kept: the splits are read one after the other, images then labels.
  shape.read_bytes = static_cast<double>(
      std::max(train.images.read_overhead_hint(), test.images.read_overhead_hint()));
  return shape;
}

void Dataset::copy_sample(int64_t index, float* out) const {
  const auto s = static_cast<size_t>(sample_size());
  const auto at = static_cast<size_t>(index) * s;
  if (codes.empty()) {
    std::copy_n(features.data() + at, s, out);
  } else {
    for (size_t k = 0; k < s; ++k) out[k] = code_values[codes[at + k]];
  }
}

Dataset subset(const Dataset& data, const std::vector<int64_t>& indices) {
  Dataset out = data;
  out.features.clear();
  out.codes.clear();
  out.labels.clear();
  out.sample_users.clear();
  const auto size = static_cast<size_t>(data.sample_size());
  for (int64_t i : indices) {
    const auto from = static_cast<size_t>(i) * size;
    if (data.codes.empty()) {
      out.features.insert(out.features.end(), data.features.begin() + from, data.features.begin() + from + size);
    } else {
      out.codes.insert(out.codes.end(), data.codes.begin() + from, data.codes.begin() + from + size);
    }
    out.labels.push_back(data.labels[static_cast<size_t>(i)]);
  }
  return out;
}

std::vector<float> Dataset::values() const {
  if (codes.empty()) return features;
  std::vector<float> out(codes.size());
  for (size_t k = 0; k < codes.size(); ++k) out[k] = code_values[codes[k]];
  return out;
}

DatasetShape synthetic_shape(const SyntheticSpec& spec) {
  DatasetShape s;
  s.train_samples = spec.train_samples;
  s.test_samples = spec.test_samples;
  s.channels = spec.channels;
  s.height = spec.height;
  s.width = spec.width;
  s.classes = spec.classes;
  s.value_bytes = sizeof(float);
  s.read_bytes = static_cast<double>(spec.classes * s.sample_floats()) * sizeof(double);  // the class centres
  return s;
}

std::vector<int64_t> user_counts(const std::vector<int64_t>& sample_users) {
  std::vector<int64_t> counts;
  for (int64_t u : sample_users) {
    if (static_cast<size_t>(u) >= counts.size()) counts.resize(static_cast<size_t>(u) + 1, 0);
    counts[static_cast<size_t>(u)] += 1;
  }
  return counts;
}

DatasetShape shape_of(const DatasetPair& data) {
  const Dataset& t = data.train;
  DatasetShape s;
  s.train_samples = t.size();
  s.test_samples = data.test.size();
  s.channels = t.channels;
  s.height = t.height;
  s.width = t.width;
  s.classes = t.classes;
  s.value_bytes = t.codes.empty() ? sizeof(float) : 1;
  if (!t.sample_users.empty()) {
    for (int64_t u : t.sample_users) {
      if (static_cast<size_t>(u) >= s.user_samples.size()) s.user_samples.resize(static_cast<size_t>(u) + 1);
      ++s.user_samples[static_cast<size_t>(u)];
    }
  }
  return s;
}

DatasetPair make_synthetic_dataset(const SyntheticSpec& spec) {
  const int64_t dims = spec.channels * spec.height * spec.width;
  // Centres of norm about 3 whatever the dimension: neighbouring classes are about four
  // noise units apart, so a model must learn for a while to separate them.
  std::mt19937_64 rng(util::derive_seed(spec.seed, "synthetic-centres"));
  std::normal_distribution<double> normal(0.0, 1.0);
  const double scale = 3.0 / std::sqrt(static_cast<double>(dims));
  std::vector<double> centres(static_cast<size_t>(spec.classes * dims));
  for (double& c : centres) c = normal(rng) * scale;

  auto make = [&](int64_t n, std::string_view purpose) {
    Dataset d;
    d.channels = spec.channels;
    d.height = spec.height;
    d.width = spec.width;
    d.classes = spec.classes;
    d.raw_sample_bytes = dims * static_cast<int64_t>(sizeof(float));
    d.features.resize(static_cast<size_t>(n * dims));
    d.labels.resize(static_cast<size_t>(n));
    std::mt19937_64 r(util::derive_seed(spec.seed, purpose));
    for (int64_t i = 0; i < n; ++i) {
      const int64_t label = i % spec.classes;  // balanced classes
      d.labels[static_cast<size_t>(i)] = label;
      for (int64_t j = 0; j < dims; ++j) {
        const double v = centres[static_cast<size_t>(label * dims + j)] + spec.noise * normal(r);
        d.features[static_cast<size_t>(i * dims + j)] = static_cast<float>(v);
      }
    }
    return d;
  };
  return {make(spec.train_samples, "synthetic-train"), make(spec.test_samples, "synthetic-test")};
}

}  // namespace edgetrain::learn
