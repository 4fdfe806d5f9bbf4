// buffers.csv and buffers_fleet.csv streamed to disk as the run goes (report/buffer_streams.hpp):
// the same rows as before (at most one per device per interval, plus the final row), the fleet
// series identical to the one computed from all rows at the end, many more rows than one write
// holds, and a write error reported by close() with the file's name.
#include "report/buffer_streams.hpp"

#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/output_file.hpp"

using namespace edgetrain::report;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path = fs::temp_directory_path() / ("edgetrain-buffers-" + std::to_string(::getpid()));
  Folder() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Folder() { fs::remove_all(path); }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("buffer streams keep at most one row per device per interval plus the final row") {
  const Folder f;
  BufferStreams t(1.0);
  t.open(f.path, "out", "no results were written");
  for (int k = 0; k < 10; ++k) t.record(0, BufferPoint{0.25 * k, "a", k, 0, 0, 0, 0});
  t.record(1, BufferPoint{0.1, "b", 1, 0, 0, 0, 0});
  t.finish(0, BufferPoint{2.3, "a", 99, 0, 0, 0, 0});
  t.close(2.3);
  const auto rows = lines(f.read("buffers.csv"));
  CHECK(rows == std::vector<std::string>{"sim_time_s,device,buffered_samples,buffered_bytes,arrived,taken,dropped",
                                         "0,a,0,0,0,0,0", "1,a,4,0,0,0,0", "2,a,8,0,0,0,0",
                                         "0.1,b,1,0,0,0,0", "2.3,a,99,0,0,0,0"});  // in the order recorded
  CHECK(lines(f.read("buffers_fleet.csv")) ==
        std::vector<std::string>{"sim_time_s,buffered_samples,buffered_bytes,arrived,taken,dropped", "0,0,0,0,0,0",
                                 "1,4,0,0,0,0", "2,9,0,0,0,0", "2.3,100,0,0,0,0"});
}

TEST_CASE("buffer streams: 20,000 intervals of two devices equal the series computed from every row at the end") {
  const Folder f;
  BufferStreams t(0.5);
  t.open(f.path, "out", "no results were written");
  std::vector<BufferPoint> all;
  for (int k = 0; k < 20000; ++k) {
    for (size_t d = 0; d < 2; ++d) {
      const BufferPoint p{0.5 * k + 0.25 * static_cast<double>(d), d ? "b" : "a", k % 7, 8 * (k % 7), k, k, 0};
      t.record(d, p);
      all.push_back(p);
    }
  }
  t.close(10000.3);
  const auto series = fleet_buffer_series(all, 0.5, 10000.3);
  CsvTable whole({"sim_time_s", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"});
  for (const auto& p : series)
    whole.row().add(p.sim_time_s).add(p.buffered_samples).add(p.buffered_bytes).add(p.arrived).add(p.taken).add(p.dropped);
  CHECK(f.read("buffers_fleet.csv") == whole.str());  // byte for byte, across many flushes
  CHECK(lines(f.read("buffers_fleet.csv")).size() == 20003);  // the header, 0, 0.5, ..., 10000 and the end
  CHECK(lines(f.read("buffers.csv")).size() == all.size() + 1);  // 0.5 s apart: every row kept
}

TEST_CASE("buffer streams: a write that fails is reported by close, naming the file") {
  const Folder f;
  BufferStreams t(1.0);
  t.open(f.path / "missing-folder", "out", "no results were written");
  t.record(0, BufferPoint{0, "a", 1, 0, 0, 0, 0});
  CHECK_THROWS_WITH_AS(t.close(1), "out/buffers.csv: cannot write: No such file or directory (no results were written)",
                       OutputError);
  BufferStreams quiet(1.0);  // never opened (a validation): rows are dropped
  quiet.record(0, BufferPoint{0, "a", 1, 0, 0, 0, 0});
  quiet.close(1);
}
