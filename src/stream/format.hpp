// Number formatting for the stream module's error messages: the shortest text that reads back
// as the same double ("2", "0.3", "1e-05"), so messages quote the user's values as written.
#pragma once

#include <charconv>
#include <string>

namespace edgetrain::stream {

inline std::string format_number(double x) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, res.ptr);
}

}  // namespace edgetrain::stream
