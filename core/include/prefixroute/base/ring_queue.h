// RingQueue: a first-in first-out queue in one array used as a ring, which
// grows (doubling) and never shrinks.
//
// The simulator keeps one per replica (the fifo engine's prefill queue, a
// replica's prefill start times). A std::deque allocates a 512-byte block
// when it is made and another each time its back crosses a block, and frees
// one each time its front leaves a block: a malloc and a free every few
// requests per replica. At 256 replicas, where each replica sees few requests
// and glibc's per-size caches overflow, that costs ~65 instructions a request
// (docs/performance.md, "4 to 256 replicas"). Here a queue allocates only when
// it holds more than ever before.
//
// Invariants: capacity is 0 or a power of two; the elements are slots
// head_, head_ + 1, ... (mod capacity), size_ of them, oldest first.
//
// Cost: push_back amortised O(1) (O(size) when it doubles), pop_front,
// front, back, size O(1). Memory: capacity elements, at most twice the
// largest size the queue has had (the slots past the elements are
// allocated, not constructed).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>

namespace prefixroute {

template <typename T>
class RingQueue {
 public:
  RingQueue() = default;
  RingQueue(const RingQueue& other) { *this = other; }
  RingQueue(RingQueue&& other) noexcept
      : slots_(std::exchange(other.slots_, nullptr)),
        capacity_(std::exchange(other.capacity_, 0)),
        head_(std::exchange(other.head_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  RingQueue& operator=(const RingQueue& other) {
    if (this == &other) return *this;
    clear();
    for (std::size_t i = 0; i < other.size_; ++i) push_back(other.slots_[other.slot(i)]);
    return *this;
  }
  RingQueue& operator=(RingQueue&& other) noexcept {
    if (this == &other) return *this;
    release();
    slots_ = std::exchange(other.slots_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
    head_ = std::exchange(other.head_, 0);
    size_ = std::exchange(other.size_, 0);
    return *this;
  }
  ~RingQueue() { release(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  /// The oldest element; the queue must not be empty.
  const T& front() const { return slots_[head_]; }
  /// The newest element; the queue must not be empty.
  const T& back() const { return slots_[slot(size_ - 1)]; }

  void push_back(T value) {
    if (size_ == capacity_) grow();
    std::construct_at(slots_ + slot(size_), std::move(value));
    ++size_;
  }

  /// Removes the oldest element; the queue must not be empty.
  void pop_front() {
    std::destroy_at(slots_ + head_);
    head_ = (head_ + 1) & (capacity_ - 1);
    --size_;
  }

  /// Removes every element; keeps the capacity.
  void clear() {
    while (size_ > 0) pop_front();
    head_ = 0;
  }

 private:
  // Slot of the i-th oldest element.
  std::size_t slot(std::size_t i) const { return (head_ + i) & (capacity_ - 1); }

  // Doubles the ring (8 slots the first time), moving the elements to slots
  // 0 .. size_ - 1 in queue order. The new slots are left unconstructed:
  // only pushed elements are ever constructed there.
  void grow() {
    const std::size_t larger = capacity_ == 0 ? 8 : 2 * capacity_;
    T* moved = std::allocator<T>{}.allocate(larger);
    for (std::size_t i = 0; i < size_; ++i) {
      std::construct_at(moved + i, std::move(slots_[slot(i)]));
      std::destroy_at(slots_ + slot(i));
    }
    if (slots_ != nullptr) std::allocator<T>{}.deallocate(slots_, capacity_);
    slots_ = moved;
    capacity_ = larger;
    head_ = 0;
  }

  void release() {
    clear();
    if (slots_ != nullptr) std::allocator<T>{}.deallocate(slots_, capacity_);
    slots_ = nullptr;
    capacity_ = 0;
  }

  T* slots_ = nullptr;  // capacity_ slots; the size_ from head_ (mod capacity_) constructed
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace prefixroute
