// `edgetrain calibrate PLATFORM.xml -o CALIBRATION.json [--server HOST] [--quiet] [--cfg=...]`:
// times the platform's route classes under ns-3's TCP and the flow model, fits the flow model's
// correction (sim/calibrate/calibrate.hpp) and writes it with its before/after table, which it
// also prints. A scenario applies it with the key network.calibration. Exit status 0, 2 for bad
// input (one line), 130 interrupted (nothing written).
#include "cli/commands.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>

#include "cli/scenario_command.hpp"
#include "report/output_file.hpp"
#include "sim/calibrate/calibrate.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: edgetrain calibrate PLATFORM.xml -o CALIBRATION.json [--server HOST] [--max-bytes N] [--quiet] "
    "[--cfg=...]\n";

po::options_description options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("out,o", po::value<std::string>(), "the calibration file to write")(
      "server", po::value<std::string>(),
      "the aggregator's host: calibrate the routes to and from it (needed above 100 hosts; default: "
      "every pair of hosts)")("max-bytes", po::value<double>(),
                              "the largest message measured, 100000 to 20000000 (default 20000000)")(
      "quiet", "no progress lines");
  return o;
}

}  // namespace

int calibrate_command(const std::vector<std::string>& words) {
  sim::CalibrateOptions run;
  po::variables_map vm;
  try {
    std::vector<std::string> rest;
    for (const std::string& w : words) (simgrid_flag(w) ? run.simgrid_args : rest).push_back(w);
    po::options_description all;
    all.add(options()).add_options()("platform", po::value<std::string>());
    po::positional_options_description positional;
    positional.add("platform", 1);
    po::store(po::command_line_parser(rest).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << kUsage << "\n" << options();
      return 0;
    }
    if (!vm.count("platform")) throw po::error("missing PLATFORM.xml");
    if (!vm.count("out")) throw po::error("missing -o CALIBRATION.json");
    if (vm.count("max-bytes")) {
      run.max_bytes = vm["max-bytes"].as<double>();
      if (!(run.max_bytes >= 1e5 && run.max_bytes <= 2e7))
        throw po::error("--max-bytes: must be from 100000 to 20000000");
    }
  } catch (const po::error& e) {
    std::fprintf(stderr, "edgetrain calibrate: %s\n%s", e.what(), kUsage);
    return 2;
  }
  run.platform = vm["platform"].as<std::string>();
  if (vm.count("server")) run.server = vm["server"].as<std::string>();
  run.quiet = vm.count("quiet") > 0;
  try {
    const packet::Calibration calibration = sim::calibrate_platform(run);
    report::write_output(vm["out"].as<std::string>(), packet::calibration_text(calibration), vm["out"].as<std::string>(),
                         {run.platform});
    std::printf("%s", sim::calibration_summary(calibration).c_str());
    std::printf("calibration: %s\n", vm["out"].as<std::string>().c_str());
    return 0;
  } catch (const util::Interrupted& e) {
    return fail(std::string(e.what()) + " (nothing was written)", 130);
  } catch (const std::exception& e) {
    return input_or_internal(e);
  }
}

}  // namespace edgetrain::cli
