#include "prefixroute/scenario/overrides.h"

#include "base/json_text.h"

namespace prefixroute {

bool parse_assignment(std::string_view text, Override& out, std::string& error) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    error = std::string(text.substr(0, 80)) + ": expected key=value, e.g. cluster.replicas=8";
    return false;
  }
  out = Override(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  return true;
}

bool parse_override_pairs(std::string_view text, std::vector<Override>& out, std::string& error) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return true;
  const char* shape = "must be a JSON array of [key, valueText] pairs, e.g. [[\"cluster.replicas\", \"8\"]]";
  json_text::Json doc;
  std::string syntax;
  if (!json_text::parse(text, doc, syntax)) {
    error = "not valid JSON (" + syntax + "); " + shape;
    return false;
  }
  if (!doc.is_array()) {
    error = shape;
    return false;
  }
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const json_text::Json& pair = doc[i];
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) {
      error = "entry " + std::to_string(i) + " is not a [key, valueText] pair; " + shape;
      return false;
    }
    const json_text::Json& value = pair[1];
    out.emplace_back(pair[0].get<std::string>(),
                     value.is_string() ? value.get<std::string>()
                                       : value.dump(-1, ' ', false, json_text::Json::error_handler_t::replace));
  }
  return true;
}

}  // namespace prefixroute
