// See npz.hpp. An .npy member is a magic string, a version, the length of a Python dict literal
// ({'descr': '<f4', 'fortran_order': False, 'shape': (60000, 28, 28), }) and the C-ordered data.
#include "learn/npz.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <tuple>

#include "learn/zip.hpp"
#include "util/printable.hpp"

namespace edgetrain::learn {
namespace {

static_assert(std::endian::native == std::endian::little, "npz arrays are read as little-endian");

constexpr int64_t kMaxSampleValues = int64_t{1} << 24;  // as dataset.shape: 64 MiB of fp32 per sample
constexpr int kMaxUserChars = 256;                       // a users array's strings, '<U256' at most
// A dimension has at most 12 digits: with 2^24 values of 8 bytes a sample, an array's bytes can still
// pass 2^64, so byte counts are computed in 128 bits.
using Bytes128 = unsigned __int128;

// One array's header, checked: its dtype, its shape, and what one sample (the first axis) holds.
struct NpyHeader {
  std::string where;  // "file: name", for messages
  char kind = 0;      // 'u', 'i', 'f'; 'U' for NumPy's fixed-width unicode (UTF-32) strings
  int bytes = 0;      // of each value (a 'U' string: 4 per character)
  std::vector<int64_t> shape;
  int64_t count() const { return shape.at(0); }
  int64_t item_values() const {
    int64_t n = 1;
    for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
    return n;
  }
  std::string dtype() const { return std::string(1, kind) + std::to_string(kind == 'U' ? bytes / 4 : bytes); }
  std::string shape_text() const {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "(" : ", ") + std::to_string(d);
    return s + (shape.size() == 1 ? ",)" : ")");
  }
  DataError error(const std::string& what) const { return DataError("dataset: " + where + " " + what); }
};

// The value of `key` in the header's dict literal, as written (a quoted string, a word or a tuple).
std::string dict_value(const std::string& dict, const std::string& key, const std::string& where) {
  const auto k = dict.find("'" + key + "'");
  const auto colon = k == std::string::npos ? k : dict.find(':', k);
  if (colon == std::string::npos) throw DataError("dataset: " + where + " has no '" + key + "' in its .npy header");
  size_t b = dict.find_first_not_of(' ', colon + 1), e = b;
  if (b == std::string::npos) throw DataError("dataset: " + where + " has a damaged .npy header");
  if (dict[b] == '\'') {
    e = dict.find('\'', b + 1);
    return e == std::string::npos ? "" : dict.substr(b + 1, e - b - 1);
  }
  e = dict.find(dict[b] == '(' ? ')' : ',', b);
  return e == std::string::npos ? "" : dict.substr(b, e - b + (dict[b] == '(' ? 1 : 0));
}

NpyHeader parse_header(const std::string& dict, const std::string& where) {
  NpyHeader h;
  h.where = where;
  const std::string descr = dict_value(dict, "descr", where);
  // '|u1', '<f4', '<i8', '<U12': byte order, kind, size (a string's in characters); one-byte values have no order.
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=') ||
      std::string("uifU").find(descr[1]) == std::string::npos) {
    throw h.error("has dtype " + descr + ": only little-endian integers, float32 and unicode strings are read");
  }
  h.kind = descr[1];
  const std::string size = descr.substr(2);
  if (size.empty() || size.size() > 3 || size.find_first_not_of("0123456789") != std::string::npos)
    throw h.error("has dtype " + descr + " (not read)");
  h.bytes = std::stoi(size);
  if (h.kind == 'U') {
    if (h.bytes < 1 || h.bytes > kMaxUserChars)
      throw h.error("has dtype " + descr + ": user names of 1 to " + std::to_string(kMaxUserChars) + " characters are read");
    h.bytes *= 4;
  } else if (h.bytes != 1 && h.bytes != 2 && h.bytes != 4 && h.bytes != 8) {
    throw h.error("has dtype " + descr + " (not read)");
  }
  if (dict_value(dict, "fortran_order", where) != "False") {
    throw h.error("is stored in Fortran order: save it C-ordered (numpy.ascontiguousarray)");
  }
  const std::string shape = dict_value(dict, "shape", where);
  for (size_t p = 1; p < shape.size();) {
    const size_t b = shape.find_first_of("0123456789", p);
    if (b == std::string::npos) break;
    size_t e = shape.find_first_not_of("0123456789", b);
    const std::string digits = shape.substr(b, e - b);
    if (digits.size() > 12) throw h.error("has a dimension of " + digits + ": too large");
    h.shape.push_back(std::stoll(digits));
    p = e;
  }
  if (h.shape.empty()) throw h.error("is a scalar, not an array of samples");
  for (int64_t d : h.shape) {
    if (d == 0) throw h.error("has shape " + h.shape_text() + ": a dimension is 0");
  }
  // Checked here, one dimension at a time, so that no product of dimensions can overflow later:
  // (1, 2^32, 2^32) would wrap to 0 values per sample.
  int64_t values = 1;
  for (size_t i = 1; i < h.shape.size(); ++i) {
    if (h.shape[i] > kMaxSampleValues / values)
      throw h.error("has shape " + h.shape_text() + ": more than 2^24 values per sample");
    values *= h.shape[i];
  }
  return h;
}

