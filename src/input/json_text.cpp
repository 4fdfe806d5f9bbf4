// The pre-parse pass over JSON text: depth and duplicate keys with positions (see json_text.hpp).
#include "input/json_text.hpp"

#include <map>
#include <vector>

#include "input/error.hpp"
#include "input/text.hpp"
#include "util/printable.hpp"

namespace edgetrain::input {
namespace {

using Position = TextPosition;

// One open object or array.
struct Frame {
  bool object = false;
  bool expect_key = false;               // object: the next string is a key
  std::map<std::string, Position> keys;  // object: keys seen, where
};

class Scanner {
 public:
  Scanner(std::string_view text, bool comments) : text_(text), comments_(comments) {}

  std::optional<JsonTextIssue> run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '/' && comments_ && i_ + 1 < text_.size() && (text_[i_ + 1] == '/' || text_[i_ + 1] == '*')) {
        if (!skip_comment()) return std::nullopt;
        continue;
      }
      if (c == '"') {
        const Position at = pos_;
        std::string s;
        if (!read_string(s)) return std::nullopt;  // unterminated: the parser says so
        if (!stack_.empty() && stack_.back().object && stack_.back().expect_key) {
          Frame& f = stack_.back();
          f.expect_key = false;
          const auto [it, fresh] = f.keys.emplace(s, at);
          if (!fresh) {
            return JsonTextIssue{at, "duplicate key " + text::show(nlohmann::json(s)) + " in one object", it->second};
          }
        }
        continue;
      }
      if (c == '{' || c == '[') {
        if (stack_.size() >= kMaxJsonDepth) {
          return JsonTextIssue{pos_, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels", std::nullopt};
        }
        stack_.push_back(Frame{c == '{', c == '{', {}});
      } else if (c == '}' || c == ']') {
        if (stack_.empty() || stack_.back().object != (c == '}')) return std::nullopt;  // mismatched: the parser's
        stack_.pop_back();
      } else if (c == ',' && !stack_.empty() && stack_.back().object) {
        stack_.back().expect_key = true;
      }
      advance();
    }
    return std::nullopt;
  }

 private:
  void advance() {
    if (text_[i_] == '\n') {
      ++pos_.line;
      pos_.column = 1;
    } else {
      ++pos_.column;
    }
    ++i_;
  }

  bool skip_comment() {
    const bool line = text_[i_ + 1] == '/';
    advance();
    advance();
    while (i_ < text_.size()) {
      if (line && text_[i_] == '\n') return true;
      if (!line && text_[i_] == '*' && i_ + 1 < text_.size() && text_[i_ + 1] == '/') {
        advance();
        advance();
        return true;
      }
      advance();
    }
    return line;  // an unterminated block comment is a syntax error
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // Four hex digits after "\u" at i_ (already past the 'u'), or -1.
  long read_hex4() {
    if (i_ + 4 > text_.size()) return -1;
    long v = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hex(text_[i_]);
      if (h < 0) return -1;
      v = v * 16 + h;
      advance();
    }
    return v;
  }

  static void append_utf8(std::string& out, unsigned long cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // The string at i_ (on its opening quote), decoded as the parser would, so that "a" and
  // "\u0061" are the same key. False on text the parser will reject.
  bool read_string(std::string& out) {
    advance();  // the opening quote
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '"') {
        advance();
        return true;
      }
      if (c == '\n') return false;
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance();
      if (i_ >= text_.size()) return false;
      const char e = text_[i_];
      advance();
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          long cp = read_hex4();
          if (cp < 0) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a surrogate pair
            if (i_ + 1 >= text_.size() || text_[i_] != '\\' || text_[i_ + 1] != 'u') return false;
            advance();
            advance();
            const long low = read_hex4();
            if (low < 0xDC00 || low > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, static_cast<unsigned long>(cp));
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  std::string_view text_;
  bool comments_;
  size_t i_ = 0;
  Position pos_;
  std::vector<Frame> stack_;
};

bool deeper_than(const nlohmann::json& v, size_t levels) {
  if (!v.is_structured()) return false;
  if (levels == 0) return true;
  for (const auto& child : v) {
    if (deeper_than(child, levels - 1)) return true;
  }
  return false;
}

}  // namespace

std::optional<JsonTextIssue> find_json_text_issue(std::string_view text, bool comments) {
  return Scanner(text, comments).run();
}

std::string issue_text(const JsonTextIssue& issue, const std::function<std::string(const TextPosition&)>& where) {
  std::string out = where(issue.at) + ": " + issue.message;
  if (issue.first) out += " (first at " + where(*issue.first) + ")";
  return out;
}

nlohmann::json parse_json_file(std::string_view text, const std::string& shown, bool comments) {
  if (const auto issue = find_json_text_issue(text, comments)) {
    throw Error(issue_text(*issue, [&](const TextPosition& p) {
      return shown + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    }));
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true, comments);
  } catch (const nlohmann::json::exception& e) {
    const std::string what = e.what();  // "[json.exception.parse_error.101] parse error at line 1, ..."
    const size_t tag = what.find("] ");
    throw Error(shown + ": not valid JSON (" + util::printable(tag == std::string::npos ? what : what.substr(tag + 2)) +
                ")");
  }
}

void check_json_depth(const nlohmann::json& doc, const std::string& at) {
  if (deeper_than(doc, kMaxJsonDepth)) {
    throw Error(at + ": nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
}

}  // namespace edgetrain::input
