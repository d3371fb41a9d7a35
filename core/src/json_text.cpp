#include "json_text.h"

#include <cmath>
#include <cstdio>

namespace prefixroute::json_text {
namespace {

// Records nlohmann's parse error (position and reason) without exceptions,
// so the same code runs where exceptions are off (the wasm build).
struct SyntaxCheck : nlohmann::json_sax<Json> {
  std::string error;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth <= kMaxDepth || too_deep(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { --depth; return true; }
  bool start_array(std::size_t) override { return ++depth <= kMaxDepth || too_deep(); }
  bool end_array() override { --depth; return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& ex) override {
    error = ex.what();
    return false;
  }
  bool too_deep() {
    error = "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
    return false;
  }
  int depth = 0;
};

}  // namespace

bool parse(std::string_view text, Json& out, std::string& error) {
  return parse(text, out, error, kMaxDocumentBytes);
}

bool parse(std::string_view text, Json& out, std::string& error, std::size_t max_bytes) {
  if (text.size() > max_bytes) {
    error = "document is " + std::to_string(text.size()) + " bytes; at most " +
            std::to_string(max_bytes) + " allowed";
    return false;
  }
  SyntaxCheck check;
  if (!Json::sax_parse(text.begin(), text.end(), &check) || !check.error.empty()) {
    error = check.error.empty() ? "not valid JSON" : check.error;
    return false;
  }
  out = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (out.is_discarded()) {
    error = "not valid JSON";
    return false;
  }
  return true;
}


std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) {
    return std::to_string(static_cast<long long>(v));
  }
  // %.10g in the C locale: what an ostream with precision(10) writes.
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);
  return text;
}

std::string describe(const Json& value) {
  // Containers are named, never dumped: dump() recurses, and an override key
  // with many dots builds nesting that no depth check has seen.
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  // Replace, don't throw: a plain-text override may hold any bytes.
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  if (value.is_string()) return text + " (a string)";
  if (value.is_boolean()) return text + " (a boolean)";
  if (value.is_null()) return "null";
  return text;
}

}  // namespace prefixroute::json_text
