// See results_dir.hpp.
#include "report/results_dir.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "report/output_file.hpp"
#include "util/printable.hpp"

namespace edgetrain::report {
namespace {

namespace fs = std::filesystem;

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The pid of a temporary folder name `.NAME.tmp-PID` or `.NAME.old-PID`; 0 for any other name.
pid_t temporary_owner(const std::string& entry) {
  const size_t dash = entry.rfind('-');
  if (entry.empty() || entry[0] != '.' || dash == std::string::npos) return 0;
  const std::string pid = entry.substr(dash + 1), head = entry.substr(0, dash);
  if (!all_digits(pid) || pid.size() > 9 || head.size() <= 5) return 0;
  const std::string kind = head.substr(head.size() - 4);
  return kind == ".tmp" || kind == ".old" ? static_cast<pid_t>(std::stol(pid)) : 0;
}

bool running(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// The marker inside every temporary folder this program makes, checked before any removal: a
// folder that does not hold it, as a regular file with exactly this text, is not edgetrain's.
constexpr const char* kMarker = ".edgetrain-temporary";
constexpr std::string_view kMarkerText = "a temporary folder of edgetrain's results; removed when its run ends\n";

std::string read_small(const fs::path& file, size_t limit) {
  std::ifstream in(file, std::ios::binary);
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// Whether `dir` is a folder (not a symlink to one) that carries edgetrain's marker.
bool marked(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(fs::symlink_status(dir, ec)) && fs::is_regular_file(fs::symlink_status(dir / kMarker, ec)) &&
         read_small(dir / kMarker, kMarkerText.size()) == kMarkerText;
}

std::error_code mark(const fs::path& dir) { return write_file(dir / kMarker, std::string(kMarkerText)); }

bool is_image(const fs::path& name) {
  const std::string ext = name.extension().string();
  return ext == ".png" || ext == ".svg" || ext == ".pdf";
}

// Why edgetrain would not replace this entry of a results folder (empty: it may). Ours are the
// result files, the temporary files `FILE.tmpPID` that earlier versions wrote beside them, the
// marker, and what `edgetrain plot` and `edgetrain report` write into a run folder by default
// (drawn from the results, so replaced with them): each of the type edgetrain writes, so that a
// user's folder called metrics.csv/ or plots/ holding anything but images is left alone.
std::string not_ours(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  std::error_code ec;
  const fs::file_status status = entry.symlink_status(ec);
  bool file_name = name == "report.html" || name == kMarker;
  for (const std::string& file : ResultsDir::result_files()) {
    file_name =
        file_name || name == file || (name.rfind(file + ".tmp", 0) == 0 && all_digits(name.substr(file.size() + 4)));
  }
  if (file_name) return fs::is_regular_file(status) ? "" : "\"" + name + "\", which is not a regular file";
  if (name == "plots") {
    if (!fs::is_directory(status)) return "\"plots\", which is not a folder";
    for (const auto& image : fs::directory_iterator(entry.path(), ec)) {
      if (!fs::is_regular_file(image.symlink_status(ec)) || !is_image(image.path().filename())) {
        return "\"plots/" + image.path().filename().string() + "\", which edgetrain plot did not write";
      }
    }
    return ec ? "\"plots\", which cannot be read" : "";
  }
  return "\"" + name + "\", which edgetrain did not write";
}

}  // namespace

fs::path resolve_results_folder(const fs::path& out, const std::string& shown) {
  std::error_code ec;
  fs::path folder = fs::weakly_canonical(follow_symlinks(out, "--out " + shown), ec);
  if (ec) throw OutputError("--out " + shown + ": " + ec.message());
  if (!folder.has_filename()) folder = folder.parent_path();  // a trailing slash
  if (!folder.has_filename() || folder == folder.root_path()) {
    throw OutputError("--out " + shown + ": not a folder edgetrain can replace");
  }
  return folder;
}

namespace {

// Makes a rename or a new file in `dir` durable.
void sync_folder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

const std::vector<std::string>& ResultsDir::result_files() {
  static const std::vector<std::string> files = {"scenario.json",     "metrics.csv", "devices.csv",   "buffers.csv",
                                                 "buffers_fleet.csv", "links.csv",   "staleness.csv", "rounds.csv",
                                                 "selections.csv",    "policy_metrics.csv",
                                                 "platform.xml",      "crosscheck.csv", "crosscheck.json",
                                                 "population.csv",    "summary.json"};
  return files;
}

int remove_stale_temporaries(const fs::path& parent) {
  std::error_code ec;
  int removed = 0;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const pid_t owner = temporary_owner(entry.path().filename().string());
    if (owner <= 0 || owner == ::getpid() || running(owner) || !marked(entry.path())) continue;
    std::error_code remove_ec;
    fs::remove_all(entry.path(), remove_ec);
    removed += remove_ec ? 0 : 1;
  }
  return removed;
}

ResultsDir::ResultsDir(const fs::path& out) : shown_(out.string()), folder_(resolve_results_folder(out, shown_)) {
  const fs::path parent = folder_.parent_path();
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) throw OutputError("--out " + shown_ + ": cannot create folder " + parent.string() + ": " + ec.message());
  lock_ = std::make_unique<FolderLock>(folder_, shown_);
  const fs::file_status status = fs::status(folder_, ec);
  if (fs::exists(status) && !fs::is_directory(status)) {
    throw OutputError("--out " + shown_ + ": exists and is not a folder");
  }
  if (fs::is_directory(status)) {
    // The whole folder is replaced: never one that holds anything but results.
    for (const auto& entry : fs::directory_iterator(folder_, ec)) {
      if (const std::string why = not_ours(entry); !why.empty()) {
        throw OutputError("--out " + shown_ + ": holds " + util::printable(why) +
                          "; a run replaces the whole folder, so move it away or choose another --out");
      }
    }
    if (ec) throw OutputError("--out " + shown_ + ": cannot read the folder: " + ec.message());
  }
  remove_stale_temporaries(parent);
  tmp_ = parent / ("." + folder_.filename().string() + ".tmp-" + std::to_string(::getpid()));
  if (marked(tmp_)) fs::remove_all(tmp_, ec);  // left by an earlier process that had our pid
  if (!fs::create_directory(tmp_, ec) || ec) {
    throw OutputError("--out " + shown_ + ": cannot create " + tmp_.string() + ": " +
                      (ec ? ec.message() : std::string("it already exists")));
  }
  created_ = true;
  if (const std::error_code mark_ec = mark(tmp_)) {
    throw OutputError("--out " + shown_ + ": cannot write in " + tmp_.string() + ": " + mark_ec.message());
  }
}

ResultsDir::~ResultsDir() {
  std::error_code ec;
  if (!committed_ && created_) fs::remove_all(tmp_, ec);
}

std::optional<nlohmann::json> ResultsDir::previous_scenario() const {
  std::ifstream in(folder_ / "scenario.json", std::ios::binary);
  if (!in) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded()) return std::nullopt;
  return doc;
}

void ResultsDir::write(const std::string& name, const std::string& content) {
  const auto& known = result_files();
  if (std::find(known.begin(), known.end(), name) == known.end()) throw std::logic_error("not a result file: " + name);
  if (const std::error_code ec = write_file(tmp_ / name, content)) {
    std::error_code exists_ec;
    throw OutputError(
        (fs::path(shown_) / name).string() + ": cannot write: " + ec.message() + " (" +
        (fs::exists(folder_, exists_ec) ? "the previous results are left as they were" : "no results were written") +
        ")");
  }
}

void ResultsDir::commit() {
  const fs::path parent = folder_.parent_path();
  // The previous results get the marker too, so that wherever they are left if this process is
  // killed now (in tmp_ after the exchange, in .NAME.old-PID), they can be proven edgetrain's and
  // removed; the new ones lose it once in place.
  std::error_code ec;
  const bool had_folder = fs::is_directory(fs::symlink_status(folder_, ec));
  if (had_folder) {
    if (const std::error_code mark_ec = mark(folder_)) {
      throw OutputError("--out " + shown_ + ": cannot write in the previous results: " + mark_ec.message());
    }
  }
  sync_folder(tmp_);
  auto fail = [&](const std::string& what, int err) {
    std::error_code ignored;
    if (had_folder) fs::remove(folder_ / kMarker, ignored);
    throw OutputError("--out " + shown_ + ": " + what + ": " + std::error_code(err, std::generic_category()).message());
  };
  fs::path previous;  // where the previous results are after the swap
  if (!had_folder) {
    if (std::rename(tmp_.c_str(), folder_.c_str()) != 0) fail("cannot move the results into place", errno);
  } else if (::renameat2(AT_FDCWD, tmp_.c_str(), AT_FDCWD, folder_.c_str(), RENAME_EXCHANGE) == 0) {
    previous = tmp_;  // one atomic swap: the folder is at all times either the old or the new results
  } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) {
    // A file system without an atomic exchange: move the previous folder aside first.
    previous = parent / ("." + folder_.filename().string() + ".old-" + std::to_string(::getpid()));
    if (marked(previous)) fs::remove_all(previous, ec);
    if (std::rename(folder_.c_str(), previous.c_str()) != 0) fail("cannot move the previous results aside", errno);
    if (std::rename(tmp_.c_str(), folder_.c_str()) != 0) {
      const int err = errno;
      std::rename(previous.c_str(), folder_.c_str());
      fail("cannot move the results into place", err);
    }
  } else {
    fail("cannot move the results into place", errno);
  }
  committed_ = true;
  fs::remove(folder_ / kMarker, ec);
  sync_folder(parent);
  if (!previous.empty()) fs::remove_all(previous, ec);
}

}  // namespace edgetrain::report
