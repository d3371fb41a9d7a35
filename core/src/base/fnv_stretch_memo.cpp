#include "prefixroute/base/fnv_stretch_memo.h"

namespace prefixroute::hashing {

std::size_t FnvStretchMemo::slot_of(const Key& key) {
  const std::uint64_t mixed = fmix64(key.run ^ fmix64((std::uint64_t{key.offset} << 32) | key.length));
  return static_cast<std::size_t>(mixed & (kSlots - 1));
}

FnvStretchMemo::Offsets* FnvStretchMemo::sighted(const Key& key) {
  Slot& slot = slots_[slot_of(key)];
  if (!(slot.key == key) || slot.sightings == 0) {
    // A remembered stretch keeps its slot; any other is replaced.
    if (slot.offsets) return nullptr;
    slot.key = key;
    slot.sightings = 0;
  }
  if (slot.sightings < kRememberAfter) ++slot.sightings;
  if (!slot.offsets && slot.sightings == kRememberAfter && tables_used_ < kMaxTables) {
    slot.offsets = std::make_unique<Offsets>();
    slot.offsets->multiplier = fnv_prime_power_fast(8 * std::uint64_t{key.length});
    ++tables_used_;
  }
  return slot.offsets.get();
}

namespace {

/// Fnv1a64::feed_tokens on Lanes states at once (independent chains the CPU
/// overlaps), for tokens whose bytes from the Bytes-th on are zero.
template <int Bytes, std::size_t Lanes>
void feed_lanes(std::array<std::uint64_t, Lanes>& state, const Token* tokens, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::uint64_t& h : state) h = Fnv1a64::fed_low_bytes<Bytes>(h, tokens[i]);
  }
}

}  // namespace

void FnvStretchMemo::learn_and_feed(Offsets& offsets, Fnv1a64& h, const Token* tokens, std::size_t n) {
  // Lane 0 is h itself; the others enter with the next low bytes not yet
  // learnt (h's high bytes: any would do).
  std::array<std::uint64_t, kLanes> state;
  state.fill(h.value);
  std::size_t lanes = 1;
  const std::size_t low = h.value & 0xFF;
  for (std::size_t step = 1; step < 256 && lanes < kLanes; ++step) {
    const std::size_t other = (low + step) & 0xFF;
    if (!(offsets.known[other / 64] >> (other % 64) & 1)) state[lanes++] = (h.value & ~std::uint64_t{0xFF}) | other;
  }
  const std::array<std::uint64_t, kLanes> before = state;
  with_token_bytes(tokens, n, [&]<int Bytes>() { feed_lanes<Bytes>(state, tokens, n); });
  for (std::size_t lane = 0; lane < lanes; ++lane) offsets.learn(before[lane], state[lane]);
  h.value = state[0];
}

}  // namespace prefixroute::hashing
