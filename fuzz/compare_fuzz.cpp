// Fuzz target: the C++ reader of results files (`edgetrain compare`): two summary.json texts and a
// scenario.json text, separated by NUL bytes, through report::parse_run_file, then compared
// (compare_runs, the table, the JSON). Any text is refused with one CompareError line naming the
// file, or compared; the comparison never throws nor crashes, whatever the documents hold.
// fuzz.sh: -max_len=4096
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "report/compare.hpp"

namespace {

[[noreturn]] void failure(const char* what, const std::string& detail) {
  std::fprintf(stderr, "compare_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string parts[3];
  size_t start = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? text.find('\0', start) : std::string_view::npos;
    parts[i] = std::string(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  using edgetrain::report::RunRecord;
  std::vector<RunRecord> runs(2);
  try {
    for (int i = 0; i < 2; ++i) {
      runs[i].folder = "run" + std::to_string(i);
      runs[i].summary = edgetrain::report::parse_run_file(parts[i], runs[i].folder + "/summary.json");
      runs[i].scenario = edgetrain::report::parse_run_file(parts[2].empty() ? "{}" : parts[2], "scenario.json");
    }
  } catch (const edgetrain::report::CompareError& e) {
    const std::string_view message = e.what();
    bool one_line = message.size() > 5;
    for (const char c : message) one_line = one_line && !(c >= 0 && c < 0x20);
    if (!one_line) failure("not one printable line", e.what());
    return 0;
  }
  if (!runs[0].summary.is_object() || !runs[1].summary.is_object()) return 0;  // load_run_record refuses these
  const edgetrain::report::Comparison c = edgetrain::report::compare_runs(runs);
  edgetrain::report::format_text(c, 40);
  edgetrain::report::to_json(c).dump();
  return 0;
}
