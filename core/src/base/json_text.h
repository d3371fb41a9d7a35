// JSON text helpers shared by the scenario, the overrides and the results:
// bounded parsing without exceptions, and short descriptions of values for
// error messages. Internal to core/src.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace prefixroute::json_text {

using Json = nlohmann::ordered_json;

/// Largest document read, in bytes, and deepest nesting.
inline constexpr std::size_t kMaxDocumentBytes = 1 << 20;
inline constexpr int kMaxDepth = 16;

/// Parses `text` into `out`; on failure returns false with nlohmann's message
/// (position and reason), "nesting deeper than 16 levels" or the size limit.
/// Never throws (the wasm build has exceptions off).
bool parse(std::string_view text, Json& out, std::string& error);

/// As parse, with another size limit (shard documents: their runs' per-replica
/// totals make them larger than a scenario).
bool parse(std::string_view text, Json& out, std::string& error, std::size_t max_bytes);

/// Parses `text` with no size or depth limit: a document this program wrote,
/// or a trace line whose reader bounds its nesting itself. Not valid JSON
/// gives a discarded value (Json::is_discarded), as Json::parse(text,
/// nullptr, false) does; this shares parse's parser code in the wasm module.
Json parse_unbounded(std::string_view text);
/// A value as an error message shows it: containers named, never dumped;
/// long text cut; the type said for strings and booleans.
std::string describe(const Json& value);

/// A number as messages show it: integers without a fraction, else %.10g.
std::string format_number(double v);

}  // namespace prefixroute::json_text
