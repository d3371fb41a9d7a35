#include "prefixroute/policies/dynamo_kv.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <limits>

#include "prefixroute/base/deterministic_math.h"
#include "prefixroute/policies/router_queue.h"

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
constexpr std::uint64_t kDynamoKvStreamSalt = 0x64796e616d6fULL;

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

}  // namespace

DynamoKv::DynamoKv(const DynamoKvParams& params, std::uint64_t seed, std::uint64_t max_batched_tokens)
    : params_(params),
      queue_threshold_tokens_(params.queue_threshold * static_cast<double>(max_batched_tokens)),
      rng_(mix_seed(seed, kDynamoKvStreamSalt)) {
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
  if (active_prefill_.size() >= n) return;
  active_prefill_.resize(n, 0);
  active_decode_.resize(n, 0);
  changed_at_.resize(n, 0);
  const std::size_t words = (n + 63) / 64;
  idle_bits_.resize(words, 0);
  idle_free_.resize(words, 0);
  keys_ = TournamentTree<double>(n, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < n; ++i) refresh_key(i);
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

double DynamoKv::cost(std::uint64_t prefill_active, std::uint64_t decode_active, std::uint64_t prompt_length,
                      std::uint64_t prompt_blocks, std::uint64_t overlap) const {
  const std::uint64_t block = params_.block_size;
  const std::uint64_t prefill = prefill_active + prompt_length - overlap * block;
  const std::uint64_t blocks = decode_active + (prompt_blocks - overlap);
  return params_.overlap_weight * static_cast<double>(prefill) / static_cast<double>(block) +
         static_cast<double>(blocks);
}

double DynamoKv::load_key(std::size_t replica) const {
  return params_.overlap_weight * static_cast<double>(active_prefill_[replica]) /
             static_cast<double>(params_.block_size) +
         static_cast<double>(active_decode_[replica]);
}

void DynamoKv::note_change(std::size_t replica) {
  // The first change of a replica since the last choose() keeps its load at
  // that choose(), for last_cost().
  if (changed_at_[replica] != chooses_) {
    changed_at_[replica] = chooses_;
    before_change_.push_back(Snapshot{static_cast<std::uint32_t>(replica), active_prefill_[replica],
                                      active_decode_[replica]});
  }
}

void DynamoKv::refresh_key(std::size_t replica) {
  const std::uint64_t bit = std::uint64_t{1} << (replica % 64);
  if (active_prefill_[replica] == 0 && active_decode_[replica] == 0) {
    idle_bits_[replica / 64] |= bit;
    keys_.set(replica, std::numeric_limits<double>::infinity());
  } else {
    idle_bits_[replica / 64] &= ~bit;
    keys_.set(replica, load_key(replica));
  }
}

bool DynamoKv::scans_every_replica() const {
  return params_.temperature > 0 || side_ != nullptr || !std::isfinite(params_.overlap_weight) ||
         params_.overlap_weight < 0;
}

std::uint64_t DynamoKv::overlap_of(std::size_t replica) const {
  if (!last_.valid || replica >= last_.replicas) return 0;
  if (last_.scanned) return overlap_blocks_[replica];
  if (replica == last_.chosen) return last_.chosen_overlap;
  return held_.length_of(replica) / params_.block_size;
}

double DynamoKv::last_cost(std::size_t replica) const {
  if (!last_.valid || replica >= last_.replicas) return 0;
  if (last_.scanned) return costs_[replica];
  std::uint64_t prefill = active_prefill_[replica], decode = active_decode_[replica];
  if (changed_at_[replica] == chooses_) {
    for (const Snapshot& s : before_change_) {
      if (s.replica != replica) continue;
      prefill = s.prefill;
      decode = s.decode;
      break;
    }
  }
  return cost(prefill, decode, last_.prompt_length, last_.prompt_blocks, overlap_of(replica));
}

const std::vector<double>& DynamoKv::last_costs() const {
  if (!last_.scanned) {
    costs_.resize(last_.replicas);
    for (std::size_t i = 0; i < last_.replicas; ++i) costs_[i] = last_cost(i);
  }
  return costs_;
}

const std::vector<std::uint64_t>& DynamoKv::last_overlap_blocks() const {
  if (!last_.scanned) {
    overlap_blocks_.resize(last_.replicas);
    for (std::size_t i = 0; i < last_.replicas; ++i) overlap_blocks_[i] = overlap_of(i);
  }
  return overlap_blocks_;
}

std::size_t DynamoKv::choose(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  ensure_replicas(n);
  ++chooses_;
  before_change_.clear();
  last_ = LastChoice{true, scans_every_replica(), n, prompt.size(), ceil_div(prompt.size(), params_.block_size)};
  overlaps_valid_ = true;
  const std::size_t chosen = last_.scanned ? choose_by_scan(request, cluster, now) : choose_lowest_cost(prompt, cluster);
  last_.chosen_overlap = overlap_of(chosen);  // on_routed reads it again
  last_.chosen = chosen;
  predicted_ = static_cast<std::int64_t>(last_.chosen_overlap * params_.block_size);
  return chosen;
}

std::size_t DynamoKv::break_tie(const ClusterView& cluster) {
  // tied_bits_ holds the replicas at the lowest cost: the least precise-view
  // usage wins, the survivors (in replica order) draw lots. The usage is
  // read only for the tied: reading it means visiting each replica's cache.
  tied_.clear();
  std::size_t best_used = 0;
  for (std::size_t w = 0; w < tied_bits_.size(); ++w) {
    for (std::uint64_t bits = tied_bits_[w]; bits != 0; bits &= bits - 1) {
      const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
      const std::size_t used = cluster[i].precise_view().used();
      if (tied_.empty() || used < best_used) {
        best_used = used;
        tied_.clear();
      } else if (used != best_used) {
        continue;
      }
      tied_.push_back(i);
    }
  }
  // Costs are finite (validated parameters), so the minimum ties at least
  // once; the guard keeps a NaN from a hand-built instance from indexing an
  // empty list.
  if (tied_.empty()) tied_.push_back(0);
  return tied_.size() == 1 ? tied_.front()
                           : tied_[static_cast<std::size_t>(rng_.uniform_int(0, tied_.size() - 1))];
}

std::size_t DynamoKv::choose_lowest_cost(const Prompt& prompt, const ClusterView& cluster) {
  const std::uint64_t length = last_.prompt_length, blocks = last_.prompt_blocks;
  const std::size_t n = cluster.size();  // keys_ may cover more (hooks of replicas past the cluster)
  const std::size_t words = (n + 63) / 64;
  cluster.match_groups(prompt, CacheView::Precise, held_);
  assert(held_.words == words);
  // The holders, a group (one matched length) at a time, exactly as the scan
  // costs them: a busy member one by one, the idle members (whose cost
  // depends only on the matched length) once for the group. A candidate is
  // kept when it is at or below the running lowest cost, so every replica
  // at the final lowest cost is among those kept.
  double best = std::numeric_limits<double>::infinity();
  candidates_.clear();
  for (std::size_t g = 0; g < held_.size(); ++g) {
    const std::uint64_t overlap = held_.lengths[g] / params_.block_size;
    const std::uint64_t* members = held_.group(g);
    std::uint64_t any_idle = 0;
    for (std::size_t w = 0; w < words; ++w) {
      any_idle |= members[w] & idle_bits_[w];
      for (std::uint64_t busy = members[w] & ~idle_bits_[w]; busy != 0; busy &= busy - 1) {
        const std::size_t r = w * 64 + static_cast<std::size_t>(std::countr_zero(busy));
        const double c = cost(active_prefill_[r], active_decode_[r], length, blocks, overlap);
        if (c > best) continue;
        best = c;
        candidates_.push_back(Candidate{static_cast<std::uint32_t>(r), false, c});
      }
    }
    if (any_idle != 0) {
      const double c = cost(0, 0, length, blocks, overlap);
      if (c <= best) {
        best = c;
        candidates_.push_back(Candidate{static_cast<std::uint32_t>(g), true, c});
      }
    }
  }
  // Every other replica has overlap 0. The idle ones (no active work) all
  // cost the same, so they enter as one group, never one by one.
  std::uint64_t any_idle_free = 0;
  for (std::size_t w = 0; w < idle_free_.size(); ++w) {
    std::uint64_t free = w < words ? idle_bits_[w] & ~held_.all[w] : 0;
    if (w + 1 == words && n % 64 != 0) free &= (std::uint64_t{1} << (n % 64)) - 1;
    idle_free_[w] = free;
    any_idle_free |= free;
  }
  const bool idle_free = any_idle_free != 0;
  const double idle_cost = cost(0, 0, length, blocks, 0);
  if (idle_free) best = std::min(best, idle_cost);
  // A busy one costs its load key plus the same offset for all, so only
  // those whose key may reach `best` are visited: the least key's replica,
  // then the keys at most the bound, in replica order (tournament tree,
  // idle replicas at infinity), tightening it.
  const double offset = params_.overlap_weight * static_cast<double>(length) /
                            static_cast<double>(params_.block_size) +
                        static_cast<double>(blocks);
  const auto visit = [&](std::size_t i) {
    if (((held_.all[i / 64] | idle_bits_[i / 64]) >> (i % 64) & 1) != 0) return;
    const double c = cost(active_prefill_[i], active_decode_[i], length, blocks, 0);
    if (c > best) return;
    best = c;
    candidates_.push_back(Candidate{static_cast<std::uint32_t>(i), false, c});
  };
  const std::size_t least = keys_.position_of_least();
  if (least < n) visit(least);
  // Costs and keys are sums of non-negative terms rounded once per
  // operation (relative error below 1e-15 each), so a key above this bound
  // cannot give a cost at or below `best`; the 1e-9 margins are far wider
  // than the rounding and cost only a few extra visits.
  const auto bound = [&] { return best * (1 + 1e-9) - offset * (1 - 1e-9) + 1e-9; };
  for (std::size_t i = keys_.first_at_most(0, bound()); i < n; i = keys_.first_at_most(i + 1, bound()))
    if (i != least) visit(i);
  // The replicas at the lowest cost, as a set (so in replica order): the
  // candidates at it, an idle group's members, and the idle non-holders
  // when they cost as much.
  tied_bits_.assign(words, 0);
  for (const Candidate& c : candidates_) {
    if (c.cost != best) continue;
    if (c.idle_group) {
      const std::uint64_t* members = held_.group(c.index);
      for (std::size_t w = 0; w < words; ++w) tied_bits_[w] |= members[w] & idle_bits_[w];
    } else {
      tied_bits_[c.index / 64] |= std::uint64_t{1} << (c.index % 64);
    }
  }
  if (idle_free && idle_cost == best)
    for (std::size_t w = 0; w < words; ++w) tied_bits_[w] |= idle_free_[w];
  return break_tie(cluster);
}

std::size_t DynamoKv::choose_by_scan(const RouteRequest& request, const ClusterView& cluster, Tick now) {
  const Prompt& prompt = request.prompt;
  const std::size_t n = cluster.size();
  const std::uint64_t block = params_.block_size;
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
    overlap_blocks_[i] = overlap;
    costs_[i] = cost(active_prefill_[i], active_decode_[i], last_.prompt_length, last_.prompt_blocks, overlap);
  }

  if (params_.temperature > 0) {
    const auto [lo, hi] = std::minmax_element(costs_.begin(), costs_.end());
    const double min_cost = *lo, max_cost = *hi;
    if (max_cost == min_cost) return static_cast<std::size_t>(rng_.uniform_int(0, n - 1));
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
    for (std::size_t i = 0; i < n; ++i) {
      cumulative += weights_[i];
      if (target < cumulative) return i;
    }
    return n - 1;  // rounding can leave target >= the running sum's last value
  }
  const double min_cost = *std::min_element(costs_.begin(), costs_.end());
  tied_bits_.assign((n + 63) / 64, 0);
  for (std::size_t i = 0; i < n; ++i)
    if (costs_[i] == min_cost) tied_bits_[i / 64] |= std::uint64_t{1} << (i % 64);
  return break_tie(cluster);
}

