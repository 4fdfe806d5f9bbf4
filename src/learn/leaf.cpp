// See leaf.hpp. One SAX handler reads a file: it knows where it is from the stack of containers
// and the keys of the objects on it (user_data / <user> / x / [sample] / value).
#include "learn/leaf.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "util/format.hpp"
#include "util/printable.hpp"

namespace edgetrain::learn {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kLetters = 80;  // LEAF's alphabet for text (kAlphabet): x characters and y are its indices
// The most samples one split declares (num_samples, and their sum): 2^40, a thousand times LEAF's
// largest set, small enough that sums of counts never overflow int64.
constexpr double kMaxUserSamples = 1099511627776.0;

// The JSON files of `dir`/`split`, sorted by name.
std::vector<fs::path> json_files(const fs::path& dir, const std::string& split) {
  const fs::path folder = dir / split;
  if (!fs::is_directory(folder))
    throw DataError("dataset: " + folder.string() + " is not a directory (LEAF's " + split + "/ folder)");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw DataError("dataset: " + folder.string() + " holds no .json file");
  return files;
}

// What the files of one split hold; users are shared by name across the split's files.
struct Split {
  bool keep_values = true;  // false: counts only (and labels when keep_labels)
  bool keep_labels = true;
  int64_t limit = 0;    // samples kept (0 = all)
  int64_t length = -1;  // values per sample (the first sample's)
  int text = -1;        // -1: no sample yet; 1: x are strings (characters as token indices); 0: numbers
  std::vector<float> values;
  std::vector<int64_t> labels, sample_users;
  std::map<std::string, int64_t> user_index;
  std::vector<int64_t> user_samples;  // from num_samples, per user index
  int64_t declared_total = 0;         // sum of num_samples
  int64_t user(const std::string& name) {
    const auto [it, added] = user_index.emplace(name, static_cast<int64_t>(user_index.size()));
    if (added) user_samples.push_back(0);
    return it->second;
  }
  bool full() const { return limit > 0 && static_cast<int64_t>(labels.size()) >= limit; }
  // Counted apart from the labels: a user's x may come before or after its y.
  bool values_full() const { return limit > 0 && length > 0 && static_cast<int64_t>(values.size()) >= limit * length; }
};

class Reader : public nlohmann::json_sax<json> {
 public:
  Reader(Split& split, const fs::path& file) : s_(split), file_(file) {}

