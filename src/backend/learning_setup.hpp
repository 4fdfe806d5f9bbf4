// Translates the scenario's dataset, partition and model sections into `learn` objects.
// Kept apart from the actors so `edgetrain validate` can check them without simulating.
#pragma once

#include "learn/dataset.hpp"
#include "learn/known_data.hpp"
#include "learn/model.hpp"
#include "learn/partition.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

learn::DatasetPair load_data(const scenario::Scenario& scenario);
// What load_data will return, from the scenario and the IDX headers only (nothing loaded).
learn::DatasetShape data_shape(const scenario::Scenario& scenario);
// Timing-only runs: what the scenario's data set holds, known without reading it.
learn::KnownData known_data(const scenario::Scenario& scenario);
learn::ModelConfig model_config(const scenario::Scenario& scenario, const learn::DatasetShape& data);
// Each device's part of the training set (dataset.partition; PartitionError for one that cannot be made).
learn::DeviceParts partition_data(const scenario::Scenario& scenario, const learn::Dataset& train);
// Timing-only runs: the same partition of `shape.train_samples` samples whose labels are taken
// as balanced (sample i has label i mod classes, as in Fashion-MNIST), so label-skewed kinds
// still give realistic partition sizes without reading any data.
learn::DeviceParts partition_counts(const scenario::Scenario& scenario, const learn::DatasetShape& shape);

}  // namespace edgetrain::backend
