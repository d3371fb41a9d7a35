#include "prefixroute/policies/dynamo_kv.h"

#include <algorithm>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/sim/router_queue.h"

namespace prefixroute {

const PolicySpec& dynamo_kv_policy_spec() {
  static const PolicySpec spec = policy_spec<DynamoKvParams>(
      {"dynamo_kv", "Dynamo KV router",
       "NVIDIA Dynamo: lowest cost of prefill blocks to compute plus blocks held, from KV events.",
       {"#e11d48", "#fb7185"}},
      {param<&DynamoKvParams::block_size>("block_size", "Block size", 1, 65536, "tokens", "KV block size."),
       param<&DynamoKvParams::overlap_weight>("overlap_weight", "Overlap weight", 0, 1e6, "",
                                              "Weight of the prefill-blocks term in the cost."),
       param<&DynamoKvParams::temperature>(
           "temperature", "Temperature", 0, 1e6, "",
           "0: lowest cost wins; > 0: softmax sampling over normalised costs (seeded)."),
       param<&DynamoKvParams::predicted_ttl_s>(
           "predicted_ttl_s", "Predicted-index TTL", 0, 1e6, "s",
           "> 0: routing decisions also feed a side index kept this long; overlap is the larger of the "
           "KV-event and side-index overlaps (Dynamo's predicted TTL); 0 = off."),
       choice<&DynamoKvParams::router_queue>(
           "router_queue", "Router queue", "off,fcfs,spf",
           "Hold requests at the router while every replica's active prefill tokens exceed the queue "
           "threshold, routing them when one drops to it (Dynamo's router queue): fcfs releases the earliest "
           "arrival first, spf the shortest prompt first; off = route every request at arrival. The time held "
           "counts in TTFT."),
       param<&DynamoKvParams::queue_threshold>(
           "queue_threshold", "Queue threshold", 0, 1e6, "x step budget",
           "With router_queue on: a replica is busy when its active prefill tokens exceed this x "
           "cluster.max_batched_tokens (Dynamo's --router-queue-threshold).")},
      [](const DynamoKvParams& p, const PolicyContext& context) -> std::unique_ptr<RoutingPolicy> {
        return std::make_unique<DynamoKv>(p, context.seed, context.cluster.max_batched_tokens);
      },
      [](const DynamoKvParams& p, const PolicyContext&, const RoutedSize& size) -> double {
        // The router queue may hold every request at once, each with its
        // prompt's pieces copied (sim/router_queue.h).
        if (p.router_queue == DynamoRouterQueue::Off) return 0.0;
        return size.requests * (sizeof(HeldRequest) + sizeof(std::uint64_t) * 3) +
               size.prompt_pieces * sizeof(Piece);
      });
  return spec;
}
namespace {

// Salt of the policy's random stream, so policies sharing a scenario seed draw
// independent numbers ("dynamo" in ASCII).
constexpr std::uint64_t kStreamSalt = 0x64796e616d6fULL;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

DynamoKv::DynamoKv(const DynamoKvParams& params, std::uint64_t seed, std::uint64_t max_batched_tokens)
    : params_(params),
      queue_threshold_tokens_(params.queue_threshold * static_cast<double>(max_batched_tokens)),
      rng_(mix_seed(seed, kStreamSalt)) {
  if (params_.block_size == 0) params_.block_size = 1;
  if (params_.predicted_ttl_s > 0) {
    side_ = std::make_unique<ApproxRadixTree>();
    side_ttl_ = std::max<Tick>(1, seconds_to_ticks_saturating(params_.predicted_ttl_s));
  }
}

void DynamoKv::expire_side(Tick now) {
  // Entries fed at t expire at t + TTL; a re-fed path is refreshed (its
  // nodes take the later clock), so trimming by clock drops exactly the
  // entries last fed at or before now - TTL.
  std::uint64_t cutoff = 0;
  while (!side_fed_.empty() && side_fed_.front().first <= now - side_ttl_) {
    cutoff = side_fed_.front().second + 1;
    side_fed_.pop_front();
  }
  if (cutoff == 0) return;
  for (std::size_t r = 0; r < side_->replicas(); ++r) side_->trim_before(r, cutoff);
}

void DynamoKv::ensure_replicas(std::size_t n) {
  if (active_prefill_.size() < n) {
    active_prefill_.resize(n, 0);
    active_decode_.resize(n, 0);
  }
}

std::uint64_t DynamoKv::active_prefill_tokens(std::size_t replica) const {
  return replica < active_prefill_.size() ? active_prefill_[replica] : 0;
}

std::uint64_t DynamoKv::active_decode_blocks(std::size_t replica) const {
  return replica < active_decode_.size() ? active_decode_[replica] : 0;
}

std::optional<HoldOrder> DynamoKv::router_queue() const {
  switch (params_.router_queue) {
    case DynamoRouterQueue::Fcfs:
      return HoldOrder::Fcfs;
    case DynamoRouterQueue::ShortestPromptFirst:
      return HoldOrder::ShortestPromptFirst;
    case DynamoRouterQueue::Off:
      break;
  }
  return std::nullopt;
}

bool DynamoKv::holds(const ClusterView& cluster, Tick) const {
  if (params_.router_queue == DynamoRouterQueue::Off) return false;
  // A replica this router has never routed to has no active prefill.
  if (active_prefill_.size() < cluster.size()) return false;
  for (std::size_t i = 0; i < cluster.size(); ++i)
    if (static_cast<double>(active_prefill_[i]) <= queue_threshold_tokens_) return false;
  return true;
}

std::size_t DynamoKv::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::span<const Replica> replicas = cluster.replicas();
  const std::size_t n = replicas.size();
  ensure_replicas(n);
  const std::uint64_t block = params_.block_size;
  const std::uint64_t prompt_length = prompt.size();
  const std::uint64_t prompt_blocks = ceil_div(prompt_length, block);
  costs_.resize(n);
  overlap_blocks_.resize(n);
  cluster.match_all(prompt, CacheView::Precise, matched_);
  if (side_) {
    expire_side(now);
    side_->set_replicas(n);
    side_->match(prompt, side_matched_);
    for (std::size_t i = 0; i < n; ++i) matched_[i] = std::max(matched_[i], side_matched_[i]);
  }
  std::size_t last_matched = ~std::size_t{0};
  std::uint64_t overlap = 0;
  for (std::size_t i = 0; i < n; ++i) {
    // A 64-bit division only when the matched length differs from the previous replica's.
    if (matched_[i] != last_matched) {
      last_matched = matched_[i];
      overlap = matched_[i] / block;
    }
    const std::uint64_t prefill = active_prefill_[i] + prompt_length - overlap * block;
    const std::uint64_t blocks = active_decode_[i] + (prompt_blocks - overlap);
    overlap_blocks_[i] = overlap;
    costs_[i] = params_.overlap_weight * static_cast<double>(prefill) / static_cast<double>(block) +
                static_cast<double>(blocks);
  }
  last_prompt_tokens_ = prompt.size();
  overlaps_valid_ = true;

