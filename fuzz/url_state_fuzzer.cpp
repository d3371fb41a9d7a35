// URL state fuzzer: the page's query string through the core's validation.
//
// The page keeps its scenario in the URL as `?v=1&dotted.key=value&...`
// (web/src/state/url-state.ts). Its decoder drops what is lexically odd, but the
// core must not rely on that: here the input is decoded the way the page
// splits and unescapes it (strip '?', split at '&', key and value at the first
// '=', '+' is a space, %XX escapes; a pair with a broken escape is dropped;
// the reserved keys v and embed are not scenario keys) with none of its caps
// or lexical filters, and the pairs go straight to parse_scenario("", pairs),
// the core-side equivalent of the page's validateScenario. It must return,
// and a success must be a valid scenario with a canonical JSON that reads back.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/scenario/scenario.h"
#include "scenario_properties.h"

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// decodeURIComponent(text.replace(/\+/g, ' ')), byte-wise (UTF-8 validity is
// not checked: the core must cope with any bytes anyway).
std::optional<std::string> decode_component(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out += ' ';
    } else if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;  // needs two hex digits after '%'
      const int hi = hex_value(text[i + 1]), lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view query(reinterpret_cast<const char*>(data), size);
  if (!query.empty() && query.front() == '?') query.remove_prefix(1);
  std::vector<prefixroute::Override> pairs;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view part = query.substr(0, amp);
    if (!part.empty()) {
      const auto eq = part.find('=');
      auto key = decode_component(part.substr(0, eq));
      auto value = decode_component(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1));
      if (key && value && *key != "v" && *key != "embed") pairs.emplace_back(std::move(*key), std::move(*value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  const prefixroute::ScenarioParse parse = prefixroute::parse_scenario("", pairs);
  const std::string violation = prefixroute::testsupport::parse_property_violation(parse);
  if (!violation.empty()) {
    std::fprintf(stderr, "URL STATE: %s\n", violation.c_str());
    std::abort();
  }
  return 0;
}
