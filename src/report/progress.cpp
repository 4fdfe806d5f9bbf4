// See progress.hpp.
#include "report/progress.hpp"

#include <pthread.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

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

namespace {

using Clock = std::chrono::steady_clock;

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

// Columns of the terminal on stderr; 0 when unknown.
size_t terminal_columns() {
  winsize size{};
  return ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
}

// "12.3 kJ", "456 J": joules with an SI prefix, three significant digits.
std::string format_joules(double joules) {
  char text[48];
  if (joules >= 1e6) {
    std::snprintf(text, sizeof text, "%.3g MJ", joules / 1e6);
  } else if (joules >= 1e3) {
    std::snprintf(text, sizeof text, "%.3g kJ", joules / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.3g J", joules);
  }
  return text;
}

}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string human_duration(double seconds) {
  char buf[48];
  if (seconds < 10) {
    std::snprintf(buf, sizeof buf, "%.1f s", seconds);
  } else if (seconds < 60) {
    std::snprintf(buf, sizeof buf, "%.0f s", seconds);
  } else if (seconds < 3600) {
    const auto s = static_cast<long long>(seconds);
    std::snprintf(buf, sizeof buf, "%lld min %02lld s", s / 60, s % 60);
  } else {
    const auto m = static_cast<long long>(std::min(seconds, 1e15) / 60);
    std::snprintf(buf, sizeof buf, "%lld h %02lld min", m / 60, m % 60);
  }
  return buf;
}

std::optional<double> Progress::time_left_s(const ProgressPoint& point, const ProgressLimits& limits, double wall_s) {
  double done = 0;  // the largest fraction of a stop condition reached
  if (limits.rounds && *limits.rounds > 0) {
    done = std::max(done, static_cast<double>(point.updates) / static_cast<double>(*limits.rounds));
  }
  if (limits.sim_time_s && *limits.sim_time_s > 0) done = std::max(done, point.sim_time_s / *limits.sim_time_s);
  if (!(done >= kMinDoneForEstimate)) return std::nullopt;  // too early: the first instants say nothing
  done = std::min(done, 1.0);
  return wall_s * (1 - done) / done;
}

std::string Progress::line(const ProgressPoint& point, const ProgressLimits& limits, double wall_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "sim %.1f s", point.sim_time_s);
  std::string out = buf;
  out += std::string(limits.pushes ? "  push " : "  round ") + std::to_string(point.updates);
  if (limits.rounds) out += "/" + std::to_string(*limits.rounds);
  if (limits.evaluates) {
    if (point.test_accuracy) {
      std::snprintf(buf, sizeof buf, "  test acc %.4f", *point.test_accuracy);
      out += buf;
    } else {
      out += "  test acc -";
    }
  }
  out += "  wall " + human_duration(wall_s);
  const std::optional<double> left = time_left_s(point, limits, wall_s);
  out += "  left " + (left ? human_duration(*left) : std::string("?"));
  return out;
}

std::string Progress::json_line(const ProgressPoint& point, const ProgressLimits& limits, double wall_s) {
  auto or_null = [](const auto& value) { return value ? nlohmann::json(*value) : nlohmann::json(nullptr); };
  return nlohmann::json{{"sim_time_s", point.sim_time_s},
                        {"updates", point.updates},
                        {"pushes", limits.pushes},
                        {"rounds", or_null(limits.rounds)},
                        {"sim_time_limit_s", or_null(limits.sim_time_s)},
                        {"test_accuracy", or_null(point.test_accuracy)},
                        {"wall_s", wall_s},
                        {"left_s", or_null(time_left_s(point, limits, wall_s))}}
      .dump();
}

