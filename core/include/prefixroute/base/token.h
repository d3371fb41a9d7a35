// Token ids and views of token sequences.
#pragma once

#include <cstdint>
#include <span>

namespace prefixroute {

/// A token id, as a tokenizer would produce. Only equality matters to the cache.
using Token = std::uint32_t;

/// A read-only view of a prompt's tokens.
using TokenSpan = std::span<const Token>;

}  // namespace prefixroute
