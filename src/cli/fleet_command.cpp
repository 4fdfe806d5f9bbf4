// `edgetrain fleet FLEET.json -o PLATFORM.xml [--seed N]`: generates a SimGrid platform from a
// fleet description (src/fleet) and the device list beside it (PLATFORM.devices.csv). Exit status
// 0, or 2 for bad input, with one line on stderr; prints its own usage and help. Each output is
// written as report::write_output writes: a regular file through a temporary file and a rename (a
// reader, or a failed run, never sees half a platform), a character device or FIFO through.
#include "cli/commands.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "fleet/xml.hpp"
#include "report/output_file.hpp"
#include "scenario/load.hpp"
#include "util/input_error.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::cli {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

constexpr const char* kUsage = "usage: edgetrain fleet FLEET.json -o PLATFORM.xml [--seed N]\n";

po::options_description options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(),
      "the platform file to write; the device list goes beside it as PLATFORM.devices.csv")(
      "seed", po::value<std::string>(), "the seed of the draws (default: the description's \"seed\", else 1)");
  return o;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "edgetrain fleet: %s\n", util::printable(message).c_str());
  return 2;
}

}  // namespace

int fleet_command(const std::vector<std::string>& args) {
  po::variables_map vm;
  try {
    po::options_description all;
    all.add(options()).add_options()("description", po::value<std::string>());
    po::positional_options_description positional;
    positional.add("description", 1);
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
    if (vm.count("help")) {
      std::cout << kUsage << "\n" << options();
      return 0;
    }
    if (!vm.count("description")) throw po::error("missing FLEET.json");
    if (!vm.count("out")) throw po::error("missing -o PLATFORM.xml");
  } catch (const po::error& e) {
    std::fprintf(stderr, "edgetrain fleet: %s\n%s", util::printable(e.what()).c_str(), kUsage);
    return 2;
  }
  try {
    std::optional<uint64_t> seed_option;  // checked first: a bad option is reported before a bad file
    if (vm.count("seed")) seed_option = scenario::parse_seed_option(vm["seed"].as<std::string>());
    const std::string description = vm["description"].as<std::string>();
    const fleet::FleetSpec spec = fleet::load_fleet_file(description);
    fleet::check_host_per_device(spec, description);
    const uint64_t seed = seed_option.value_or(spec.seed);
    const fs::path out = vm["out"].as<std::string>();
    if (out.filename().empty() || fs::is_directory(out)) {
      return fail("-o " + out.string() + ": expected a file name such as platforms/NAME.xml");
    }
    // Checked before drawing. Neither output may be the description; the device list is not the
    // platform either. A platform written through a device or FIFO (-o /dev/stdout) has no
    // "beside": no device list then, and the messages go to stderr.
    const bool stream = report::check_output(out, out.string(), {description}).write_through;
    const fs::path devices = fleet::device_list_path(out);
    if (!stream) report::check_output(devices, devices.string(), {description, out});
    const fleet::Fleet drawn = fleet::draw_fleet(spec, seed);
    report::write_output(out, fleet::platform_xml(drawn), out.string(), {description});
    std::ostream& say = stream ? std::cerr : std::cout;
    say << fleet::describe_fleet(drawn);
    if (stream) {
      say << "wrote " << util::printable(out.string()) << " (no device list: it is not a regular file)\n";
      return 0;
    }
    report::write_output(devices, fleet::device_list_csv(drawn), devices.string(), {description, out});
    say << "wrote " << util::printable(out.string()) << " and " << util::printable(devices.string()) << "\n";
    return 0;
  } catch (const util::Interrupted& e) {
    std::fprintf(stderr, "edgetrain fleet: %s (nothing was written)\n", e.what());
    return 130;
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    if (dynamic_cast<const util::InputError*>(&e)) return fail(e.what());
    std::fprintf(stderr, "edgetrain fleet: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace edgetrain::cli
