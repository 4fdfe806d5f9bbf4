// `edgetrain compare RUN_DIR RUN_DIR... [--format text|json] [--all]`: runs side by side, the
// speed-up of each against the first, and what differs between their resolved scenarios
// (src/report/compare.hpp). Exit 2 with one line when an argument or a folder is wrong.
#include "cli/commands.hpp"

#include <cstdio>
#include <exception>
#include <iostream>

#include "report/compare.hpp"
#include "scenario/schema_default.hpp"
#include "util/printable.hpp"

namespace edgetrain::cli {

namespace {

constexpr const char* kHelp =
    "usage: edgetrain compare RUN_DIR RUN_DIR... [--format text|json] [--all]\n"
    "Shows the runs side by side (status, time to target, rounds, simulated time, bytes up and down,\n"
    "final and best accuracy, energy when a run's summary has energy_j), the speed-up of each against\n"
    "the first (on time to target when the first run reached its target, else on simulated time), and\n"
    "the keys in which their resolved scenarios differ once defaults are applied, by dotted path (a key\n"
    "one run's scenario.json lacks, such as another mode's, counts as its default, marked \"(default)\").\n"
    "  --format text|json  a table (default) or one JSON document\n"
    "  --all               list every differing key (the table stops after 40)\n";

constexpr size_t kShownDifferences = 40;

int fail(const std::string& message) {
  std::fprintf(stderr, "edgetrain compare: %s (see edgetrain compare --help)\n", message.c_str());
  return 2;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  std::vector<std::string> folders;
  std::string format = "text";
  bool all = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return 0;
    } else if (a == "--all") {
      all = true;
    } else if (a == "--format" || a.rfind("--format=", 0) == 0) {
      if (a == "--format" && i + 1 == args.size()) return fail("--format needs a value (text or json)");
      format = a == "--format" ? args[++i] : a.substr(9);
      if (format != "text" && format != "json")
        return fail("--format: expected text or json, got \"" + util::printable(format) + "\"");
    } else if (a.size() > 1 && a[0] == '-') {
      return fail("unknown option \"" + util::printable(a) + "\"");
    } else {
      folders.push_back(a);
    }
  }
  if (folders.size() < 2) return fail("expected at least two RUN_DIRs to compare");
  try {
    std::vector<report::RunRecord> runs;
    for (const std::string& f : folders) runs.push_back(report::load_run_record(f));
    const report::Comparison c = report::compare_runs(runs, scenario::schema_default, scenario::null_is_off);
    if (format == "json") {
      std::cout << report::to_json(c).dump(2) << "\n";
    } else {
      std::cout << report::format_text(c, all ? 0 : kShownDifferences);
    }
    return 0;
  } catch (const report::CompareError& e) {
    std::fprintf(stderr, "edgetrain compare: %s\n", e.what());
    return 2;
  }
}

}  // namespace edgetrain::cli