// One array's header and the kept part of its data, read from the archive in chunks: the header
// first (up to 64 KiB), then the data, of which the first `keep` samples are kept and the rest
// counted, to check that the array holds exactly what its header claims.
struct NpyArray {
  NpyHeader header;
  std::vector<char> data;
};

NpyArray read_array(ZipArchive& zip, const std::string& name, bool header_only, int64_t keep) {
  const std::string member = name + ".npy";
  const ZipMember& m = zip.member(member);
  const std::string where = zip.path().string() + ": " + member;
  std::string head;
  NpyArray a;
  bool have_header = false;
  size_t header_end = 0;
  uint64_t keep_bytes = 0, total = 0;
  zip.read(m, [&](const char* p, size_t n) {
    if (!have_header) {
      head.append(p, n);
      if (head.size() < 12) return true;
      if (head.compare(0, 6, "\x93NUMPY") != 0) throw DataError("dataset: " + where + " is not a .npy array");
      const int major = static_cast<unsigned char>(head[6]);
      const size_t len_bytes = major == 1 ? 2 : 4;
      size_t len = 0;
      for (size_t i = 0; i < len_bytes; ++i) len |= size_t{static_cast<unsigned char>(head[8 + i])} << (8 * i);
      if (len > 65536) throw DataError("dataset: " + where + " has a damaged .npy header");
      header_end = 8 + len_bytes + len;
      if (head.size() < header_end) return true;
      a.header = parse_header(head.substr(8 + len_bytes, len), where);
      have_header = true;
      if (header_only) return false;
      const Bytes128 item = static_cast<Bytes128>(a.header.item_values()) * static_cast<Bytes128>(a.header.bytes);
      const Bytes128 kept = static_cast<Bytes128>(std::min(keep, a.header.count())) * item;
      keep_bytes = kept > std::numeric_limits<uint64_t>::max() ? std::numeric_limits<uint64_t>::max()
                                                                : static_cast<uint64_t>(kept);
      p = head.data() + header_end;
      n = head.size() - header_end;
    }
    if (total < keep_bytes) {
      const auto take = static_cast<size_t>(std::min<uint64_t>(n, keep_bytes - total));
      a.data.insert(a.data.end(), p, p + take);
    }
    total += n;
    return true;
  });
  if (!have_header) throw DataError("dataset: " + where + " is truncated (no complete .npy header)");
  if (a.header.item_values() > kMaxSampleValues) {
    throw a.header.error("has shape " + a.header.shape_text() + ": more than 2^24 values per sample");
  }
  if (header_only) return a;
  const Bytes128 claimed = static_cast<Bytes128>(a.header.count()) * static_cast<Bytes128>(a.header.item_values()) *
                           static_cast<Bytes128>(a.header.bytes);
  if (static_cast<Bytes128>(total) != claimed) {
    const std::string claimed_text = claimed > std::numeric_limits<uint64_t>::max()
                                         ? std::string("more than 2^64")
                                         : std::to_string(static_cast<uint64_t>(claimed));
    throw a.header.error("holds " + std::to_string(total) + " bytes of data, but its header (" + a.header.shape_text() +
                         " " + a.header.dtype() + ") claims " + claimed_text +
                         (static_cast<Bytes128>(total) < claimed ? " (truncated array)" : ""));
  }
  return a;
}

struct SampleShape {
  int64_t channels = 1, height = 1, width = 1;
  bool channels_last = false;  // stored (N, H, W, C): transposed on reading
};

SampleShape sample_shape(const NpyHeader& x, const NpzSpec& spec) {
  if (!(x.kind == 'u' && x.bytes == 1) && !(x.kind == 'f' && x.bytes == 4)) {
    throw x.error("has dtype " + x.dtype() + ": samples must be uint8 or float32");
  }
  const auto& s = x.shape;
  switch (s.size()) {
    case 2: return {1, 1, s[1], false};
    case 3: return {1, s[1], s[2], false};
    case 4:
      if (spec.channels_at == "first") return {s[1], s[2], s[3], false};
      if (spec.channels_at == "last") return {s[3], s[1], s[2], true};
      throw x.error("has shape " + x.shape_text() +
                    ": say where its channels are with dataset.channels_at (first "
                    "for (N, C, H, W), last for (N, H, W, C))");
    default: throw x.error("has shape " + x.shape_text() + ": samples must be (N, H, W), (N, D) or 4-D");
  }
}