bool Progress::write_json(const std::string& text) const {
  // A reader that went away must not end the run (SIGPIPE's default): the signal is held back around
  // the write and the one it raised is taken, and the lines stop. Any other failure drops the line.
  sigset_t pipe{}, before{};
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, &before);
  const bool gone = ::write(json_fd_, text.data(), text.size()) < 0 && errno == EPIPE;
  if (gone) {
    const timespec now{};
    sigtimedwait(&pipe, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return !gone;
}

Progress::Progress(bool enabled, const ProgressLimits& limits, int json_fd)
    : enabled_(enabled), json_fd_(json_fd), limits_(limits), start_(Clock::now()) {}

Progress::~Progress() { clear(); }

void Progress::update(const ProgressPoint& point) {
  if (!enabled()) return;
  const Clock::time_point now = Clock::now();
  if (last_ != Clock::time_point{} && now - last_ < std::chrono::milliseconds(1000 / kRedrawsPerSecond)) return;
  last_ = now;
  const double wall_s = std::chrono::duration<double>(now - start_).count();
  if (json_fd_ >= 0 && !write_json(json_line(point, limits_, wall_s) + "\n")) json_fd_ = -1;
  if (!enabled_) return;
  std::string text = line(point, limits_, wall_s);
  // Never wider than the terminal: a wrapped line could not be rewritten in place.
  const size_t columns = terminal_columns();
  if (columns > 1 && text.size() >= columns) text.resize(columns - 1);
  const size_t length = text.size();
  if (length < shown_) text.append(shown_ - length, ' ');  // cover the end of a longer previous line
  std::fprintf(stderr, "\r%s", text.c_str());
  std::fflush(stderr);
  shown_ = std::max<size_t>(length, 1);
}

void Progress::clear() {
  if (shown_ == 0) return;
  std::fprintf(stderr, "\r%s\r", std::string(shown_, ' ').c_str());
  std::fflush(stderr);
  shown_ = 0;
}

std::string summary_text(const RunSummary& s, const std::string& out_dir) {
  char accuracy[128] = "test accuracy: not computed (timing-only run)";
  if (!std::isnan(s.best_test_accuracy)) {
    std::snprintf(accuracy, sizeof accuracy, "test accuracy: final %.4f, best %.4f   time to target: %s",
                  s.final_test_accuracy, s.best_test_accuracy,
                  s.time_to_target_s ? format_seconds(*s.time_to_target_s).c_str() : "not reached");
  }
  // A round's duration (summary.json's round_s), when the run has rounds.
  std::string round_line;
  const auto round = s.extra.find("round_s");
  if (round != s.extra.end() && round->is_object()) {
    char line[160];
    std::snprintf(line, sizeof line, "round time: mean %.2f s, median %.2f s, p95 %.2f s, max %.2f s\n",
                  round->at("mean").get<double>(), round->at("median").get<double>(), round->at("p95").get<double>(),
                  round->at("max").get<double>());
    round_line = line;
  }
  // Runs with sites: bytes up and down are the devices'; what each level carried follows.
  std::string level_line;
  const auto levels = s.extra.find("bytes_by_level");
  if (levels != s.extra.end() && levels->is_object()) {
    auto bytes = [&](const char* key) { return human_bytes(levels->at(key).get<double>()); };
    level_line = "bytes by level: device -> site " + bytes("device_to_site") + ", site -> cloud " +
                 bytes("site_to_cloud") + ", cloud -> site " + bytes("cloud_to_site") + ", site -> device " +
                 bytes("site_to_device") + "\n";
  }
  // privacy.dp: the epsilon the run spent (summary.json's privacy.epsilon; infinite is written null).
  std::string privacy_line;
  const auto privacy = s.extra.find("privacy");
  if (privacy != s.extra.end() && privacy->is_object() && privacy->contains("epsilon")) {
    const nlohmann::json& epsilon = privacy->at("epsilon");
    char value[32] = "infinite";
    if (epsilon.is_number()) std::snprintf(value, sizeof value, "%.4g", epsilon.get<double>());
    char line[160];
    const auto releases = privacy->at("dp").at("releases_accounted").get<int64_t>();
    std::snprintf(line, sizeof line, "privacy: epsilon %s at delta %.3g (%s DP, %ld release%s accounted)\n", value,
                  privacy->at("delta").get<double>(), privacy->at("dp").at("placement").get<std::string>().c_str(),
                  static_cast<long>(releases), releases == 1 ? "" : "s");
    privacy_line = line;
  }
  // Platforms with wattages: the whole run's energy, and the devices that took part beside the fleet's.
  std::string energy_line;
  const auto energy = s.extra.find("energy");
  if (energy != s.extra.end() && energy->is_object() && energy->value("total_j", nlohmann::json()).is_number()) {
    energy_line = "energy: total " + format_joules(energy->at("total_j").get<double>());
    const nlohmann::json& devices = energy->value("devices_j", nlohmann::json());
    const nlohmann::json& participants = energy->value("participants_j", nlohmann::json());
    if (devices.is_number()) energy_line += "; devices " + format_joules(devices.get<double>());
    if (participants.is_number())
      energy_line += ", of which the " + std::to_string(energy->value("participants", int64_t{0})) +
                     " that took part " + format_joules(participants.get<double>());
    energy_line += "\n";
  }
  char buf[1280];
  std::snprintf(buf, sizeof buf,
                "status: %s (%s)\nrounds: %ld   simulated time: %.2f s   wall time: %.1f s\n%s%s\n"
                "bytes up: %s   bytes down: %s   model parameters: %ld\n%s%s%sresults: %s\n",
                s.status.c_str(), s.status_reason.c_str(), static_cast<long>(s.rounds), s.sim_time_s, s.wall_time_s,
                round_line.c_str(), accuracy, human_bytes(static_cast<double>(s.bytes_up)).c_str(),
                human_bytes(static_cast<double>(s.bytes_down)).c_str(), static_cast<long>(s.model_params),
                level_line.c_str(), privacy_line.c_str(), energy_line.c_str(), out_dir.c_str());
  return buf;
}

}  // namespace edgetrain::report
