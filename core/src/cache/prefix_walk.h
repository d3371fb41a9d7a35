// prefix_walk: the descent of a prompt down a radix tree, written once for
// the three trees (RadixCache, PrefixIndex, ApproxRadixTree). Each tree keeps
// its own node layout and its own per-node bookkeeping (recency and hits,
// holder bits, holders and leaf sets); the walk only finds the path.
//
// One step: the child whose edge starts with the prompt's next token
// (find_child), then how far that edge and the rest of the prompt agree
// (common_prefix, from the second token: the first one chose the child).
//
//   prompt [1 2 3 7 8]
//
//     (root)          find_child(root, 1) -> (a)
//       | 1 2 3 4     common_prefix([2 3 4], [2 3 7 8]) = 2: common = 3 < 4,
//      (a)            the prompt leaves the edge inside it
//
//   match:  enter((a), depth 0, common 3), stop; matched 3 tokens.
//   insert: split (a) after 3 tokens, enter the upper part (m), go on from
//           it: no child of (m) starts with 7, so grow a leaf of [7 8].
//
//     (root)
//       | 1 2 3
//      (m)          <- split: the upper part; (a) keeps its id below it
//     /    |
//    4     7 8
//   (a)   (leaf)    <- grow: the rest of the prompt in one new node
//
// After a step that matched its whole edge, the walk stands on the child and
// the prompt's cursor moves past the edge. An insert can skip comparing the
// first `known` tokens (a length the caller has just learnt is cached): every
// edge wholly within them counts as matched unread.
//
// A tree hands the walk its nodes through Access<Tree> (below), which it
// befriends: `nodes_` (each node with `edge`, its pieces, and `length`, the
// tokens in them), `content_` (the content of the edges' pieces; set
// whenever the tree has a node), `find_child(parent, first)` (the child or
// kNone), `split(node, at)` (for insert: the new upper part of `node` cut after
// `at` tokens, `node` keeping its id as the lower part) and kRoot, kNone.
//
// Cost: per node on the path one child lookup and one common_prefix (no
// token read where the edge and the prompt are the same stretch of one run).
// The walk is inlined (always_inline) into each caller, which instantiates it
// with its own per-step actions: no call and no indirection per step.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "prefixroute/base/content.h"
#include "prefixroute/base/token.h"