  bool null() override { return value_error("null"); }
  bool boolean(bool) override { return value_error("a boolean"); }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v), true); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v), true); }
  bool number_float(number_float_t v, const string_t&) override { return number(v, std::floor(v) == v); }
  bool string(string_t& v) override {
    if (at({"users"}, 1)) {
      users_.push_back(v);
      s_.user(v);  // users are numbered in the order the lists name them
      return true;
    }
    if (in_text_sample()) return text_sample(v);
    if (in_labels() && s_.text != 0) {
      if (v.size() != 1) throw not_a_letter(v);
      return label(letter(v[0], v));
    }
    return value_error("a string (\"" + v.substr(0, 20) + "\")");
  }
  bool binary(binary_t&) override { return value_error("binary data"); }
  bool start_object(std::size_t) override {
    stack_.push_back({false, ""});
    if (in_user()) {
      user_ = s_.user(key_at(1));
      x_count_ = y_count_ = 0;
    }
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool end_object() override {
    if (in_user()) {
      if (x_count_ != y_count_) {
        throw error("user " + util::printable(key_at(1)) + " has " + std::to_string(x_count_) + " x but " + std::to_string(y_count_) +
                    " y");
      }
      counted_[user_] += x_count_;
    }
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    stack_.push_back({true, ""});
    if (in_sample()) {
      if (s_.text == 1) throw error("user " + util::printable(key_at(1)) + ": a sample of x is a list, the first sample a string");
      s_.text = 0;
      sample_values_ = 0;
    }
    if (stack_.size() > 5 && key_at(2) == "x") return value_error("a nested list");
    return true;
  }
  bool end_array() override {
    if (in_sample()) {
      stack_.pop_back();
      return end_sample();
    }
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    throw error("is not valid JSON (byte " + std::to_string(position) + "): " + e.what());
  }

  // After the file: num_samples against the users and their samples.
  void check(bool complete) {
    if (users_.size() != num_samples_.size()) {
      throw error("lists " + std::to_string(users_.size()) + " users but " + std::to_string(num_samples_.size()) +
                  " num_samples");
    }
    for (size_t i = 0; i < users_.size(); ++i) {
      const int64_t u = s_.user(users_[i]);
      s_.user_samples[static_cast<size_t>(u)] += num_samples_[i];
      s_.declared_total += num_samples_[i];
      if (s_.declared_total > kMaxUserSamples)
        throw error("declares " + std::to_string(s_.declared_total) + " samples in all: at most " +
                    util::format_number(kMaxUserSamples) + " are read");
      if (complete && counted_[u] != num_samples_[i]) {
        throw error("user " + util::printable(users_[i]) + " has " + std::to_string(counted_[u]) + " samples but num_samples says " +
                    std::to_string(num_samples_[i]));
      }
    }
  }
  DataError error(const std::string& what) const { return DataError("dataset: " + file_.string() + " " + what); }

 private:
  struct Frame {
    bool array;
    std::string key;
  };
  // The stack is root object, then (path...): at({"users"}, 1) is a value of the root's "users" list.
  bool at(std::initializer_list<const char*> keys, size_t arrays) const {
    if (stack_.size() != keys.size() + arrays) return false;
    size_t d = 0;
    for (const char* k : keys) {
      if (stack_[d].array || stack_[d].key != k) return false;
      ++d;
    }
    for (; d < stack_.size(); ++d) {
      if (!stack_[d].array) return false;
    }
    return true;
  }
  std::string key_at(size_t depth) const { return depth < stack_.size() ? stack_[depth].key : ""; }
  // root / user_data / <user>: the user's object is on top.
  bool in_user() const {
    return stack_.size() == 3 && !stack_[0].array && stack_[0].key == "user_data" && !stack_[2].array;
  }
  // root / user_data / <user> / x / [sample]: the sample's list is on top.
  bool in_sample() const {
    return stack_.size() == 5 && stack_[0].key == "user_data" && stack_[2].key == "x" && stack_[3].array &&
           stack_[4].array;
  }
  // root / user_data / <user> / x: a string there is one sample (Shakespeare's 80 characters).
  bool in_text_sample() const {
    return stack_.size() == 4 && stack_[0].key == "user_data" && stack_[2].key == "x" && stack_[3].array;
  }
  // A character's index in LEAF's 80-letter alphabet (its language_utils.ALL_LETTERS).
  int64_t letter(char c, const std::string& text) const {
    static constexpr std::string_view kAlphabet =
        "\n !\"&'(),-.0123456789:;>?ABCDEFGHIJKLMNOPQRSTUVWXYZ[]abcdefghijklmnopqrstuvwxyz}";
    static_assert(kAlphabet.size() == kLetters);
    const size_t i = kAlphabet.find(c);
    if (i == std::string_view::npos) throw not_a_letter(text);
    return static_cast<int64_t>(i);
  }
  DataError not_a_letter(const std::string& text) const {
    return error("user " + util::printable(key_at(1)) + ": \"" + text.substr(0, 20) +
                 "\" is not one character of LEAF's 80-letter alphabet (ALL_LETTERS)");
  }
  bool text_sample(const std::string& v) {
    if (s_.text == 0) throw error("user " + util::printable(key_at(1)) + ": a sample of x is a string, the first sample a list");
    s_.text = 1;
    sample_values_ = 0;
    for (char c : v) {
      const int64_t i = letter(c, v);
      ++sample_values_;
      if (s_.keep_values && !s_.values_full()) s_.values.push_back(static_cast<float>(i));
    }
    return end_sample();
  }
  bool end_sample() {
    if (s_.length < 0) s_.length = sample_values_;
    if (sample_values_ != s_.length || sample_values_ == 0) {
      throw error("user " + util::printable(key_at(1)) + " sample " + std::to_string(x_count_) + " has " +
                  std::to_string(sample_values_) + " values, the first sample " + std::to_string(s_.length));
    }
    ++x_count_;
    // Counts only: the rest of the file is not needed.
    return s_.keep_values || s_.keep_labels || users_.empty() || num_samples_.empty();
  }
  bool label(int64_t v) {
    if (s_.keep_labels && !s_.full()) {
      s_.labels.push_back(v);
      s_.sample_users.push_back(user_);
    }
    ++y_count_;
    return true;
  }
  bool in_labels() const {
    return stack_.size() == 4 && stack_[0].key == "user_data" && stack_[2].key == "y" && stack_[3].array;
  }
  bool number(double v, bool integral) {
    if (at({"num_samples"}, 1)) {
      // A count a double holds exactly, and within what sums of counts can hold (no int64 overflow).
      if (!integral || v < 0 || v > kMaxUserSamples)
        throw error("has num_samples " + util::format_number(v) + ": not a count of at most " +
                    util::format_number(kMaxUserSamples));
      num_samples_.push_back(static_cast<int64_t>(v));
    } else if (in_sample()) {
      ++sample_values_;
      if (s_.keep_values && !s_.values_full()) s_.values.push_back(static_cast<float>(v));
    } else if (in_labels()) {
      if (!integral) throw error("user " + util::printable(key_at(1)) + " has label " + util::format_number(v) + ": labels must be integers");
      if (v < 0 || v >= static_cast<double>(kMaxClasses))
        throw error("user " + util::printable(key_at(1)) + " has label " + util::format_number(v) + ": labels are 0 to " +
                    std::to_string(kMaxClasses - 1));
      label(static_cast<int64_t>(v));
    } else if (stack_.size() == 4 && key_at(2) == "x") {
      return value_error("a number");
    }
    return true;
  }
  bool value_error(const std::string& what) {
    if (stack_.size() >= 4 && key_at(0) == "user_data" && key_at(2) == "x") {
      throw error("user " + util::printable(key_at(1)) + ": a sample of x is " + what +
                  "; x must be lists of numbers or strings of characters (LEAF's Sent140 is not built)");
    }
    if (stack_.size() >= 4 && key_at(0) == "user_data" && key_at(2) == "y") {
      throw error("user " + util::printable(key_at(1)) + ": a label is " + what + "; labels must be integers");
    }
    return true;  // elsewhere: ignored (LEAF files carry "hierarchies" and other extras)
  }

  Split& s_;
  fs::path file_;
  std::vector<Frame> stack_;
  std::vector<std::string> users_;
  std::vector<int64_t> num_samples_;
  std::map<int64_t, int64_t> counted_;
  int64_t user_ = 0, x_count_ = 0, y_count_ = 0, sample_values_ = 0;
};

