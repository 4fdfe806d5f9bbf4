// The compressor kinds, one row each (kinds.cpp): everything that differs between kinds outside
// their family file is read from here: make_compressor builds from the row's factory, timing-only
// runs size messages with its formula, the scenario's `compression` keys offer its name, its
// settings and its default of error feedback, and the memory estimate counts what it keeps.
// A new kind is its encoder, factory and size formula in its family file (declared in
// family.hpp) and its row in kinds.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compress/family.hpp"

namespace edgetrain::compress {

// The settings of Config a kind may read, by scenario key: ratio, scope, index_bits (Config's
// packed_indices), threshold, levels, rank, bin_size.
enum class Setting { Ratio, Scope, IndexBits, Threshold, Levels, Rank, BinSize };

struct Kind {
  std::string name = {};         // compression.kind
  std::string description = {};  // one line, for the kind's key in the scenario table
  CompressorFactory* make = nullptr;
  // Timing-only size; nullptr when the size depends on the data (declared by timing_ratio).
  SizeFormula* payload_bytes = nullptr;
  std::vector<Setting> settings = {};  // what its factory and encoder read; it ignores the others
  // A biased scheme that needs the sender's error feedback: the scenario turns it on by default.
  bool feedback_by_default = false;
  // Its Encoded::indices hold the index sets it sent (empty for dense schemes).
  bool sends_indices = false;
  // Model-sized fp32 vectors the sender keeps beyond error feedback (adacomp-bins' residual).
  int64_t state_vectors = 0;

  bool reads(Setting s) const;
  // Each update's index sets hold about ratio x n indices (not a count the data decides).
  bool indices_sized_by_ratio() const { return sends_indices && reads(Setting::Ratio); }
};

// Every kind, in the order the scenario's key table lists them.
const std::vector<Kind>& kinds();
// The row of `name`; ConfigError on "kind" for a name no row has.
const Kind& kind_named(const std::string& name);

// Names, in table order: all, those that read `s`, those with error feedback on by default.
std::vector<std::string> kind_names();
std::vector<std::string> kinds_reading(Setting s);
std::vector<std::string> kinds_with_feedback_by_default();
// "none = <description>; fp16 = <description>; ...": the kinds explained in one sentence.
std::string kind_legend();

}  // namespace edgetrain::compress
