// prefixroute-random-scenarios COUNT SEED: prints COUNT random valid scenarios
// (tests/support/random_scenario.h), one canonical scenario JSON a line.
//
// The native == wasm tests (tests/js/random-parity.test.mjs) run each line
// through `prefixroute --scenario` and through the module in Node and in
// Chromium, and compare the results JSON byte for byte. The same SEED always
// prints the same scenarios.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "prefixroute/base/random.h"
#include "prefixroute/scenario/scenario.h"
#include "random_scenario.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s COUNT SEED\n", argv[0]);
    return 2;
  }
  char* end = nullptr;
  const unsigned long count = std::strtoul(argv[1], &end, 10);
  if (*end != '\0' || count == 0 || count > 10000) {
    std::fprintf(stderr, "COUNT: must be an integer in [1, 10000]; got %s\n", argv[1]);
    return 2;
  }
  const unsigned long long seed = std::strtoull(argv[2], &end, 10);
  if (*end != '\0') {
    std::fprintf(stderr, "SEED: must be a non-negative integer; got %s\n", argv[2]);
    return 2;
  }
  prefixroute::Rng rng(seed);
  for (unsigned long i = 0; i < count; ++i) {
    prefixroute::ScenarioParse parse;
    std::string refusals;
    for (int attempt = 0; attempt < 5; ++attempt) {
      parse = prefixroute::parse_scenario("", prefixroute::testsupport::random_overrides(rng));
      if (parse.ok()) break;
      refusals += parse.error_text();
    }
    if (!parse.ok()) {
      std::fprintf(stderr, "five random scenarios in a row were refused:\n%s\n", refusals.c_str());
      return 1;
    }
    std::printf("%s\n", prefixroute::scenario_to_json(parse.scenario).c_str());
  }
  return 0;
}
