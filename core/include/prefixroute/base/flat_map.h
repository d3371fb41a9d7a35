// FlatMap: a hash map from nonzero 64-bit hashes to small values, for the hot
// paths of the routers' block indexes (llm-d's prefix scorer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prefixroute {

/// An open-addressing hash map from a nonzero 64-bit key to a small value:
/// linear probing in a power-of-two table kept at most half full, deletion by
/// backward shift (no tombstones). Keys must already be well-mixed hashes:
/// their low bits index the table directly. Never iterated for a result
/// (update_values only rewrites storage), so no result depends on its order.
/// Cost: find, insert and erase O(1) expected; memory 2 x size slots of
/// (key, value) at most (16 at least).
template <class Value>
class FlatMap {
 public:
  FlatMap() : slots_(16), mask_(15) {}

  const Value* find(std::uint64_t key) const {
    for (std::size_t i = key & mask_;; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return &slots_[i].value;
      if (slots_[i].key == 0) return nullptr;
    }
  }

  Value* find(std::uint64_t key) {
    return const_cast<Value*>(static_cast<const FlatMap&>(*this).find(key));
  }

  /// Inserts `key` (absent) with `value`.
  void insert(std::uint64_t key, Value value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    place(key, value);
    ++size_;
  }

  void erase(std::uint64_t key) {
    std::size_t i = key & mask_;
    while (slots_[i].key != key) {
      if (slots_[i].key == 0) return;
      i = (i + 1) & mask_;
    }
    // Backward shift: move later entries of the probe run into the hole when
    // their home slot is not after it.
    for (std::size_t j = (i + 1) & mask_; slots_[j].key != 0; j = (j + 1) & mask_) {
      const std::size_t home = slots_[j].key & mask_;
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].key = 0;
    --size_;
  }

  std::size_t size() const { return size_; }

  /// Calls f(value) on every entry's value, in table order (which must
  /// decide nothing but storage).
  template <class F>
  void update_values(F f) {
    for (Slot& slot : slots_)
      if (slot.key != 0) f(slot.value);
  }

  /// Hints the CPU to load `key`'s home slot (the tables are larger than the
  /// caches and hashes are random, so each lookup is otherwise a miss).
  void prefetch(std::uint64_t key) const {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(&slots_[key & mask_]);
#else
    (void)key;
#endif
  }

 private:
  // A key and its value side by side: a hit reads one cache line.
  struct Slot {
    std::uint64_t key = 0;
    Value value{};
  };

  void place(std::uint64_t key, Value value) {
    std::size_t i = key & mask_;
    while (slots_[i].key != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{key, value};
  }

  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old)
      if (slot.key != 0) place(slot.key, slot.value);
  }

  std::vector<Slot> slots_;
  std::size_t mask_;
  std::size_t size_ = 0;
};

}  // namespace prefixroute