void read_file(Split& split, const fs::path& file) {
  std::ifstream in(regular_data_file(file), std::ios::binary);
  if (!in) throw DataError("dataset: cannot open " + file.string());
  Reader reader(split, file);
  const bool complete = json::sax_parse(in, &reader);
  reader.check(complete);
  if (complete && split.keep_values && !split.full() &&
      split.values.size() != split.labels.size() * static_cast<size_t>(std::max<int64_t>(split.length, 0))) {
    throw reader.error("has samples of x without a label");  // x and y counts are equal per user
  }
}

Split read_split(const LeafSpec& spec, const std::string& name, bool keep_values, bool keep_labels, int64_t limit) {
  Split s;
  s.keep_values = keep_values;
  s.keep_labels = keep_labels;
  s.limit = limit;
  for (const fs::path& f : json_files(spec.dir, name)) {
    read_file(s, f);
    if (keep_labels && s.full()) break;
  }
  if (keep_labels && s.labels.empty()) throw DataError("dataset: " + (spec.dir / name).string() + " holds no sample");
  return s;
}

// The sample shape from the key or the length.
std::array<int64_t, 3> sample_shape(const LeafSpec& spec, int64_t length) {
  const std::string where = "dataset: " + (spec.dir / "train").string();
  if (!spec.shape.empty()) {
    if (spec.shape.at(0) * spec.shape.at(1) * spec.shape.at(2) != length) {
      throw DataError(where + " has samples of " + std::to_string(length) + " values, but dataset.shape [" +
                      std::to_string(spec.shape[0]) + ", " + std::to_string(spec.shape[1]) + ", " +
                      std::to_string(spec.shape[2]) + "] holds " +
                      std::to_string(spec.shape[0] * spec.shape[1] * spec.shape[2]));
    }
    return {spec.shape[0], spec.shape[1], spec.shape[2]};
  }
  const auto side = static_cast<int64_t>(std::llround(std::sqrt(static_cast<double>(length))));
  if (side * side == length) return {1, side, side};
  return {1, 1, length};
}