void DynamoKv::on_routed(const RoutedRequest& request) {
  ensure_replicas(request.replica + 1);
  const std::uint64_t block = params_.block_size;
  const std::uint64_t prompt = request.prompt.size();
  // The overlap choose() saw on this replica; a request routed without a
  // choose() for it (tests driving the hooks directly) counts as uncached.
  const std::uint64_t overlap =
      overlaps_valid_ && last_.prompt_length == prompt ? overlap_of(request.replica) : 0;
  overlaps_valid_ = false;
  Active a{static_cast<std::uint32_t>(request.replica), prompt - overlap * block,
           ceil_div(prompt + request.output_tokens, block), true};
  note_change(a.replica);
  active_prefill_[a.replica] += a.prefill_tokens;
  active_decode_[a.replica] += a.decode_blocks;
  refresh_key(a.replica);
  active_[request.id] = a;
  if (side_) {
    side_->insert(request.prompt, request.replica);
    side_fed_.emplace_back(request.now, side_->clock());
  }
}

void DynamoKv::on_first_token(std::uint64_t id, std::size_t, Tick) {
  const auto it = active_.find(id);
  if (it == active_.end() || !it->second.prefilling) return;
  note_change(it->second.replica);
  active_prefill_[it->second.replica] -= it->second.prefill_tokens;
  refresh_key(it->second.replica);
  it->second.prefilling = false;
}

void DynamoKv::on_completed(std::uint64_t id, std::size_t replica, Tick now) {
  on_first_token(id, replica, now);  // a completion ends prefill too, if it was never reported
  const auto it = active_.find(id);
  if (it == active_.end()) return;
  note_change(it->second.replica);
  active_decode_[it->second.replica] -= it->second.decode_blocks;
  refresh_key(it->second.replica);
  active_.erase(it);
}

}  // namespace prefixroute
