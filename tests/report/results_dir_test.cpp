// Results folders written as a whole: replaced in one move, refused when another run holds them or
// when they hold other files, left intact by a failed write, and temporary folders of killed runs
// removed.
#include "report/buffer_streams.hpp"
#include "report/results_dir.hpp"
#include "report/selection_log.hpp"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "report/output_file.hpp"
#include "report/run_record.hpp"

#include "files.hpp"

using namespace edgetrain::report;
namespace fs = std::filesystem;

namespace {

fs::path fresh(const std::string& name) { return test::fresh_dir("edgetrain-results-", name); }

using test::slurp;

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

// Every result file with `content` in it, committed.
void write_all(const fs::path& out, const std::string& content) {
  ResultsDir dir(out);
  for (const auto& name : ResultsDir::result_files()) dir.write(name, content);
  dir.commit();
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

// A pid that no process has: a child that has exited and been reaped.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace

TEST_CASE("a run replaces the whole folder: no file of an earlier run survives it") {
  const fs::path parent = fresh("replace");
  const fs::path out = parent / "run";
  fs::create_directories(out);
  std::ofstream(out / "staleness.csv") << "old";
  std::ofstream(out / "metrics.csv.tmp4242") << "a killed write of an earlier version";
  {
    ResultsDir dir(out);
    CHECK(dir.temporary().parent_path() == fs::canonical(parent));
    CHECK(fs::is_directory(dir.temporary()));
    CHECK(slurp(out / "staleness.csv") == "old");  // nothing moves before commit()
    dir.write("summary.json", "new");
    dir.commit();
  }
  CHECK(entries(out) == std::set<std::string>{"summary.json"});
  CHECK(slurp(out / "summary.json") == "new");
  CHECK(entries(parent) == std::set<std::string>{"run"});  // no temporary folder, no lock file left
  write_all(out, "again");
  CHECK(entries(out).size() == ResultsDir::result_files().size());
}

TEST_CASE("a run replaces the report.html and plots/ that edgetrain report and plot wrote into its folder") {
  const fs::path out = fresh("drawn") / "run";
  write_all(out, "old");
  std::ofstream(out / "report.html") << "<html>old</html>";
  fs::create_directories(out / "plots");
  std::ofstream(out / "plots/links.png") << "old";
  write_all(out, "new");
  CHECK(entries(out).size() == ResultsDir::result_files().size());
  CHECK(!fs::exists(out / "report.html"));
  CHECK(slurp(out / "summary.json") == "new");
}

TEST_CASE("write_run_outputs and the buffer streams write exactly the result files but platform.xml, summary.json last") {
  const fs::path out = fresh("outputs") / "run";
  ResultsDir dir(out);
  RunSummary summary;
  summary.status = "completed";
  const nlohmann::json scenario = nlohmann::json::object();
  BufferStreams buffers(1.0);  // buffers.csv and buffers_fleet.csv, streamed during a run
  buffers.open(dir.temporary(), out, "no results were written");
  buffers.close(0);
  SelectionLog selections;  // selections.csv, streamed likewise
  selections.open(dir.temporary(), out, "no results were written");
  selections.close();
  write_run_outputs(dir, {scenario, summary, {}, {}, {}, {}, {}});
  std::set<std::string> expected(ResultsDir::result_files().begin(), ResultsDir::result_files().end());
  expected.erase("platform.xml");           // the run writes it only for a changed or generated platform
  expected.erase("crosscheck.csv");         // and these only in edgetrain crosscheck
  expected.erase("crosscheck.json");
  expected.erase("population.csv");         // and this only for a population on host slots
  expected.erase("policy_metrics.csv");     // and this only when the scenario names a Python policy
  expected.insert(".edgetrain-temporary");  // the marker that makes the temporary folder provably edgetrain's
  CHECK(entries(dir.temporary()) == expected);
  CHECK(ResultsDir::result_files().back() == "summary.json");
  dir.commit();
  CHECK(nlohmann::json::parse(slurp(out / "summary.json"))["status"] == "completed");
  CHECK(!fs::exists(out / ".edgetrain-temporary"));  // the results themselves carry no marker
}

TEST_CASE("a folder holding other files than results is refused and left alone") {
  const fs::path out = fresh("foreign") / "mine";
  fs::create_directories(out);
  std::ofstream(out / "notes.txt") << "keep me";
  const std::string msg = message_of([&] { ResultsDir dir(out); });
  CHECK(msg.find("--out " + out.string() + ": holds \"notes.txt\", which edgetrain did not write") !=
        std::string::npos);
  CHECK(slurp(out / "notes.txt") == "keep me");
  CHECK(entries(out.parent_path()) == std::set<std::string>{"mine"});
}

TEST_CASE("a second run on the same folder is refused with the first one's pid") {
  const fs::path out = fresh("lock") / "run";
  {
    ResultsDir first(out);
    CHECK(slurp(FolderLock::lock_path(first.folder())) == std::to_string(::getpid()) + "\n");
    const std::string msg = message_of([&] { ResultsDir second(out); });
    CHECK(msg == "--out " + out.string() + ": another edgetrain run (pid " + std::to_string(::getpid()) +
                     ") is writing this folder; wait for it to end or choose another --out");
    // The same folder named another way is the same folder.
    CHECK(message_of([&] { ResultsDir third(out.parent_path() / "." / "run/"); }).find("another edgetrain run") !=
          std::string::npos);
    first.write("summary.json", "first");
    first.commit();
  }
  CHECK(slurp(out / "summary.json") == "first");
  write_all(out, "later");  // the lock went with the first run
  CHECK(slurp(out / "summary.json") == "later");
}

TEST_CASE("an unusable --out is an OutputError that names it and says why") {
  const fs::path dir = fresh("unusable");
  std::ofstream(dir / "file") << "x";
  CHECK(message_of([&] { ResultsDir d(dir / "file" / "run"); }).find(": Not a directory") != std::string::npos);
  CHECK(message_of([&] { ResultsDir d(dir / "file" / "run"); }).rfind("--out " + (dir / "file" / "run").string(), 0) ==
        0);
  CHECK(message_of([&] { ResultsDir d(dir / "file"); }) ==
        "--out " + (dir / "file").string() + ": exists and is not a folder");
  CHECK(message_of([&] { ResultsDir d("/"); }) == "--out /: not a folder edgetrain can replace");
  CHECK(entries(dir) == std::set<std::string>{"file"});
}

TEST_CASE("a failed write or a run that never commits leaves the previous results as they were") {
  const fs::path out = fresh("failed-write") / "run";
  write_all(out, "previous");
  {
    ResultsDir dir(out);
    dir.write("scenario.json", "new");
    fs::create_directory(dir.temporary() / "metrics.csv");  // a folder in the way of the file
    const std::string msg = message_of([&] { dir.write("metrics.csv", "new"); });
    CHECK(msg == (out / "metrics.csv").string() +
                     ": cannot write: Is a directory (the previous results are left as "
                     "they were)");
  }
  for (const auto& name : ResultsDir::result_files()) CHECK(slurp(out / name) == "previous");
  CHECK(entries(out.parent_path()) == std::set<std::string>{"run"});
  CHECK_THROWS_AS(ResultsDir(out).write("notes.txt", "x"), std::logic_error);  // only result files
}

// The temporary folder of a run killed before its commit (a child that made one and died).
fs::path killed_run_temporary(const fs::path& out) {
  int pipe_fds[2];
  REQUIRE(::pipe(pipe_fds) == 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    auto* dir = new ResultsDir(out);  // never destroyed: the process dies holding it
    dir->write("metrics.csv", "partial");
    const std::string tmp = dir->temporary().string();
    (void)!::write(pipe_fds[1], tmp.data(), tmp.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  char buffer[4096];
  const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
  ::close(pipe_fds[0]);
  ::waitpid(pid, nullptr, 0);
  REQUIRE(n > 0);
  return std::string(buffer, static_cast<size_t>(n));
}

TEST_CASE("temporary folders of runs that were killed are removed, those of running ones are not") {
  const fs::path parent = fresh("stale");
  // Killed elsewhere (a new run removes the stale temporaries beside it), then moved here.
  fs::path stale_run = killed_run_temporary(fresh("stale-run") / "run"),
           stale_other = killed_run_temporary(fresh("stale-other") / "other");
  REQUIRE(fs::exists(stale_run / "metrics.csv"));
  for (fs::path* stale : {&stale_run, &stale_other}) {
    fs::rename(*stale, parent / stale->filename());
    *stale = parent / stale->filename();
  }
  // A live run's temporary folder, marked as edgetrain's: left alone.
  const std::string alive = std::to_string(::getppid());
  fs::copy(stale_run, parent / (".run.tmp-" + alive), fs::copy_options::recursive);
  fs::create_directories(parent / ".run.tmp-x");  // not a pid: not edgetrain's
  const std::string dead = std::to_string(dead_pid());
  std::ofstream(parent / ("notes.tmp-" + dead)) << "a file, not a folder";
  write_all(parent / "run", "new");
  CHECK(entries(parent) == std::set<std::string>{"run", ".run.tmp-" + alive, ".run.tmp-x", "notes.tmp-" + dead});
  CHECK(remove_stale_temporaries(parent) == 0);
  CHECK(!fs::exists(stale_other));
}

TEST_CASE("a user's folder named like a temporary one, without edgetrain's marker, is never removed") {
  const fs::path parent = fresh("user-temporaries");
  const std::string dead = std::to_string(dead_pid());
  // Named like temporaries of dead pids; one even holds a forged marker with other text, one a
  // marker that is a folder, one a symlink to a marked folder.
  for (const std::string& name : std::vector<std::string>{".thesis.old-20240101", ".run.tmp-" + dead,
                                                          ".run.old-" + dead, ".a.tmp-" + dead, ".b.tmp-" + dead}) {
    fs::create_directories(parent / name);
    std::ofstream(parent / name / "chapter1.tex") << "years of work";
  }
  std::ofstream(parent / (".a.tmp-" + dead) / ".edgetrain-temporary") << "not edgetrain's text\n";
  fs::create_directories(parent / (".b.tmp-" + dead) / ".edgetrain-temporary");
  const fs::path marked = killed_run_temporary(fresh("user-temporaries-elsewhere") / "run");
  fs::create_directory_symlink(marked, parent / (".c.tmp-" + dead));
  const std::set<std::string> before = entries(parent);
  CHECK(remove_stale_temporaries(parent) == 0);
  write_all(parent / "run", "new");
  std::set<std::string> after = before;
  after.insert("run");
  CHECK(entries(parent) == after);
  CHECK(slurp(parent / ".thesis.old-20240101" / "chapter1.tex") == "years of work");
  CHECK(fs::exists(marked / "metrics.csv"));  // a symlink is not followed
}

TEST_CASE("a folder holding a user's file of a result's name but another type is refused and left alone") {
  for (const std::string kind : {"metrics.csv/", "summary.json->", "plots/notes.txt", "plots/sub/", "report.html/"}) {
    CAPTURE(kind);
    const fs::path out = fresh("types") / "run";
    write_all(out, "old");
    if (kind == "summary.json->") {
      fs::remove(out / "summary.json");
      std::ofstream(out.parent_path() / "mine.json") << "user data";
      fs::create_symlink(out.parent_path() / "mine.json", out / "summary.json");
    } else if (kind.back() == '/') {
      fs::remove(out / kind.substr(0, kind.size() - 1));
      fs::create_directories(out / kind);
      std::ofstream(out / kind / "data.txt") << "user data";
    } else {
      fs::create_directories(out / "plots");
      std::ofstream(out / kind) << "user data";
    }
    const std::set<std::string> before = entries(out);
    const std::string message = message_of([&] { ResultsDir dir(out); });
    CHECK(message.find("--out " + out.string() + ": holds \"") == 0);
    CHECK(message.find("move it away or choose another --out") != std::string::npos);
    CHECK(entries(out) == before);
  }
  // What edgetrain plot writes (images only) is replaced with the results.
  const fs::path out = fresh("types-plots") / "run";
  write_all(out, "old");
  fs::create_directories(out / "plots");
  std::ofstream(out / "plots" / "buffers.png") << "png";
  write_all(out, "new");
  CHECK(!fs::exists(out / "plots"));
}

TEST_CASE("--out is resolved before anything runs: a dangling symlink names where the results go") {
  const fs::path parent = fresh("dangling");
  fs::create_symlink(parent / "elsewhere" / "target", parent / "link");
  {
    ResultsDir dir(parent / "link");  // what a run opens before it simulates
    CHECK(dir.folder() == parent / "elsewhere" / "target");
    dir.write("summary.json", "{}");
    dir.commit();
  }
  CHECK(fs::is_symlink(parent / "link"));
  CHECK(slurp(parent / "link" / "summary.json") == "{}");
  // DIR, DIR/ and a symlink to DIR are one folder, with one lock.
  fs::create_directory_symlink(parent / "elsewhere" / "target", parent / "alias");
  CHECK(resolve_results_folder(parent / "alias", "alias") == parent / "elsewhere" / "target");
  CHECK(resolve_results_folder(parent.string() + "/elsewhere/target/", "x") == parent / "elsewhere" / "target");
  ResultsDir held(parent / "link");
  CHECK(message_of([&] { ResultsDir second(parent / "alias/"); }).find("another edgetrain run") != std::string::npos);
  // A symlink loop is one line.
  fs::create_symlink(parent / "loop-b", parent / "loop-a");
  fs::create_symlink(parent / "loop-a", parent / "loop-b");
  CHECK(message_of([&] { ResultsDir loop(parent / "loop-a"); }).find("too many levels of symbolic links") !=
        std::string::npos);
}
