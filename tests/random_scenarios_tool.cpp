// prefixroute-random-scenarios COUNT SEED: prints COUNT random valid scenarios
// (tests/support/random_scenario.h), one canonical scenario JSON a line: the
// cases 0, 1, 2, ... of the stream SEED, passing over a case that lists no
// policy.
//
// The native == wasm tests (tests/js/random-parity.test.mjs) run each line
// through `prefixroute --scenario` and through the module in Node and in
// Chromium, and compare the results JSON byte for byte. The same SEED always
// prints the same scenarios.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

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
  unsigned long printed = 0;
  for (std::uint64_t index = 0; printed < count; ++index) {
    const prefixroute::testsupport::ParsedCase c = prefixroute::testsupport::parsed_random_case(seed, index);
    if (!c.draw.runnable()) continue;
    if (!c.parse.ok()) {
      std::fprintf(stderr, "case %llu: five random scenarios in a row were refused:\n%s\n",
                   static_cast<unsigned long long>(index), c.refusals.c_str());
      return 1;
    }
    std::printf("%s\n", prefixroute::scenario_to_json(c.parse.scenario).c_str());
    ++printed;
  }
  return 0;
}
