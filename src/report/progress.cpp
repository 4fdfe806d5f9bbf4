// See progress.hpp.
#include "report/progress.hpp"

#include <cmath>
#include <cstdio>

namespace edgetrain::report {

std::string human_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000 && u < 4) {
    bytes /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

void Progress::on_eval(const EvalPoint& p) {
  if (quiet_) return;
  const auto now = std::chrono::steady_clock::now();
  if (last_.time_since_epoch().count() != 0 && now - last_ < std::chrono::seconds(1)) return;
  last_ = now;
  std::fprintf(stderr, "  sim %9.1f s  round %6ld  test acc %.4f  loss %.4f  up %s  down %s\n", p.sim_time_s,
               static_cast<long>(p.round), p.test_accuracy, p.test_loss, human_bytes(p.bytes_up).c_str(),
               human_bytes(p.bytes_down).c_str());
}

namespace {
std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}
}  // namespace

std::string summary_text(const RunSummary& s, const std::string& out_dir) {
  char accuracy[128] = "test accuracy: not computed (timing-only run)";
  if (!std::isnan(s.best_test_accuracy)) {
    std::snprintf(accuracy, sizeof accuracy, "test accuracy: final %.4f, best %.4f   time to target: %s",
                  s.final_test_accuracy, s.best_test_accuracy,
                  s.time_to_target_s ? format_seconds(*s.time_to_target_s).c_str() : "not reached");
  }
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "status: %s (%s)\nrounds: %ld   simulated time: %.2f s   wall time: %.1f s\n%s\n"
                "bytes up: %s   bytes down: %s   model parameters: %ld\nresults: %s\n",
                s.status.c_str(), s.status_reason.c_str(), static_cast<long>(s.rounds), s.sim_time_s, s.wall_time_s,
                accuracy, human_bytes(static_cast<double>(s.bytes_up)).c_str(),
                human_bytes(static_cast<double>(s.bytes_down)).c_str(), static_cast<long>(s.model_params),
                out_dir.c_str());
  return buf;
}

}  // namespace edgetrain::report
