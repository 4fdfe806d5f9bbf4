// See population_csv.hpp.
#include "report/population_csv.hpp"

#include <map>

#include "report/csv.hpp"

namespace edgetrain::report {
namespace {

struct Totals {
  int64_t devices = 0, took_part = 0, rounds_selected = 0, rounds_aggregated = 0, steps = 0, samples_trained = 0,
          late_pushes = 0, bytes_up = 0, bytes_down = 0;
  double compute_s = 0, comm_s = 0, wait_s = 0, unselected_s = 0;
  void add(const DeviceRecord& d) {
    devices += 1;
    took_part += d.rounds_selected > 0 ? 1 : 0;
    rounds_selected += d.rounds_selected;
    rounds_aggregated += d.rounds_aggregated;
    steps += d.steps;
    samples_trained += d.samples_trained;
    late_pushes += d.late_pushes;
    bytes_up += d.bytes_up;
    bytes_down += d.bytes_down;
    compute_s += d.compute_s;
    comm_s += d.comm_s;
    wait_s += d.wait_s;
    unselected_s += d.unselected_s;
  }
};

// Groups in order of first appearance.
struct Groups {
  std::vector<std::string> order;
  std::map<std::string, Totals> totals;
  void add(const std::string& name, const DeviceRecord& d) {
    auto [it, added] = totals.try_emplace(name);
    if (added) order.push_back(name);
    it->second.add(d);
  }
};

}  // namespace

std::string population_csv(const std::vector<DeviceRecord>& devices) {
  Groups classes, sites;
  Totals all;
  for (const DeviceRecord& d : devices) {
    classes.add(d.device_class, d);
    sites.add(d.host, d);
    all.add(d);
  }
  CsvTable t({"group", "name", "devices", "devices_took_part", "rounds_selected", "rounds_aggregated", "steps",
              "samples_trained", "late_pushes", "compute_s", "comm_s", "wait_s", "unselected_s", "bytes_up",
              "bytes_down"});
  auto row = [&t](const char* group, const std::string& name, const Totals& x) {
    t.row()
        .add(std::string(group))
        .add(name)
        .add(x.devices)
        .add(x.took_part)
        .add(x.rounds_selected)
        .add(x.rounds_aggregated)
        .add(x.steps)
        .add(x.samples_trained)
        .add(x.late_pushes)
        .add(x.compute_s)
        .add(x.comm_s)
        .add(x.wait_s)
        .add(x.unselected_s)
        .add(x.bytes_up)
        .add(x.bytes_down);
  };
  for (const std::string& c : classes.order) row("class", c, classes.totals.at(c));
  for (const std::string& s : sites.order) row("site", s, sites.totals.at(s));
  row("all", "", all);
  return t.str();
}

}  // namespace edgetrain::report
