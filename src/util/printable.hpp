// Error messages quote what the user wrote (keys, values, trace lines), and a message is one line
// on a terminal: control bytes in a quote (a NUL would cut the message short where what() is
// printed, a newline would split it, an escape sequence would drive the terminal) are written
// as \xNN instead. Other bytes, UTF-8 included, stay as they are.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace edgetrain::util {

inline std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out;
}

}  // namespace edgetrain::util
