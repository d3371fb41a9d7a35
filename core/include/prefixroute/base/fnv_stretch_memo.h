// FNV-1a over stretches of tokens that a hash meets again and again (a
// tenant's system prompt at the head of thousands of prompts), remembered so
// that feeding one again costs a multiplication and an addition instead of
// two dependent multiplications a token. The hash is Fnv1a64's, bit for bit.
//
// Why a stretch can be remembered although FNV-1a is a chain: XOR with a
// byte b changes only the low byte of the state, so
//
//   h ^ b = h + ((h & 255) ^ b) - (h & 255)      (exact modulo 2^64)
//
// and a step (h ^ b) * P is affine in h, with an offset that depends on the
// low byte of h alone. The low byte of the next state depends only on the
// low byte before (the low byte of a product depends only on the factors'
// low bytes). Composing the steps over a stretch of n tokens (8n bytes):
//
//   h_after = P^(8n) * h_before + C(stretch, h_before & 255)
//
// so C, for each of the 256 low bytes a stretch is entered with, is all
// there is to remember. C is learnt from the first feeding that enters with
// that low byte: C = h_after - P^(8n) * h_before, and a pass that learns
// one also learns three more low bytes not yet seen, in chains the CPU
// overlaps with the first (from any states with those low bytes: C does
// not depend on the high bytes). Which low byte a prompt
// enters with is effectively random (it follows the request's arrival time
// and length), so a stretch fed K times is computed about
// 256 * (1 - e^(-K/256)) times: the top tenants' prompts of the reference
// scenario (thousands of uses) are nearly always remembered.
//
// Memory is bounded: kSlots stretch keys are followed (a direct-mapped table
// of their identities and sightings), and at most kMaxTables stretches seen
// kRememberAfter times get a table of 256 offsets (2 KiB + 32 bytes each).
// A stretch the table cannot follow is fed token by token, as without it.
// Cost: O(1) a stretch fed again from a remembered low byte; O(n) otherwise.
// Tests: tests/base/fnv_stretch_memo_test.cpp (against feeding the tokens).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "prefixroute/base/hashing.h"
#include "prefixroute/base/token.h"

namespace prefixroute::hashing {

class FnvStretchMemo {
 public:
  /// Identity of a stretch: equal keys must mean equal tokens (a run, an
  /// offset in it and a length, of one content).
  struct Key {
    std::uint64_t run = 0;
    std::uint32_t offset = 0;
    std::uint32_t length = 0;
    bool operator==(const Key&) const = default;
  };

  /// Followed stretch keys (a power of two).
  static constexpr std::size_t kSlots = 1024;
  /// Sightings of a key before its offsets are remembered (a stretch seen
  /// once or twice is likely a one-off: a user's turn).
  static constexpr std::uint32_t kRememberAfter = 3;
  /// Most stretches with remembered offsets (each 2 KiB).
  static constexpr std::size_t kMaxTables = 256;

  /// h.feed_tokens(tokens(), key.length), with this stretch's offset for
  /// h's low byte remembered or reused. `tokens()` returns the key's tokens
  /// (contiguous); it is called only when they are hashed.
  template <class Tokens>
  void feed(Fnv1a64& h, const Key& key, Tokens&& tokens) {
    Offsets* offsets = sighted(key);
    if (offsets == nullptr) {
      h.feed_tokens(tokens(), key.length);
    } else if (!offsets->apply(h)) {
      learn_and_feed(*offsets, h, tokens(), key.length);
    }
  }

  /// Stretches with a table of offsets (for tests).
  std::size_t tables() const { return tables_used_; }

 private:
  /// A remembered stretch: its multiplier and the offsets learnt so far.
  struct Offsets {
    std::uint64_t multiplier = 0;  // P^(8 * length)
    std::array<std::uint64_t, 4> known{};  // bit b: offset[b] is learnt
    std::array<std::uint64_t, 256> offset{};

    /// Feeds the stretch to h if the offset for h's low byte is learnt.
    bool apply(Fnv1a64& h) const {
      const std::size_t low = h.value & 0xFF;
      if (!(known[low / 64] >> (low % 64) & 1)) return false;
      h.value = multiplier * h.value + offset[low];
      return true;
    }
    /// Learns the offset of the low byte of `before` from one feeding.
    void learn(std::uint64_t before, std::uint64_t after) {
      const std::size_t low = before & 0xFF;
      offset[low] = after - multiplier * before;
      known[low / 64] |= std::uint64_t{1} << (low % 64);
    }
  };
  struct Slot {
    Key key;
    std::uint32_t sightings = 0;  // 0: empty
    std::unique_ptr<Offsets> offsets;
  };

  /// Counts a sighting of `key`; its offsets if it is remembered, else nullptr.
  Offsets* sighted(const Key& key);
  /// Feeds the stretch to h, learning the offset of h's low byte and of up
  /// to kLanes - 1 other low bytes not yet learnt, in one pass over the
  /// tokens: the lanes' multiplication chains are independent, so the CPU
  /// overlaps them and a pass of kLanes costs about what one chain does
  /// (FNV-1a is latency-bound: two dependent multiplications a token).
  static void learn_and_feed(Offsets& offsets, Fnv1a64& h, const Token* tokens, std::size_t n);
  static constexpr std::size_t kLanes = 4;
  static std::size_t slot_of(const Key& key);

  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
  std::size_t tables_used_ = 0;
};

/// kFnvPrime to the power n modulo 2^64, by squaring: O(log n).
constexpr std::uint64_t fnv_prime_power_fast(std::uint64_t n) {
  std::uint64_t result = 1;
  std::uint64_t base = kFnvPrime;
  while (n > 0) {
    if (n & 1) result *= base;
    base *= base;
    n >>= 1;
  }
  return result;
}

}  // namespace prefixroute::hashing
