#include "base/json_text.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace prefixroute::json_text {
namespace {

// Builds the document with nlohmann's own DOM builder while recording the
// first parse error (position and reason) and refusing nesting deeper than
// `max_depth`, without exceptions (the wasm build has them off). Every JSON
// text the core reads goes through this one handler and one input type
// (const char* ranges): each distinct use of nlohmann's parser templates is a
// copy of the parser in the wasm module (docs/performance.md, payload).
class CheckedDom {
 public:
  using Dom = nlohmann::detail::json_sax_dom_parser<Json>;
  CheckedDom(Json& out, int max_depth) : dom_(out, /*allow_exceptions=*/false), max_depth_(max_depth) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) { return dom_.number_float(v, s); }
  bool string(Json::string_t& v) { return dom_.string(v); }
  bool binary(Json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return (++depth_ <= max_depth_ || too_deep()) && dom_.start_object(n); }
  bool key(Json::string_t& v) { return dom_.key(v); }
  bool end_object() { --depth_; return dom_.end_object(); }
  bool start_array(std::size_t n) { return (++depth_ <= max_depth_ || too_deep()) && dom_.start_array(n); }
  bool end_array() { --depth_; return dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    error = ex.what();
    dom_.parse_error(position, token, ex);
    return false;
  }

  std::string error;

 private:
  bool too_deep() {
    error = "nesting deeper than " + std::to_string(max_depth_) + " levels";
    return false;
  }
  Dom dom_;
  int max_depth_;
  int depth_ = 0;
};

// Parses `text` into `out` through CheckedDom; false (and `error`) on failure.
bool parse_checked(std::string_view text, Json& out, int max_depth, std::string& error) {
  Json doc;
  CheckedDom handler(doc, max_depth);
  const char* first = text.data();
  if (!Json::sax_parse(first, first + text.size(), &handler) || !handler.error.empty()) {
    error = handler.error.empty() ? "not valid JSON" : handler.error;
    return false;
  }
  out = std::move(doc);
  return true;
}

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
  return parse_checked(text, out, kMaxDepth, error);
}

Json parse_unbounded(std::string_view text) {
  Json out;
  std::string error;
  if (!parse_checked(text, out, std::numeric_limits<int>::max(), error)) return Json(Json::value_t::discarded);
  return out;
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
