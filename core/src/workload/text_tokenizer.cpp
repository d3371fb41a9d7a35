#include "prefixroute/workload/text_tokenizer.h"

#include <algorithm>

#include "prefixroute/base/hashing.h"

namespace prefixroute {
namespace {

std::uint64_t hash_bytes(std::string_view bytes, std::uint64_t salt) {
  std::uint64_t h = hashing::kFnvOffset ^ salt;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= hashing::kFnvPrime;
  }
  return hashing::fmix64(h);
}

constexpr std::uint64_t kTextSalt = 0;
constexpr std::uint64_t kSpecialSalt = 0x5bd1e9955bd1e995ULL;

bool is_letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
// Neither a letter, a digit, whitespace nor part of a non-ASCII code point.
bool is_symbol(unsigned char c) { return c < 0x80 && !is_letter(c) && !is_digit(c) && !is_space(c); }

// Bytes of the UTF-8 sequence starting with lead byte `c` (1 for a stray
// continuation byte: the JSON parser refuses invalid UTF-8, so only a
// caller's raw bytes reach this).
std::size_t sequence_length(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

}  // namespace

void TextTokenizer::tokenize(std::string_view text, std::vector<std::uint64_t>& out) {
  const auto emit = [&](std::size_t from, std::size_t to) { out.push_back(hash_bytes(text.substr(from, to - from), kTextSalt)); };
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_space(c)) {
      std::size_t end = i;
      while (end < n && is_space(static_cast<unsigned char>(text[end]))) ++end;
      // A single space before a non-space goes with what follows it.
      std::size_t stop = end;
      if (end < n && text[end - 1] == ' ') --stop;
      for (std::size_t from = i; from < stop; from += kSpacesPerToken)
        emit(from, std::min(stop, from + kSpacesPerToken));
      i = stop;
      if (i == end) continue;
    }
    // i is at a non-space byte, or at the single space before one.
    const std::size_t start = i;
    std::size_t j = text[i] == ' ' ? i + 1 : i;
    const auto d = static_cast<unsigned char>(text[j]);
    if (is_letter(d) || is_digit(d) || is_symbol(d)) {
      const auto same = is_letter(d) ? is_letter : is_digit(d) ? is_digit : is_symbol;
      const std::size_t per = is_letter(d) ? kLettersPerToken : is_digit(d) ? kDigitsPerToken : kSymbolsPerToken;
      std::size_t end = j;
      while (end < n && same(static_cast<unsigned char>(text[end]))) ++end;
      std::size_t from = start;
      for (std::size_t piece = j; piece < end; piece += per) {
        const std::size_t to = std::min(end, piece + per);
        emit(from, to);
        from = to;
      }
      i = end;
    } else {
      const std::size_t end = std::min(n, j + sequence_length(d));
      emit(start, end);
      i = end;
    }
  }
}

std::uint64_t TextTokenizer::special(std::string_view name) { return hash_bytes(name, kSpecialSalt); }

}  // namespace prefixroute
