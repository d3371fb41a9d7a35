#include "prefixroute/cache/prefix_index.h"

#include <algorithm>
#include <cassert>
#include <bit>
#include <sstream>

#include "prefixroute/cache/radix_cache.h"

#include "cache/child_links.h"
#include "cache/prefix_walk.h"

namespace prefixroute {

PrefixIndex::PrefixIndex(std::size_t replicas)
    : replicas_(replicas),
      words_(std::max<std::size_t>(1, (replicas + 63) / 64)),
      end_(replicas) {
  nodes_.emplace_back();  // the root: held by everyone, never freed
  bits_.assign(words_, 0);
  for (auto& ends : end_) ends.assign(1, kRoot);  // cache node 0 is the cache's root
}

void PrefixIndex::attach(std::uint32_t, const RadixCache* cache) {
  // All indexed caches compare as one tree: their runs must be one content's.
  if (content_ == nullptr) content_ = &cache->content();
  assert(content_ == &cache->content());
}

void PrefixIndex::set_edge(NodeId id, const Prompt& source, std::size_t from, std::size_t n) {
  scratch_.clear();
  scratch_.append(source, from, n);
  Node& node = nodes_[id];
  node.edge.assign(scratch_.pieces.begin(), scratch_.pieces.end());
  node.length = n;
  node.first = content_->token(node.edge[0].run, node.edge[0].offset);
}

PrefixIndex::NodeId PrefixIndex::allocate() {
  if (!free_.empty()) {
    const NodeId id = free_.back();
    free_.pop_back();
    return id;
  }
  nodes_.emplace_back();
  bits_.resize(bits_.size() + words_, 0);
  return static_cast<NodeId>(nodes_.size() - 1);
}

void PrefixIndex::free_node(NodeId id) {
  Node& node = nodes_[id];
  node.edge.clear();  // keeps its capacity for the node's next use
  node.children.clear();  // a freed node is a leaf: no links in the map either
  node.wide = false;
  node.parent = kNone;
  node.end_depth = 0;
  node.length = 0;
  std::fill(bits(id), bits(id) + words_, 0);
  free_.push_back(id);
}

PrefixIndex::NodeId PrefixIndex::find_child(NodeId parent, Token first) const {
  const Node& node = nodes_[parent];
  return child_links::find(wide_links_, node.children, node.wide, parent, first, kNone);
}

void PrefixIndex::add_child(NodeId parent, NodeId child) {
  Node& node = nodes_[parent];
  nodes_[child].parent = parent;
  child_links::insert(wide_links_, node.children, node.wide, parent, Child{nodes_[child].first, child});
}

// Splits `id` after its first `at` tokens; the new upper node takes the holder
// set (every holder of the lower part holds the upper). The lower part keeps
// its id and end depth.
PrefixIndex::NodeId PrefixIndex::split(NodeId id, std::size_t at) {
  const NodeId upper = allocate();
  const NodeId parent = nodes_[id].parent;
  PromptPieces old_edge;
  old_edge.content = content_;
  old_edge.pieces = std::move(nodes_[id].edge);
  old_edge.length = nodes_[id].length;
  set_edge(upper, old_edge.view(), 0, at);
  set_edge(id, old_edge.view(), at, old_edge.length - at);
  Node& lower = nodes_[id];
  Node& up = nodes_[upper];
  up.end_depth = lower.end_depth - lower.length;
  up.parent = parent;
  up.children.push_back(Child{lower.first, id});
  lower.parent = upper;
  std::copy(bits(id), bits(id) + words_, bits(upper));
  child_links::replace(wide_links_, nodes_[parent].children, nodes_[parent].wide, parent, up.first, upper);
  return upper;
}

void PrefixIndex::set_bit(NodeId id, std::uint32_t replica) {
  bits(id)[replica / 64] |= std::uint64_t{1} << (replica % 64);
}

bool PrefixIndex::clear_bit(NodeId id, std::uint32_t replica) {
  std::uint64_t* b = bits(id);
  b[replica / 64] &= ~(std::uint64_t{1} << (replica % 64));
  for (std::size_t w = 0; w < words_; ++w)
    if (b[w] != 0) return false;
  return true;
}

PrefixIndex::NodeId& PrefixIndex::end_of(std::uint32_t replica, std::uint32_t cache_node) {
  auto& ends = end_[replica];
  if (cache_node >= ends.size()) ends.resize(static_cast<std::size_t>(cache_node) + 1, kNone);
  return ends[cache_node];
}

namespace {

// Calls f(r) for every replica r whose bit is set in `words`.
template <typename F>
void for_each_bit(const std::uint64_t* words, std::size_t count, F&& f) {
  for (std::size_t w = 0; w < count; ++w) {
    std::uint64_t bits = words[w];
    while (bits != 0) {
      f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
}

}  // namespace

// Walks the prompt's path once. A replica's holder bit, once cleared along the
// path, stays cleared (holder sets shrink with depth), so a replica's match is
// the depth reached when it leaves the holder set: reported when it drops out,
// and for the holders of the last node reached, at the end, one word of
// replicas at a time: drop(w, bits, depth) for each non-zero word (the depths
// of successive calls never decrease). Returns the holders of the first node
// on the path (nullptr when there is none): the replicas with a non-empty
// match.
template <typename Drop>
const std::uint64_t* PrefixIndex::walk(const Prompt& prompt, Drop&& drop) const {
  if (content_ == nullptr) return nullptr;  // no cache attached: an empty tree
  const std::uint64_t* first_held = nullptr;
  const std::uint64_t* held = nullptr;  // holders of the last node entered (nullptr: root)
  const std::size_t depth = prefix_walk::match(*this, prompt, [&](const auto& step) {
    const std::uint64_t* child_held = bits(step.child);
    if (held != nullptr) {
      for (std::size_t w = 0; w < words_; ++w) {
        const std::uint64_t dropped = held[w] & ~child_held[w];
        if (dropped != 0) drop(w, dropped, step.depth);
      }
    } else {
      first_held = child_held;
    }
    held = child_held;
  }).depth;
  if (held != nullptr)
    for (std::size_t w = 0; w < words_; ++w)
      if (held[w] != 0) drop(w, held[w], depth);
  return first_held;
}

namespace {

// A walk's drop callback that calls set_depth(r, depth) for each replica r of the word.
template <typename SetDepth>
auto per_replica(SetDepth&& set_depth) {
  return [&set_depth](std::size_t w, std::uint64_t bits, std::size_t depth) {
    for (; bits != 0; bits &= bits - 1) set_depth(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)), depth);
  };
}

}  // namespace

void PrefixIndex::match_all(const Prompt& prompt, std::vector<std::size_t>& out) const {
  out.assign(replicas_, 0);
  walk(prompt, per_replica([&out](std::size_t r, std::size_t depth) { out[r] = depth; }));
}

void PrefixIndex::match_held(const Prompt& prompt, std::vector<Held>& out) const {
  out.clear();
  // As match_all, but only the holders of the first node on the path (the
  // replicas with a non-empty match) get a depth, in depth_ (scratch).
  if (depth_.size() < replicas_) depth_.resize(replicas_);
  const std::uint64_t* first_held =
      walk(prompt, per_replica([this](std::size_t r, std::size_t depth) { depth_[r] = depth; }));
  if (first_held == nullptr) return;
  for_each_bit(first_held, words_, [&](std::size_t r) {
    out.push_back(Held{static_cast<std::uint32_t>(r), depth_[r]});
  });
}

void PrefixIndex::match_groups(const Prompt& prompt, HeldGroups& out) const {
  out.reset(words_);
  // The replicas dropping out at one node boundary share their depth: the
  // walk reports them a word at a time, at non-decreasing depths, so a new
  // depth opens the next group.
  std::uint64_t* group = nullptr;
  const std::uint64_t* first_held = walk(prompt, [&](std::size_t w, std::uint64_t bits, std::size_t depth) {
    if (group == nullptr || out.lengths.back() != depth) group = out.add_group(depth);
    group[w] |= bits;
  });
  if (first_held != nullptr)
    for (std::size_t w = 0; w < words_; ++w) out.all[w] = first_held[w];
}

void PrefixIndex::on_new_leaf(std::uint32_t replica, std::uint32_t parent, std::uint32_t leaf, const Prompt& edge) {
  // The replica holds nothing below the end of its `parent` on this path:
  // mark what other replicas already hold, add the rest, and make the leaf's
  // end a boundary.
  const NodeId last = prefix_walk::insert(
      *this, end_of(replica, parent), edge, 0,
      [&](NodeId at, std::size_t depth, Token) {
        // Only this replica holds the rest.
        const NodeId fresh = allocate();
        set_edge(fresh, edge, depth, edge.size() - depth);
        nodes_[fresh].end_depth = nodes_[at].end_depth + nodes_[fresh].length;
        add_child(at, fresh);
        set_bit(fresh, replica);
        return fresh;
      },
      [&](const auto& step) { set_bit(step.child, replica); }).node;
  end_of(replica, leaf) = last;
}

void PrefixIndex::on_split(std::uint32_t replica, std::uint32_t lower, std::uint32_t upper, std::size_t at,
                           std::size_t lower_length) {
  // Called before the cache splits its node (lower_length is its length then).
  const NodeId lower_end = end_of(replica, lower);
  const std::size_t start = nodes_[lower_end].end_depth - lower_length;
  const std::size_t target = start + at;
  // The shared node containing depth `target` on the lower node's path.
  NodeId s = lower_end;
  while (nodes_[s].end_depth - nodes_[s].length >= target) s = nodes_[s].parent;
  if (nodes_[s].end_depth != target) s = split(s, target - (nodes_[s].end_depth - nodes_[s].length));
  end_of(replica, upper) = s;
}

void PrefixIndex::on_evict(std::uint32_t replica, std::uint32_t node, std::size_t length) {
  NodeId s = end_of(replica, node);
  end_of(replica, node) = kNone;
  const std::size_t start = nodes_[s].end_depth - length;
  while (s != kRoot && nodes_[s].end_depth > start) {
    const NodeId parent = nodes_[s].parent;
    if (clear_bit(s, replica)) {
      // Nobody holds it; its children are held by nobody either, so it has
      // none left (they were freed when their last holder left).
      child_links::erase(wide_links_, nodes_[parent].children, nodes_[parent].wide, parent, nodes_[s].first);
      free_node(s);
    }
    s = parent;
  }
}

std::size_t PrefixIndex::wide_node_count() const {
  return static_cast<std::size_t>(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return n.wide; }));
}

