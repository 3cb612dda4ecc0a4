#pragma once
// A stream of subexpression queries with the mix a μGraph generator issues: a breadth-first
// enumeration of kernel ops, block-graph openings (grid, imaps, fmaps, loop) and block ops over a
// program, where every candidate op's output expression is one query and the oracle's answers decide
// which states go on. Shape checks are the IR's own; the limits are small so the stream stays quick.
#include <cstdint>
#include <vector>

#include "ugs/expr/oracle.h"
#include "ugs/ir/graph.h"

namespace ugs::bench {

struct StreamLimits {
  int kernel_levels = 2;      // kernel ops before the block graph opens
  int block_levels = 5;       // block ops after it opens
  int max_frontier = 4000;    // states kept per level (an even sample beyond)
};

struct QueryStream {
  std::vector<std::vector<expr::ExprId>> levels;  // the queries of each BFS level, in issue order
  size_t total() const;
  size_t distinct() const;
};

// Records the stream for `program` (its inputs and output targets), deciding survivors with `oracle`.
QueryStream record_stream(expr::ExprPool& pool, expr::Oracle& oracle, const KernelGraph& program,
                          const StreamLimits& limits);

}  // namespace ugs::bench
