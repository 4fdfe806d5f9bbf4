// The data sets a scenario can name (dataset.name), one row each: how its data is loaded, what it
// holds known before loading (for the memory estimate and timing-only runs), and whether it is the
// user's own files (whose sizes come from their headers, not from a published table). A new source
// is its reader in learn/ and its row in data_sources.cpp; learning_setup.cpp asks the table.
#pragma once

#include <string>
#include <string_view>

#include "learn/dataset.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

struct DataSource {
  std::string_view name;  // dataset.name
  learn::DatasetPair (*load)(const scenario::Scenario&);
  learn::DatasetShape (*shape)(const scenario::Scenario&);
  bool own_files = false;  // npz, images, leaf, fedscale: read from the user's files
};

// The row of `name`; the IDX row for fashion-mnist and mnist (the schema refuses any other name first).
const DataSource& data_source(const std::string& name);

}  // namespace edgetrain::backend
