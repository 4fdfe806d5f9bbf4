// IDX reading (big-endian header, uint8 payload) through zlib's gzread, which also reads
// uncompressed files as they are, and the seeded synthetic generator.
#include "learn/dataset.hpp"

#include <zlib.h>

#include <array>
#include <cmath>
#include <memory>
#include <random>

#include "util/seed.hpp"

namespace edgetrain::learn {
namespace {

namespace fs = std::filesystem;

// Finds `stem` or `stem.gz` in dir.
fs::path find_idx(const fs::path& dir, const std::string& stem) {
  for (const auto& candidate : {dir / stem, dir / (stem + ".gz")}) {
    if (fs::is_regular_file(candidate)) return candidate;
  }
  throw DataError("dataset: " + (dir / stem).string() + "[.gz] not found");
}

struct IdxFile {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};

IdxFile read_idx(const fs::path& path, uint32_t expected_magic, int64_t limit) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw DataError("dataset: cannot open " + path.string());
  auto read_exact = [&](void* dst, size_t n) {
    size_t done = 0;
    while (done < n) {
      const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
      const int got = gzread(file.get(), static_cast<char*>(dst) + done, chunk);
      if (got <= 0) throw DataError("dataset: " + path.string() + " is truncated or not an IDX file");
      done += static_cast<size_t>(got);
    }
  };
  auto read_be32 = [&] {
    std::array<unsigned char, 4> b{};
    read_exact(b.data(), 4);
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
  };
  const uint32_t magic = read_be32();
  if (magic != expected_magic) {
    throw DataError("dataset: " + path.string() + " has IDX magic " + std::to_string(magic) + ", expected " +
                    std::to_string(expected_magic));
  }
  IdxFile idx;
  for (uint32_t i = 0; i < (magic & 0xff); ++i) idx.dims.push_back(read_be32());
  if (limit > 0 && idx.dims[0] > limit) idx.dims[0] = static_cast<uint32_t>(limit);
  size_t total = 1;
  for (uint32_t d : idx.dims) total *= d;
  idx.data.resize(total);
  read_exact(idx.data.data(), total);
  return idx;
}

Dataset read_split(const fs::path& dir, const std::string& prefix, int64_t limit) {
  const IdxFile images = read_idx(find_idx(dir, prefix + "-images-idx3-ubyte"), 0x803, limit);
  const IdxFile labels = read_idx(find_idx(dir, prefix + "-labels-idx1-ubyte"), 0x801, limit);
  if (images.dims[0] != labels.dims[0]) {
    throw DataError("dataset: " + dir.string() + ": " + prefix + " images and labels differ in count");
  }
  Dataset d;
  d.channels = 1;
  d.height = images.dims[1];
  d.width = images.dims[2];
  d.raw_sample_bytes = d.height * d.width;
  d.features.resize(images.data.size());
  for (size_t i = 0; i < images.data.size(); ++i) d.features[i] = images.data[i] / 255.0f;
  d.labels.assign(labels.data.begin(), labels.data.end());
  int64_t max_label = 0;
  for (int64_t l : d.labels) max_label = std::max(max_label, l);
  d.classes = std::max<int64_t>(10, max_label + 1);
  return d;
}

// Standardises both splits with the training set's statistics (computed in double, in a
// fixed order, so the result is the same on every run).
void standardise(DatasetPair& pair) {
  double sum = 0, sum_sq = 0;
  for (float v : pair.train.features) {
    sum += v;
    sum_sq += double{v} * v;
  }
  const double n = static_cast<double>(pair.train.features.size());
  const double mean = sum / n;
  const double std_dev = std::sqrt(std::max(sum_sq / n - mean * mean, 1e-12));
  for (Dataset* d : {&pair.train, &pair.test}) {
    for (float& v : d->features) v = static_cast<float>((v - mean) / std_dev);
  }
}

}  // namespace

DatasetPair load_idx_dataset(const fs::path& dir, int64_t train_limit, int64_t test_limit) {
  if (!fs::is_directory(dir)) throw DataError("dataset: " + dir.string() + " is not a directory");
  DatasetPair pair{read_split(dir, "train", train_limit), read_split(dir, "t10k", test_limit)};
  if (pair.train.size() == 0) throw DataError("dataset: " + dir.string() + " holds no training samples");
  standardise(pair);
  return pair;
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
