// A profile as a JSON file: what `edgetrain calibrate-compute` writes and `edgetrain cost --device FILE`
// reads, so that a machine one can measure anchors the compute model.
//   {"name": ..., "about": ..., "flops_s": ..., "bytes_s": ..., "layer_overhead_s": ...,
//    "efficiency": {"dense": 1, "conv": 1, "depthwise": ..., ...}, "points": [...]}
// `points` (optional, ignored on reading) lists the measured steps the profile was fitted to.
#pragma once

#include <stdexcept>
#include <string>

#include "compute/roofline.hpp"
#include "util/input_error.hpp"

namespace edgetrain::compute {

class ProfileFileError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ProfileFileError naming the file and what is wrong.
Profile read_profile_file(const std::string& path);
std::string profile_json(const Profile& p, const std::string& points_json = "[]");

}  // namespace edgetrain::compute