namespace prefixroute::prefix_walk {

/// What the walk needs of a tree, by the names every tree uses for it.
template <class Tree>
struct Access {
  using NodeId = typename Tree::NodeId;
  static constexpr NodeId kRoot = Tree::kRoot;
  static constexpr NodeId kNone = Tree::kNone;
  static NodeId find_child(const Tree& tree, NodeId parent, Token first) { return tree.find_child(parent, first); }
  static std::size_t length(const Tree& tree, NodeId id) { return tree.nodes_[id].length; }
  static PieceCursor edge(const Tree& tree, NodeId id, std::size_t from) {
    return PieceCursor(tree.nodes_[id].edge, from);
  }
  static const Content& content(const Tree& tree) { return *tree.content_; }
  static NodeId split(Tree& tree, NodeId id, std::size_t at) { return tree.split(id, at); }
};

/// One edge the walk enters.
template <typename NodeId>
struct Step {
  NodeId parent;       ///< the node the walk stood on
  NodeId child;        ///< its child on the prompt's path (in an insert, wholly on it: split first)
  std::size_t depth;   ///< prompt tokens before the child's edge
  std::size_t common;  ///< tokens of the edge the prompt matches, >= 1
};

/// Where a walk stopped.
template <typename NodeId>
struct End {
  NodeId node;        ///< the deepest node whose whole edge the prompt matches (or the start);
                      ///< in an insert, the node that ends the prompt's path
  std::size_t depth;  ///< prompt tokens matched (in an insert, all of them)
};

namespace detail {

/// Takes no action: grow() of a walk that only reads.
struct NoGrow {};

/// The walk of match() (`Tree` const) and insert() (`Tree` mutable, kInsert).
template <bool kInsert, class Tree, class Grow, class Enter>
[[gnu::always_inline]] inline auto walk(Tree& tree, typename Access<std::remove_const_t<Tree>>::NodeId from,
                                        const Prompt& prompt, std::size_t known, Grow& grow, Enter& enter) {
  using A = Access<std::remove_const_t<Tree>>;
  using NodeId = typename A::NodeId;
  // The edges' content and the prompt's. A match reads both once. An
  // insert's prompt is of the tree's content, which it reads at each use:
  // the compiler then sees that the two are one (common_prefix's test of
  // that folds away) and holds no register for it across the insert's own
  // actions (fewer instructions per step than reading it once).
  const Content* const edges_once = kInsert ? nullptr : &A::content(tree);
  const Content* const prompt_once = prompt.content;
  const auto edges = [&]() -> const Content& {
    if constexpr (kInsert) return A::content(tree);
    else return *edges_once;
  };
  const auto prompt_content = [&]() -> const Content& {
    if constexpr (kInsert) return A::content(tree);
    else return *prompt_once;
  };
  NodeId current = from;
  std::size_t depth = 0;
  PieceCursor at(prompt.pieces, 0);
  while (depth < prompt.size()) {
    const Piece next = at.rest();
    const Token first = prompt_content().token(next.run, next.offset);
    NodeId child = A::find_child(tree, current, first);
    if (child == A::kNone) {
      if constexpr (kInsert) {
        current = grow(current, depth, first);
        depth = prompt.size();
      }
      break;
    }
    const std::size_t length = A::length(tree, child);
    const std::size_t limit = std::min(length, prompt.size() - depth);
    // Compare from the first token not known to match: the first matched
    // through find_child, and those up to `known`.
    const std::size_t checked = known > depth ? std::min(known - depth, limit) : 1;
    std::size_t common = limit;
    if (checked < limit) {
      PieceCursor rest = at;
      rest.advance(checked);
      common = checked + common_prefix(edges(), A::edge(tree, child, checked), prompt_content(), rest,
                                       limit - checked);
    }
    if constexpr (kInsert) {
      if (common < length) child = A::split(tree, child, common);
    }
    const Step<NodeId> step{current, child, depth, common};
    depth += common;
    enter(step);
    if constexpr (!kInsert) {
      if (common < length) break;
    }
    if (depth < prompt.size()) at.advance(common);
    current = child;
  }
  return End<NodeId>{current, depth};
}

}  // namespace detail

/// Walks `prompt` down `tree` from the root, calling enter(Step) on every
/// edge whose first token the prompt continues with; stops at the first
/// token no child starts with or inside an edge, and returns where (End:
/// depth is the tokens matched). The prompt may be of any content. The tree's
/// content_ must be set (a tree that has none yet is empty: its caller
/// answers without walking).
template <class Tree, class Enter>
[[gnu::always_inline]] inline auto match(const Tree& tree, const Prompt& prompt, Enter&& enter) {
  detail::NoGrow none;
  return detail::walk<false>(tree, Access<Tree>::kRoot, prompt, 0, none, enter);
}

/// Adds `prompt` below node `from` of `tree`: where the prompt leaves an edge
/// inside it, splits the edge (Tree's split) and calls enter(Step) with the
/// upper part, as for every edge on the path; where no child continues the
/// prompt, calls grow(parent, depth, first token) for the tree to hang the
/// rest of the prompt (tokens [depth, size)) below `parent` as one new leaf,
/// which it returns. The prompt must be of the tree's content; its first
/// `known` tokens must be on the tree's path (they are not compared).
/// Returns the node ending the prompt's path (`from` for an empty prompt).
template <class Tree, class Grow, class Enter>
[[gnu::always_inline]] inline auto insert(Tree& tree, typename Access<Tree>::NodeId from, const Prompt& prompt,
                                          std::size_t known, Grow&& grow, Enter&& enter) {
  return detail::walk<true>(tree, from, prompt, known, grow, enter);
}

}  // namespace prefixroute::prefix_walk