Dataset to_dataset(Split&& s, const std::array<int64_t, 3>& shape, int64_t limit) {
  Dataset d;
  d.channels = shape[0];
  d.height = shape[1];
  d.width = shape[2];
  const auto keep = static_cast<size_t>(limit > 0 ? std::min<int64_t>(limit, static_cast<int64_t>(s.labels.size()))
                                                  : static_cast<int64_t>(s.labels.size()));
  s.values.resize(keep * static_cast<size_t>(d.sample_size()));
  s.labels.resize(keep);
  s.sample_users.resize(keep);
  d.features = std::move(s.values);
  d.labels = std::move(s.labels);
  d.sample_users = std::move(s.sample_users);
  d.tokens = s.text == 1;
  d.raw_sample_bytes = d.sample_size() * static_cast<int64_t>(sizeof(float));
  return d;
}

}  // namespace

DatasetPair load_leaf_dataset(const LeafSpec& spec) {
  Split train = read_split(spec, "train", true, true, spec.train_limit);
  Split test = read_split(spec, "test", true, true, spec.test_limit);
  const auto shape = sample_shape(spec, train.length);
  if (test.length != train.length) {
    throw DataError("dataset: " + (spec.dir / "test").string() + " has samples of " + std::to_string(test.length) +
                    " values but " + (spec.dir / "train").string() + " " + std::to_string(train.length));
  }
  DatasetPair pair{to_dataset(std::move(train), shape, spec.train_limit),
                   to_dataset(std::move(test), shape, spec.test_limit)};
  pair.test.sample_users.clear();  // the natural partition is of the training set
  if (pair.train.tokens != pair.test.tokens) {
    throw DataError("dataset: " + (spec.dir / "test").string() + " and " + (spec.dir / "train").string() +
                    " hold different kinds of x (strings in one, lists of numbers in the other)");
  }
  const int64_t classes = spec.classes > 0 ? spec.classes : pair.train.tokens ? kLetters : 0;
  finish_dataset(pair, classes, (spec.dir / "train").string(), (spec.dir / "test").string());
  return pair;
}

DatasetShape leaf_dataset_shape(const LeafSpec& spec) {
  // Undeclared classes need the labels: the files are then read to their end (values not kept).
  const bool labels = spec.classes <= 0;
  Split train = read_split(spec, "train", false, labels, spec.train_limit);
  Split test = read_split(spec, "test", false, labels, spec.test_limit);
  if (train.length < 0) throw DataError("dataset: " + (spec.dir / "train").string() + " holds no sample");
  const auto s = sample_shape(spec, train.length);
  DatasetShape shape;
  auto capped = [](int64_t n, int64_t limit) { return limit > 0 ? std::min(n, limit) : n; };
  shape.train_samples = capped(train.declared_total, spec.train_limit);
  shape.test_samples = capped(test.declared_total, spec.test_limit);
  shape.channels = s[0];
  shape.height = s[1];
  shape.width = s[2];
  shape.classes = spec.classes;
  if (labels && train.text == 1) {
    shape.classes = kLetters;
  } else if (labels) {
    int64_t top = 1;
    for (const Split* split : {&train, &test}) {
      for (int64_t l : split->labels) top = std::max(top, l);
    }
    shape.classes = top + 1;
  }
  shape.value_bytes = sizeof(float);
  shape.read_bytes = 0;  // streamed: nothing held besides the values
  // The users' samples in order, cut at the training limit as loading cuts them.
  int64_t left = shape.train_samples;
  for (int64_t n : train.user_samples) {
    shape.user_samples.push_back(std::min(n, left));
    left -= shape.user_samples.back();
  }
  return shape;
}

}  // namespace edgetrain::learn