std::string PrefixIndex::check_invariants() const {
  std::ostringstream problem;
  std::size_t stray = 0;
  const std::vector<std::vector<Child>> children = child_links::all<Child>(wide_links_, nodes_, stray);
  if (stray != 0) problem << stray << " map links under nodes that are not wide; ";
  for (std::size_t id = 0; id < nodes_.size(); ++id)
    if (nodes_[id].wide && !nodes_[id].children.empty()) problem << "wide node " << id << " has vector children; ";
  std::size_t reachable = 0;
  std::vector<NodeId> stack{kRoot};
  while (!stack.empty()) {
    const NodeId id = stack.back();
    stack.pop_back();
    const Node& node = nodes_[id];
    if (id != kRoot) {
      ++reachable;
      if (node.length == 0) problem << "node " << id << " has an empty edge; ";
      std::size_t pieces_length = 0;
      for (const Piece& p : node.edge) pieces_length += p.length;
      if (pieces_length != node.length) problem << "node " << id << " length wrong; ";
      if (node.length > 0 && content_->token(node.edge[0].run, node.edge[0].offset) != node.first)
        problem << "node " << id << " first token wrong; ";
      bool any = false;
      for (std::size_t w = 0; w < words_; ++w) {
        any = any || bits(id)[w] != 0;
        if (node.parent != kRoot && (bits(id)[w] & ~bits(node.parent)[w]) != 0)
          problem << "node " << id << " held by a replica that does not hold its parent; ";
      }
      if (!any) problem << "node " << id << " held by nobody; ";
      if (node.end_depth != nodes_[node.parent].end_depth + node.length)
        problem << "node " << id << " depth wrong; ";
    }
    const std::vector<Child>& kids = children[id];
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const Child& c = kids[i];
      if (i > 0 && !(kids[i - 1].first < c.first))
        problem << "children of " << id << " not sorted/distinct; ";
      if (nodes_[c.node].parent != id) problem << "parent link of " << c.node << " wrong; ";
      if (nodes_[c.node].length == 0 || nodes_[c.node].first != c.first)
        problem << "child key of " << c.node << " wrong; ";
      stack.push_back(c.node);
    }
  }
  if (reachable != node_count()) problem << "unreachable nodes; ";
  return problem.str();
}

}  // namespace prefixroute
