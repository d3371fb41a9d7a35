// Prompt builders for tests: token sequences whose sharing is obvious from the
// call (run_of(1000, 60) and run_of(5000, 8) share nothing; concat(a, b)
// starts with all of a). Used by the policy and simulator suites and the radix
// cache tests.
#pragma once

#include <cstddef>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/base/token.h"

namespace prefixroute::testsupport {

/// An owned prompt.
using Tokens = std::vector<Token>;

/// `length` consecutive token ids from `first`: runs from disjoint id ranges
/// share no token, so they share no cached prefix either.
inline Tokens run_of(Token first, std::size_t length) {
  Tokens t(length);
  for (std::size_t i = 0; i < length; ++i) t[i] = first + static_cast<Token>(i);
  return t;
}

/// `a` followed by `b`: a prompt whose prefix is `a`.
inline Tokens concat(const Tokens& a, const Tokens& b) {
  Tokens t = a;
  t.insert(t.end(), b.begin(), b.end());
  return t;
}

/// The content the tests' prompts are runs of: one per test process (a
/// structure that keeps pieces of a prompt needs its runs to live on).
inline TokenStore& test_store() {
  static TokenStore store;
  return store;
}

/// `tokens` as a one-run prompt of test_store(), for the code that takes
/// prompts as pieces (policies, trees, the index). Converts to a Prompt.
inline PromptPieces prompt_of(const Tokens& tokens) { return test_store().prompt(tokens); }

}  // namespace prefixroute::testsupport
