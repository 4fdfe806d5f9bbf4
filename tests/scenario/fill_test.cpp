// The typed fields of the rows (fill.hpp): every row says which field it fills, and a scenario
// built from the schema's defaults alone has the defaults the rows declare.
#include "scenario/fill.hpp"

#include <doctest/doctest.h>

#include "scenario/load.hpp"

using namespace edgetrain::scenario;

TEST_CASE("fill: every row fills a typed field, but sections, parts of a value and the global stream") {
  for (const auto& k : schema_keys()) {
    CAPTURE(k.path);
    // A section's own rows fill its struct; a part of a value is read by its key's resolver; the
    // global stream reaches the typed scenario through each device's stream (devices[].stream).
    const bool none =
        k.part_of_value || k.path == "stream" || k.path.rfind("stream.", 0) == 0 ||
        (k.type == ValueType::Section && k.path != "devices[].stream" && k.path != "faults" && k.path != "traces" &&
         k.path != "training.injection" && k.path != "compression.adaptive" && k.path != "compression.downlink" &&
         k.path != "privacy.dp" && k.path != "privacy.secure_aggregation" && k.path != "strategy" &&
         k.path != "defence" && k.path != "attack");
    CHECK(static_cast<bool>(k.fill) == !none);
    CHECK(static_cast<bool>(k.fill.entries) == (k.type == ValueType::EntryList));
  }
}

TEST_CASE("fill: the defaults of a scenario with no keys given are the rows' defaults") {
  const Scenario s = typed_defaults();
  CHECK(s.seed == 1);
  CHECK(s.devices.empty());
  CHECK(s.dataset.name.empty());
  CHECK(s.dataset.train_samples == 0);
  CHECK(s.dataset.shape == std::vector<int64_t>{1, 28, 28});
  CHECK(s.dataset.classes == 10);
  CHECK(s.dataset.partition.kind == "iid");
  CHECK(s.dataset.partition.labels_per_device == 2);
  CHECK(s.model.name == "mlp");
  CHECK(s.model.conv_channels == std::vector<int64_t>{10, 20});
  CHECK(s.training.compute == "real");
  CHECK(s.training.mode == "sync");
  CHECK(s.training.batch_size == 32);
  CHECK(s.training.lr == 0.05);
  CHECK(s.training.batch_max == 1024);
  CHECK(s.training.base_global_batch == 0);
  CHECK(s.training.weighting == "batch");
  CHECK(!s.training.injection);
  CHECK(!s.training.max_staleness);
  CHECK(s.training.staleness_history == 1000);
  CHECK(s.training.local_steps == 5);
  CHECK(s.training.server_lr == 1.0);
  CHECK(s.training.selection.kind == "all");
  CHECK(s.training.selection.exploration == 0.1);
  CHECK(s.training.selection.alpha == 2.0);
  CHECK(s.eval.every_s == 5.0);
  CHECK(s.eval.test_samples == 10000);
  CHECK(!s.stop.rounds);
  CHECK(s.report.buffer_every_s == 1.0);
  CHECK(s.compression.uplink.kind == "none");
  CHECK(s.compression.uplink.ratio == 0.01);
  CHECK(s.compression.uplink.levels == 16);
  CHECK(!s.compression.uplink.packed_indices);
  CHECK(!s.compression.adaptive);
  CHECK(!s.compression.downlink);
  CHECK(!s.faults);
  CHECK(s.topology.kind == "flat");
  CHECK(s.topology.graph == "ring");
  CHECK(s.topology.degree == 3);
  CHECK(s.topology.site_rounds == 1);
  CHECK(s.topology.cloud_aggregation == "sync");
  CHECK(s.topology.site_compression.kind == "none");
}
