#include "prefixroute/policies/router_queue.h"

#include <utility>

namespace prefixroute {

void RouterQueue::push(std::uint64_t id, const SourcedRequest& request) {
  std::uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(held_.size());
    held_.emplace_back();
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
  }
  held_[slot].id = id;
  held_[slot].request = request;
  const std::uint64_t key = order_ == HoldOrder::ShortestPromptFirst ? request.prompt.length : 0;
  heap_.push(Entry{key, id, slot});
}

void RouterQueue::pop(HeldRequest& out) {
  const Entry top = heap_.top();
  heap_.pop();
  out = std::move(held_[top.slot]);
  free_slots_.push_back(top.slot);
}

}  // namespace prefixroute