void check_labels(const NpyHeader& y, const NpyHeader& x) {
  if (y.kind == 'f' || y.kind == 'U') throw y.error("has dtype " + y.dtype() + ": labels must be integers");
  if (y.shape.size() > 2 || (y.shape.size() == 2 && y.shape[1] != 1)) {
    throw y.error("has shape " + y.shape_text() + ": labels must be (N,) or (N, 1)");
  }
  if (y.count() != x.count()) {
    throw y.error("holds " + std::to_string(y.count()) + " labels but " + x.where + " " + std::to_string(x.count()) +
                  " samples");
  }
}

struct SplitNames {
  const std::string &x, &y;
};

// Both splits' headers, checked against each other before any data is read.
std::pair<SampleShape, std::array<NpyHeader, 4>> headers(ZipArchive& zip, const NpzSpec& spec) {
  std::array<NpyHeader, 4> h;
  const std::array<const std::string*, 4> names{&spec.x_train, &spec.y_train, &spec.x_test, &spec.y_test};
  for (size_t i = 0; i < 4; ++i) h[i] = read_array(zip, *names[i], true, 0).header;
  const SampleShape train = sample_shape(h[0], spec), test = sample_shape(h[2], spec);
  if (train.channels != test.channels || train.height != test.height || train.width != test.width ||
      h[0].kind != h[2].kind) {
    throw h[2].error("holds " + h[2].shape_text() + " " + h[2].dtype() + " samples but " + h[0].where + " " +
                     h[0].shape_text() + " " + h[0].dtype() + ": the samples differ");
  }
  check_labels(h[1], h[0]);
  check_labels(h[3], h[2]);
  return {train, h};
}

int64_t kept(int64_t count, int64_t limit) { return limit > 0 ? std::min(count, limit) : count; }

// Samples in channel-first order: (N, H, W, C) is transposed sample by sample.
template <class T>
std::vector<T> samples(const std::vector<char>& raw, const SampleShape& s) {
  std::vector<T> out(raw.size() / sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), raw.data(), out.size() * sizeof(T));
  if (!s.channels_last || s.channels == 1) return out;
  const int64_t plane = s.height * s.width, size = plane * s.channels;
  std::vector<T> moved(out.size());
  for (size_t base = 0; base < out.size(); base += static_cast<size_t>(size)) {
    for (int64_t p = 0; p < plane; ++p) {
      for (int64_t c = 0; c < s.channels; ++c) moved[base + c * plane + p] = out[base + p * s.channels + c];
    }
  }
  return moved;
}

std::vector<int64_t> labels(const NpyArray& y, int64_t keep) {
  std::vector<int64_t> out(static_cast<size_t>(keep));
  const char* p = y.data.data();
  for (auto& l : out) {
    switch (y.header.bytes) {
      case 1: l = y.header.kind == 'u' ? int64_t{static_cast<uint8_t>(*p)} : int64_t{static_cast<int8_t>(*p)}; break;
      case 2: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        l = y.header.kind == 'u' ? int64_t{v} : int64_t{static_cast<int16_t>(v)};
        break;
      }
      case 4: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        l = y.header.kind == 'u' ? int64_t{v} : int64_t{static_cast<int32_t>(v)};
        break;
      }
      default: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        // A uint64 label past int64 is out of every range: shown as -1.
        l = y.header.kind == 'u' && v > uint64_t(std::numeric_limits<int64_t>::max()) ? -1 : static_cast<int64_t>(v);
      }
    }
    p += y.header.bytes;
  }
  return out;
}

// A users array's header, against the training samples': integers or strings, one per sample.
void check_users(const NpyHeader& u, const NpyHeader& x) {
  if (u.kind == 'f') throw u.error("has dtype " + u.dtype() + ": users must be integers or strings");
  if (u.shape.size() > 2 || (u.shape.size() == 2 && u.shape[1] != 1)) {
    throw u.error("has shape " + u.shape_text() + ": users must be (N,) or (N, 1), one per training sample");
  }
  if (u.count() != x.count()) {
    throw u.error("holds " + std::to_string(u.count()) + " users but " + x.where + " " + std::to_string(x.count()) +
                  " samples");
  }
}

