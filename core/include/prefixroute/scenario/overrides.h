// Overrides as the faces of prefixroute receive them, read one way: the
// command line's repeated `--set key=value`, and the module's overridesJson,
// a JSON array of [key, value] pairs. Both give the Override list that
// parse_scenario applies in order (a later override of a key wins).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "prefixroute/scenario/scenario.h"

namespace prefixroute {

/// "key=value" (the text after the first '=' is the value). Returns false,
/// with a message showing the expected form, when there is no '=' or no key.
bool parse_assignment(std::string_view text, Override& out, std::string& error);

/// overridesJson: a JSON array of [key, value] pairs; a value that is not a
/// string is taken as its JSON text, so ["cluster.replicas", 8] works as
/// ["cluster.replicas", "8"]. Blank text means no overrides. Appends to `out`;
/// returns false with a message naming the bad entry.
bool parse_override_pairs(std::string_view json, std::vector<Override>& out, std::string& error);

}  // namespace prefixroute
