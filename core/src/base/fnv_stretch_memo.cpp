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

}  // namespace prefixroute::hashing
