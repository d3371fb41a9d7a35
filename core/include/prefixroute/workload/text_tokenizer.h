// TextTokenizer: turns the text of an openai-format trace into tokens with a
// fixed rule, so identical text always gives identical tokens (and shared
// prefixes of text give shared prefixes of tokens) on every platform. It has
// no vocabulary: a token is the 64-bit hash of its bytes. It approximates the
// *count* of a BPE tokenizer (cl100k/o200k) on English prose and code, not its
// token boundaries.
//
// The rule, applied left to right over the UTF-8 bytes:
//   - a run of ASCII letters, with at most one space just before it, is cut
//     into pieces of at most kLettersPerToken letters (the space goes with the
//     first piece): "internationalization" -> 3 tokens, " the" -> 1;
//   - a run of digits is cut into groups of at most 3 (as cl100k does);
//   - each non-ASCII code point (a UTF-8 lead byte and its continuation
//     bytes) is one token, with at most one space before it;
//   - a run of other printable ASCII (punctuation, symbols), with at most one
//     space before it, is cut into pieces of at most 3 characters;
//   - a run of whitespace is one token per 16 bytes, except that a single
//     space just before a word, code point or symbol run goes with it.
// Chat markers (ChatML: <|im_start|>, <|im_end|>) are special tokens: their
// hashes are salted, so no text ever tokenizes to one.
//
// Cost: O(bytes), no allocation beyond the output vector.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace prefixroute {

class TextTokenizer {
 public:
  static constexpr std::size_t kLettersPerToken = 8;
  static constexpr std::size_t kDigitsPerToken = 3;
  static constexpr std::size_t kSymbolsPerToken = 3;
  static constexpr std::size_t kSpacesPerToken = 16;

  /// Appends the tokens of `text` to `out`.
  static void tokenize(std::string_view text, std::vector<std::uint64_t>& out);
  /// A special token: never equal to a token of any text.
  static std::uint64_t special(std::string_view name);
};

}  // namespace prefixroute
