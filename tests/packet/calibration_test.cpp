// A calibration file reads back as it was written (issue: a fit at the edge of its grid wrote an
// efficiency of 1.0000000000000004, which every run then refused).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "packet/calibration.hpp"
#include "packet/tcp_model.hpp"

using namespace edgetrain::packet;

namespace {

// Points a path of the given shape would measure, were TCP exactly `truth`.
std::vector<LonePoint> points_of(const TcpModel& truth, double one_way_s, double bottleneck_Bps) {
  std::vector<LonePoint> points;
  for (double bytes : {1e4, 1e5, 4e5, 1e6, 4e6, 2e7})
    points.push_back({bytes, one_way_s, bottleneck_Bps, truth.lone_transfer_s(bytes, one_way_s, bottleneck_Bps)});
  return points;
}

// What calibrate records beside the model (runs read its summary for their fidelity band).
nlohmann::json measured() {
  const nlohmann::json pair = {{"flow", 0.2}, {"calibrated", 0.03}};
  return {{"single", nlohmann::json::array()},
          {"concurrent", nlohmann::json::array()},
          {"summary",
           {{"single_fitted_max_abs_error", pair},
            {"single_held_out_max_abs_error", pair},
            {"round_max_abs_error", pair},
            {"round_max_abs_error_to_queue_range", pair},
            {"coverage", {{"lone_bytes", {1e4, 2e7}}, {"round_flows", 8}, {"round_bytes", nullptr}}}}}};
}

Calibration read_back(Calibration c) {
  c.report = measured();
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("edgetrain-calibration-" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << calibration_text(c);
  Calibration back = read_calibration(file);
  std::filesystem::remove(file);
  return back;
}

}  // namespace

TEST_CASE("a fit at the grid's edges stays inside the bounds a calibration file is read with") {
  // A path that carries its whole frame rate: the best rate factor is the grid's last point, 1.
  const TcpModel truth;
  const TcpModel fit = fit_tcp_model(points_of(truth, 0.075, 10e6 / 8), TcpModel{});
  CHECK(fit.rate_factor == 1);
  Calibration c;
  c.platform = "platform.xml";
  c.fingerprint = "f";
  c.model = fit;
  TcpModel slower = fit;
  slower.rate_factor = 0.8;
  c.classes.push_back({{{10e6 / 8, 0.05}, {20e6 / 8, 0.025}}, "a -> b", slower});
  const Calibration back = read_back(c);
  CHECK(back.model.rate_factor == fit.rate_factor);
  // A route of the class takes its own model; any other route the one fitted to every class.
  CHECK(back.model_of(c.classes[0].links).rate_factor == 0.8);
  CHECK(back.target_s(1e6, c.classes[0].links) == doctest::Approx(slower.lone_transfer_s(1e6, 0.075, 10e6 / 8)));
  CHECK(back.target_s(1e6, {{10e6 / 8, 0.075}}) == fit.lone_transfer_s(1e6, 0.075, 10e6 / 8));
  c.report = measured();
  CHECK(calibration_text(back) == calibration_text(c));
}

TEST_CASE("the fit is continuous in the message size: a rate it was made from is found again, and it holds at "
          "sizes it never saw") {
  TcpModel truth;
  truth.rate_factor = 0.87;
  const TcpModel fit = fit_tcp_model(points_of(truth, 0.03, 5e6 / 8), TcpModel{});
  CHECK(fit.rate_factor == doctest::Approx(0.87));
  for (double bytes = 11e3; bytes < 2e7; bytes *= 1.37)
    CHECK(fit.lone_transfer_s(bytes, 0.03, 5e6 / 8) == doctest::Approx(truth.lone_transfer_s(bytes, 0.03, 5e6 / 8)));
}

TEST_CASE("the model's slow start: round trips while the window grows, then the link's frame rate") {
  const TcpModel m;
  const double rtt = 0.058, rate = 100e6 / 8;
  // Ten segments leave at once: one round trip and the frames' time.
  CHECK(m.lone_transfer_s(10 * 1448, rtt / 2, rate) == doctest::Approx(rtt / 2 + 10 * 1502 / rate));
  // Eleven: the first acknowledgement (the receiver acknowledges the first segment at once) releases
  // the eleventh, a round trip later.
  CHECK(m.lone_transfer_s(11 * 1448, rtt / 2, rate) == doctest::Approx(rtt / 2 + rtt + 2 * 1502 / rate));
  // A long transfer ends at the frame rate, its slow start a few round trips more.
  const double bulk = m.lone_transfer_s(2e8, rtt / 2, rate);
  CHECK(bulk > 2e8 / (rate * 1448 / 1502));
  CHECK(bulk < 2e8 / (rate * 1448 / 1502) + 10 * rtt);
  // Never faster than CM02 (latency + size / bandwidth), and growing with the size.
  for (double bytes = 1e3; bytes < 1e8; bytes *= 1.9) {
    CHECK(m.lone_transfer_s(bytes, 0.02, 1e6) > 0.02 + bytes / 1e6);
    CHECK(m.lone_transfer_s(bytes * 1.9, 0.02, 1e6) > m.lone_transfer_s(bytes, 0.02, 1e6));
  }
}

TEST_CASE("a calibration whose coverage a run cannot read is refused in one line") {
  Calibration c;
  c.platform = "p";
  c.fingerprint = "f";
  for (const nlohmann::json& cover : {nlohmann::json("all"), nlohmann::json{{"lone_bytes", {2e7, 1e4}}, {"round_flows", 8}, {"round_bytes", nullptr}},
                                      nlohmann::json{{"lone_bytes", {1e4, 2e7}}, {"round_flows", -1}, {"round_bytes", nullptr}},
                                      nlohmann::json{{"lone_bytes", {1e4, 2e7}}, {"round_flows", 8}}}) {
    CAPTURE(cover.dump());
    nlohmann::json report = measured();
    report["summary"]["coverage"] = cover;
    c.report = report;
    const std::filesystem::path file =
        std::filesystem::temp_directory_path() / ("edgetrain-coverage-" + std::to_string(getpid()) + ".json");
    std::ofstream(file) << calibration_text(c);
    CHECK_THROWS_WITH_AS(read_calibration(file), doctest::Contains("summary.coverage"), CalibrationError);
    std::filesystem::remove(file);
  }
}

TEST_CASE("a calibration of the former format (ratio tables) is refused with what to do") {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("edgetrain-old-calibration-" + std::to_string(getpid()) + ".json");
  std::ofstream(file) << R"({"format": "edgetrain calibration 1", "classes": []})";
  CHECK_THROWS_WITH_AS(read_calibration(file), doctest::Contains("run edgetrain calibrate again"), CalibrationError);
  std::filesystem::remove(file);
}

TEST_CASE("every grid point of the fit reads back from a calibration file") {
  for (double factor : {0.5, 0.734, 0.998, 1.0}) {
    TcpModel truth;
    truth.rate_factor = factor;
    Calibration c;
    c.platform = "p";
    c.fingerprint = "f";
    c.model = fit_tcp_model(points_of(truth, 0.02, 1e6), TcpModel{});
    CHECK(c.model.rate_factor == doctest::Approx(factor));
    CHECK(read_back(c).model.rate_factor == c.model.rate_factor);
  }
}
