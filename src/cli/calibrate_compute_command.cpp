// `edgetrain calibrate-compute [-o PROFILE.json] [--repeats N]`: times real LibTorch training steps of
// the built-in models on this machine and writes the fitted compute profile (backend/compute_calibration.hpp),
// for `edgetrain cost --device PROFILE.json`. Exit status 0, or 2 for bad input with one line on stderr.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <regex>

#include "backend/compute_calibration.hpp"
#include "cli/commands.hpp"
#include "report/output_file.hpp"
#include "util/input_error.hpp"
#include "util/printable.hpp"

namespace edgetrain::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage = "usage: edgetrain calibrate-compute [-o PROFILE.json] [--repeats N]\n";

po::options_description options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("out,o", po::value<std::string>(), "the profile file (default: stdout)")(
      "repeats", po::value<std::string>(), "timed steps per configuration, the fastest kept (1 to 100, at least 5 are timed; default 5)");
  return o;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "edgetrain calibrate-compute: %s\n", util::printable(message).c_str());
  return 2;
}

}  // namespace

int calibrate_compute_command(const std::vector<std::string>& args) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options()).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "edgetrain calibrate-compute: %s\n%s", util::printable(e.what()).c_str(), kUsage);
    return 2;
  }
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << options();
    return 0;
  }
  int repeats = 5;
  if (vm.count("repeats")) {
    const std::string r = vm["repeats"].as<std::string>();
    if (!std::regex_match(r, std::regex("[0-9]{1,3}")) || std::stoi(r) < 1 || std::stoi(r) > 100)
      return fail("--repeats: expected an integer from 1 to 100, got \"" + r + "\"");
    repeats = std::stoi(r);
  }
  try {
    const std::string json = backend::calibration_json(backend::calibrate_compute(repeats));
    if (vm.count("out")) {
      const std::string out = vm["out"].as<std::string>();
      report::write_output(out, json, out);
    } else {
      std::cout << json;
    }
    return 0;
  } catch (const util::InputError& e) {
    return fail(dynamic_cast<const std::exception&>(e).what());
  }
}

}  // namespace edgetrain::cli
