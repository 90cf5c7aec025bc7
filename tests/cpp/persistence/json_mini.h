// Test helper: just enough JSON to read the fixtures' contents.jsonl (objects, arrays, strings
// with \uXXXX escapes below 256 as single bytes, numbers kept as text, true/false/null).
#pragma once
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace keel::json {

struct Value {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject } kind = kNull;
  std::string text;  // string bytes, or the number's text
  bool b = false;
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> fields;  // in document order
  const Value* get(std::string_view k) const {
    for (const auto& [name, v] : fields) {
      if (name == k) return &v;
    }
    return nullptr;
  }
  bool has(std::string_view k) const { return get(k) != nullptr; }
  const Value& operator[](std::string_view k) const { return *get(k); }
  int64_t as_int() const { return std::strtoll(text.c_str(), nullptr, 10); }
};

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}
  bool parse(Value* out) {
    ok_ = true;
    *out = value();
    ws();
    return ok_ && i_ == s_.size();
  }

 private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) i_++;
  }
  char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool eat(char c) {
    ws();
    if (peek() != c) return false;
    i_++;
    return true;
  }
  Value value() {
    ws();
    Value v;
    const char c = peek();
    if (c == '{') {
      i_++;
      v.kind = Value::kObject;
      if (eat('}')) return v;
      do {
        ws();
        Value k = value();
        if (k.kind != Value::kString || !eat(':')) return fail();
        v.fields.emplace_back(k.text, value());
      } while (eat(','));
      if (!eat('}')) return fail();
    } else if (c == '[') {
      i_++;
      v.kind = Value::kArray;
      if (eat(']')) return v;
      do v.items.push_back(value());
      while (eat(','));
      if (!eat(']')) return fail();
    } else if (c == '"') {
      i_++;
      v.kind = Value::kString;
      while (i_ < s_.size() && s_[i_] != '"') {
        char ch = s_[i_++];
        if (ch != '\\') {
          v.text.push_back(ch);
          continue;
        }
        if (i_ >= s_.size()) return fail();
        const char e = s_[i_++];
        switch (e) {
          case 'n': v.text.push_back('\n'); break;
          case 't': v.text.push_back('\t'); break;
          case 'r': v.text.push_back('\r'); break;
          case 'b': v.text.push_back('\b'); break;
          case 'f': v.text.push_back('\f'); break;
          case 'u': {
            if (i_ + 4 > s_.size()) return fail();
            const unsigned cp = static_cast<unsigned>(std::strtoul(std::string(s_.substr(i_, 4)).c_str(), nullptr, 16));
            i_ += 4;
            if (cp > 255) return fail();  // the fixtures are Latin-1
            v.text.push_back(static_cast<char>(cp));
            break;
          }
          default: v.text.push_back(e);
        }
      }
      if (i_ >= s_.size()) return fail();
      i_++;
    } else if (s_.substr(i_, 4) == "null") {
      i_ += 4;
    } else if (s_.substr(i_, 4) == "true") {
      i_ += 4;
      v.kind = Value::kBool;
      v.b = true;
    } else if (s_.substr(i_, 5) == "false") {
      i_ += 5;
      v.kind = Value::kBool;
    } else {
      v.kind = Value::kNumber;
      const size_t start = i_;
      while (i_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[i_]) != std::string_view::npos) i_++;
      if (i_ == start) return fail();
      v.text = std::string(s_.substr(start, i_ - start));
    }
    return v;
  }
  Value fail() {
    ok_ = false;
    i_ = s_.size();
    return {};
  }
  std::string_view s_;
  size_t i_ = 0;
  bool ok_ = true;
};

inline bool parse(std::string_view s, Value* out) { return Parser(s).parse(out); }

}  // namespace keel::json
