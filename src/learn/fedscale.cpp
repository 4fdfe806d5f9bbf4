// See fedscale.hpp. The mapping files are plain CSV (a field may be double-quoted, as Python's csv
// module writes a path holding a comma).
#include "learn/fedscale.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "learn/image_file.hpp"
#include "util/printable.hpp"
#include "util/read_input.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::learn {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// One split's rows: the sample files, labels and clients (numbered by first appearance).
struct Mapping {
  fs::path csv;
  std::vector<fs::path> files;
  std::vector<int64_t> labels, users;
  std::vector<int64_t> user_samples;
};

// A mapping lists one row per sample: 3,000,000 rows are about 200 MB.
constexpr util::InputRule kMappingInput{"the FedScale mapping", 1024 * util::kMiB, false,
                                        "FedScale's mapping is a CSV file on disk"};

// The next line of `text` from `at` (without its newline); false at the end.
bool next_line(const std::string& text, size_t& at, std::string& line) {
  if (at >= text.size()) return false;
  const size_t end = std::min(text.find('\n', at), text.size());
  line.assign(text, at, end - at);
  at = end + 1;
  return true;
}

Mapping read_mapping(const fs::path& dir, const std::string& split, int64_t limit) {
  Mapping m;
  m.csv = dir / "client_data_mapping" / (split + ".csv");
  const std::string shown = util::printable(m.csv.string());
  if (!fs::exists(m.csv))
    throw DataError("dataset: " + shown + " not found (FedScale's client_data_mapping/" + split + ".csv)");
  const std::string text = util::read_input_as<DataError>(m.csv, kMappingInput);
  size_t at = 0;
  std::string line;
  if (!next_line(text, at, line)) throw DataError("dataset: " + shown + " is empty");
  const auto header = csv_fields(line);
  std::array<size_t, 3> col{};  // client_id, sample_path, label_id
  const std::array<const char*, 3> names{"client_id", "sample_path", "label_id"};
  for (size_t k = 0; k < names.size(); ++k) {
    const auto it = std::find(header.begin(), header.end(), names[k]);
    if (it == header.end()) {
      throw DataError("dataset: " + shown + " has no column " + names[k] +
                      " (expected client_id,sample_path,label_name,label_id)");
    }
    col[k] = static_cast<size_t>(it - header.begin());
  }
  std::map<std::string, int64_t> clients;
  for (int64_t row = 2; next_line(text, at, line); ++row) {
    if (row % 65536 == 0) util::throw_if_stopped("reading " + shown);  // millions of rows: Ctrl-C answers
    if (line.empty() || line == "\r") continue;
    if (limit > 0 && static_cast<int64_t>(m.files.size()) >= limit) break;
    const auto f = csv_fields(line);
    const auto where = [&] { return "dataset: " + shown + " line " + std::to_string(row); };
    if (f.size() != header.size()) {
      throw DataError(where() + " has " + std::to_string(f.size()) + " fields, the header " +
                      std::to_string(header.size()));
    }
    const std::string& label = f[col[2]];
    size_t used = 0;
    int64_t value = -1;
    try {
      value = std::stoll(label, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (label.empty() || used != label.size())
      throw DataError(where() + " has label_id \"" + util::printable(label) + "\": not an integer");
    // The labels index the classes, which dataset.classes allows up to kMaxClasses.
    if (value < 0 || value >= kMaxClasses)
      throw DataError(where() + " has label_id " + label + ": labels are 0 to " + std::to_string(kMaxClasses - 1));
    const auto [it, added] = clients.emplace(f[col[0]], static_cast<int64_t>(clients.size()));
    if (added) m.user_samples.push_back(0);
    ++m.user_samples[static_cast<size_t>(it->second)];
    m.files.push_back(dir / split / f[col[1]]);
    m.labels.push_back(value);
    m.users.push_back(it->second);
  }
  if (m.files.empty()) throw DataError("dataset: " + shown + " lists no sample");
  return m;
}

int64_t top_label(const Mapping& a, const Mapping& b) {
  int64_t top = 1;
  for (const Mapping* m : {&a, &b}) {
    for (int64_t l : m->labels) top = std::max(top, l);
  }
  return top + 1;
}

// The sample file `f`, which `m`'s CSV names: refused with both names when it is missing.
const fs::path& existing(const fs::path& f, const Mapping& m) {
  if (!fs::is_regular_file(f))
    throw DataError("dataset: " + util::printable(f.string()) + " (named by " + util::printable(m.csv.string()) +
                    ") not found");
  return f;
}

// The mapping's images, every file checked to exist before any is decoded.
Dataset decode(const Mapping& m, const ImageSize& size, const fs::path& first) {
  for (const fs::path& f : m.files) existing(f, m);
  return decode_images(m.files, m.labels, size, first);
}

}  // namespace

DatasetPair load_fedscale_dataset(const FedScaleSpec& spec) {
  const Mapping train = read_mapping(spec.dir, "train", spec.train_limit);
  const Mapping test = read_mapping(spec.dir, "test", spec.test_limit);
  const fs::path& first = existing(train.files.front(), train);
  const ImageSize size = image_size(first);
  DatasetPair pair{decode(train, size, first), decode(test, size, first)};
  pair.train.sample_users = train.users;
  finish_dataset(pair, spec.classes, train.csv.string(), test.csv.string());
  return pair;
}

DatasetShape fedscale_dataset_shape(const FedScaleSpec& spec) {
  const Mapping train = read_mapping(spec.dir, "train", spec.train_limit);
  const Mapping test = read_mapping(spec.dir, "test", spec.test_limit);
  const ImageSize size = image_size(existing(train.files.front(), train));
  DatasetShape s;
  s.train_samples = static_cast<int64_t>(train.files.size());
  s.test_samples = static_cast<int64_t>(test.files.size());
  s.channels = size.channels;
  s.height = size.height;
  s.width = size.width;
  s.classes = spec.classes > 0 ? spec.classes : top_label(train, test);
  s.value_bytes = 1;
  // The rows' paths and labels are held while the images are decoded.
  s.read_bytes = static_cast<double>(s.train_samples + s.test_samples) * 96;
  s.user_samples = train.user_samples;
  return s;
}

}  // namespace edgetrain::learn
