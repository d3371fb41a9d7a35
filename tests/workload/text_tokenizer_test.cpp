// The openai trace's tokenizer: its fixed rule, piece by piece, and the
// properties the replay relies on (identical text gives identical tokens; a
// text's tokens extend the tokens of a prefix ending at a word boundary;
// special tokens never equal a text's).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prefixroute/workload/text_tokenizer.h"

namespace prefixroute::text_tokenizer_test {

namespace {

std::vector<std::uint64_t> tokens(const std::string& text) {
  std::vector<std::uint64_t> out;
  TextTokenizer::tokenize(text, out);
  return out;
}

std::uint64_t one(const std::string& text) {
  const auto t = tokens(text);
  EXPECT_EQ(t.size(), 1u) << text;
  return t.empty() ? 0 : t[0];
}

}  // namespace

TEST(TextTokenizer, AWordWithItsLeadingSpaceIsOneToken) {
  EXPECT_EQ(tokens("Hello world").size(), 2u);
  EXPECT_EQ(tokens(" the").size(), 1u);
  EXPECT_NE(one("the"), one(" the"));
}

TEST(TextTokenizer, LongWordsAreCutIntoPiecesOfEightLetters) {
  EXPECT_EQ(tokens("abcdefgh").size(), 1u);
  EXPECT_EQ(tokens("internationalization").size(), 3u);  // 8 + 8 + 4
  EXPECT_EQ(tokens(" internationalization").size(), 3u);  // the space rides on the first piece
}

TEST(TextTokenizer, DigitsGoInGroupsOfThree) {
  EXPECT_EQ(tokens("123").size(), 1u);
  EXPECT_EQ(tokens("1234567").size(), 3u);
  EXPECT_EQ(tokens("v2").size(), 2u);
}

TEST(TextTokenizer, SymbolRunsGoInPiecesOfThree) {
  EXPECT_EQ(tokens("...").size(), 1u);
  EXPECT_EQ(tokens("....").size(), 2u);
  EXPECT_EQ(tokens("a, b.").size(), 4u);  // "a" "," " b" "."
}

TEST(TextTokenizer, WhitespaceRunsAreOneTokenPerSixteenBytesButASpaceBeforeAWordJoinsIt) {
  EXPECT_EQ(tokens("a  b").size(), 3u);  // "a" " " " b"
  EXPECT_EQ(tokens("a\n\nb").size(), 3u);  // "a" "\n\n" "b"
  EXPECT_EQ(tokens(std::string(33, ' ')).size(), 3u);
  std::string spaces_then_x(32, ' ');  // appended in place: GCC 12 -O1 warns on `string + "x"` (false positive)
  spaces_then_x += 'x';
  EXPECT_EQ(tokens(spaces_then_x).size(), 3u);  // 16 + 15 spaces, then " x"
  EXPECT_TRUE(tokens("").empty());
}

TEST(TextTokenizer, EachNonAsciiCodePointIsOneToken) {
  EXPECT_EQ(tokens("\xE6\x97\xA5\xE6\x9C\xAC").size(), 2u);  // 日本
  EXPECT_EQ(tokens("caf\xC3\xA9").size(), 2u);               // "caf" "é"
  EXPECT_EQ(tokens("\xF0\x9F\x99\x82").size(), 1u);           // one 4-byte emoji
}

TEST(TextTokenizer, IdenticalTextGivesIdenticalTokensAndPrefixesStayPrefixes) {
  const auto a = tokens("You are a helpful assistant. Answer briefly.");
  EXPECT_EQ(a, tokens("You are a helpful assistant. Answer briefly."));
  const auto b = tokens("You are a helpful assistant. Answer briefly. Then stop.");
  ASSERT_GT(b.size(), a.size());
  EXPECT_EQ(std::vector<std::uint64_t>(b.begin(), b.begin() + static_cast<long>(a.size())), a);
}

TEST(TextTokenizer, SpecialTokensNeverEqualATextsTokens) {
  const std::uint64_t start = TextTokenizer::special("<|im_start|>");
  EXPECT_NE(start, TextTokenizer::special("<|im_end|>"));
  for (const std::uint64_t t : tokens("<|im_start|>")) EXPECT_NE(t, start);
  EXPECT_NE(one("user"), TextTokenizer::special("user"));
}

}  // namespace prefixroute::text_tokenizer_test