  std::size_t chosen = 0;
  if (params_.temperature > 0) {
    const auto [lo, hi] = std::minmax_element(costs_.begin(), costs_.end());
    const double min_cost = *lo, max_cost = *hi;
    if (max_cost == min_cost) {
      chosen = static_cast<std::size_t>(rng_.uniform_int(0, n - 1));
    } else {
      // Weights in (0, 1]; the cheapest replica has weight 1. Summed in index
      // order, so the same costs and draw give the same choice everywhere.
      // Each weight is computed once (dmath::exp is the costly part of a
      // choice at hundreds of replicas) and summed twice in the same order.
      const double scale = (max_cost - min_cost) * params_.temperature;
      weights_.resize(n);
      double total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        weights_[i] = dmath::exp(-(costs_[i] - min_cost) / scale);
        total += weights_[i];
      }
      const double target = rng_.uniform01() * total;
      double cumulative = 0;
      chosen = n - 1;  // rounding can leave target >= the running sum's last value
      for (std::size_t i = 0; i < n; ++i) {
        cumulative += weights_[i];
        if (target < cumulative) {
          chosen = i;
          break;
        }
      }
    }
  } else {
    // Lowest cost, then least precise-view usage; the survivors draw lots.
    tied_.clear();
    // The usage is read only for the replicas at the lowest cost: reading it
    // means visiting each replica's cache, which at hundreds of replicas cost
    // more than computing every cost.
    const double min_cost = *std::min_element(costs_.begin(), costs_.end());
    std::size_t best_used = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (costs_[i] != min_cost) continue;
      const std::size_t used = replicas[i].precise_view().used();
      if (tied_.empty() || used < best_used) {
        tied_.clear();
        tied_.push_back(i);
        best_used = used;
      } else if (used == best_used) {
        tied_.push_back(i);
      }
    }
    // Costs are finite (validated parameters), so the minimum ties at least
    // once; the guard keeps a NaN from a hand-built instance from indexing an
    // empty list.
    if (tied_.empty()) tied_.push_back(0);
    chosen = tied_.size() == 1 ? tied_.front()
                               : tied_[static_cast<std::size_t>(rng_.uniform_int(0, tied_.size() - 1))];
  }
  predicted_ = static_cast<std::int64_t>(overlap_blocks_[chosen] * block);
  return chosen;
}

void DynamoKv::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  const std::uint64_t block = params_.block_size;
  const std::uint64_t prompt = request.prompt.size();
  // The overlap choose() saw on this replica; a request routed without a
  // choose() for it (tests driving the hooks directly) counts as uncached.
  const std::uint64_t overlap =
      overlaps_valid_ && last_prompt_tokens_ == prompt && request.replica < overlap_blocks_.size()
          ? overlap_blocks_[request.replica]
          : 0;
  overlaps_valid_ = false;
  Active a{static_cast<std::uint32_t>(request.replica), prompt - overlap * block,
           ceil_div(prompt + request.output_tokens, block), true};
  active_prefill_[a.replica] += a.prefill_tokens;
  active_decode_[a.replica] += a.decode_blocks;
  active_[request.id] = a;
  if (side_) {
    side_->insert(request.prompt, request.replica);
    side_fed_.emplace_back(request.now, side_->clock());
  }
}

void DynamoKv::on_first_token(std::uint64_t id, std::size_t, Tick) {
  const auto it = active_.find(id);
  if (it == active_.end() || !it->second.prefilling) return;
  active_prefill_[it->second.replica] -= it->second.prefill_tokens;
  it->second.prefilling = false;
}

void DynamoKv::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  on_first_token(id, replica, now);  // a completion ends prefill too, if it was never reported
  const auto it = active_.find(id);
  if (it == active_.end()) return;
  active_decode_[it->second.replica] -= it->second.decode_blocks;
  active_.erase(it);
}

}  // namespace prefixroute
