// The typed, validated scenario: what a run simulates. Produced by load_scenario() from the
// user's JSON (plus --set overrides), with every default filled in and every unit resolved
// to SI (seconds, bytes, flops, bits per second). Nothing here knows SimGrid or LibTorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace edgetrain::scenario {

struct PartitionSpec {
  std::string kind = "iid";       // iid | shards | dirichlet
  int64_t labels_per_device = 2;  // shards: k distinct labels per device
  double alpha = 0.5;             // dirichlet concentration
};

struct DatasetSpec {
  std::string name;            // fashion-mnist | mnist | synthetic
  std::filesystem::path path;  // IDX folder (absolute after loading); empty for synthetic
  int64_t train_samples = 0;   // 0 = the whole training set (files); synthetic: how many
  // Synthetic only: sample shape and class count, and the spread of each class cluster.
  std::vector<int64_t> shape{1, 28, 28};
  int64_t classes = 10;
  double noise = 1.0;
  PartitionSpec partition;
};

struct ModelSpec {
  std::string name = "mlp";                    // mlp | cnn
  std::vector<int64_t> hidden;                 // hidden widths; empty = model default
  std::vector<int64_t> conv_channels{10, 20};  // cnn only
};

struct TrainingSpec {
  std::string mode = "sync";
  int64_t batch_size = 32;
  double lr = 0.05;
  double momentum = 0.0;
  double weight_decay = 0.0;
};

struct EvalSpec {
  double every_s = 5.0;
  int64_t test_samples = 10000;
};

struct StopSpec {
  std::optional<int64_t> rounds;
  std::optional<double> sim_time_s;
  std::optional<double> target_accuracy;
};

struct DeviceSpec {
  std::string name;  // unique device id (defaults to the host name)
  std::string host;  // platform host it runs on
};

struct Scenario {
  std::string name;
  uint64_t seed = 1;
  std::filesystem::path file;      // the scenario file (absolute)
  std::filesystem::path platform;  // absolute
  std::string server;
  std::vector<DeviceSpec> devices;
  DatasetSpec dataset;
  ModelSpec model;
  TrainingSpec training;
  EvalSpec eval;
  StopSpec stop;
  nlohmann::json resolved;  // the whole scenario with defaults filled in (written as scenario.json)
};

}  // namespace edgetrain::scenario