// The first `keep` samples' users, numbered 0.. in the order they first appear.
std::vector<int64_t> users(const NpyArray& u, int64_t keep) {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(keep));
  if (u.header.kind == 'U') {
    std::map<std::string, int64_t> number;
    for (int64_t i = 0; i < keep; ++i) {
      std::string key(u.data.data() + i * u.header.bytes, static_cast<size_t>(u.header.bytes));
      while (key.size() >= 4 && key.compare(key.size() - 4, 4, std::string(4, '\0')) == 0) key.resize(key.size() - 4);
      out.push_back(number.emplace(key, static_cast<int64_t>(number.size())).first->second);
    }
    return out;
  }
  std::map<int64_t, int64_t> number;
  for (int64_t id : labels(u, keep)) out.push_back(number.emplace(id, static_cast<int64_t>(number.size())).first->second);
  return out;
}

// The training samples' users, when spec.users names an array (checked against x_train's header).
std::vector<int64_t> read_users(ZipArchive& zip, const NpzSpec& spec, const NpyHeader& x_train) {
  if (spec.users.empty()) return {};
  NpyHeader header;
  try {
    header = read_array(zip, spec.users, true, 0).header;
  } catch (const DataError& e) {
    throw DataError(std::string(e.what()) + "; partition natural reads each training sample's user from it "
                    "(dataset.arrays.users)");
  }
  check_users(header, x_train);
  const NpyArray u = read_array(zip, spec.users, false, std::numeric_limits<int64_t>::max());
  return users(u, kept(u.header.count(), spec.train_limit));
}

Dataset read_split(ZipArchive& zip, const std::string& x_name, const std::string& y_name, const SampleShape& s,
                   int64_t limit) {
  NpyArray x = read_array(zip, x_name, false, limit > 0 ? limit : std::numeric_limits<int64_t>::max());
  const int64_t keep = kept(x.header.count(), limit);
  const NpyArray y = read_array(zip, y_name, false, keep);
  Dataset d;
  d.channels = s.channels;
  d.height = s.height;
  d.width = s.width;
  if (x.header.kind == 'u') {
    d.codes = samples<uint8_t>(x.data, s);
    d.raw_sample_bytes = d.sample_size();
  } else {
    d.features = samples<float>(x.data, s);
    d.raw_sample_bytes = d.sample_size() * static_cast<int64_t>(sizeof(float));
  }
  d.labels = labels(y, keep);
  return d;
}

}  // namespace

DatasetPair load_npz_dataset(const NpzSpec& spec) {
  ZipArchive zip(spec.file);
  const auto [shape, h] = headers(zip, spec);
  DatasetPair pair{read_split(zip, spec.x_train, spec.y_train, shape, spec.train_limit),
                   read_split(zip, spec.x_test, spec.y_test, shape, spec.test_limit)};
  pair.train.sample_users = read_users(zip, spec, h[0]);
  finish_dataset(pair, spec.classes, h[1].where, h[3].where);
  return pair;
}

DatasetShape npz_dataset_shape(const NpzSpec& spec) {
  ZipArchive zip(spec.file);
  const auto [s, h] = headers(zip, spec);
  DatasetShape shape;
  shape.train_samples = kept(h[0].count(), spec.train_limit);
  shape.test_samples = kept(h[2].count(), spec.test_limit);
  shape.channels = s.channels;
  shape.height = s.height;
  shape.width = s.width;
  shape.classes = spec.classes;
  if (shape.classes <= 0) {  // the largest label + 1: the labels are small, read them
    int64_t top = 1;
    for (const auto& [x, y, limit] : {std::tuple{&spec.x_train, &spec.y_train, spec.train_limit},
                                      std::tuple{&spec.x_test, &spec.y_test, spec.test_limit}}) {
      const NpyArray a = read_array(zip, *y, false, std::numeric_limits<int64_t>::max());
      for (int64_t l : labels(a, kept(a.header.count(), limit))) top = std::max(top, l);
    }
    shape.classes = classes_of_top_label(top, util::printable(spec.file.string()));
  }
  shape.value_bytes = h[0].bytes;
  shape.user_samples = user_counts(read_users(zip, spec, h[0]));
  // Each array's kept bytes are read whole, then copied into the values (not for uint8 stored
  // channel-first, moved as they are, but counted anyway) and the labels widened to int64.
  shape.read_bytes = static_cast<double>(shape.train_samples) * static_cast<double>(shape.sample_floats()) *
                         static_cast<double>(h[0].bytes) +
                     static_cast<double>(shape.train_samples) * static_cast<double>(h[1].bytes);
  return shape;
}

}  // namespace edgetrain::learn
