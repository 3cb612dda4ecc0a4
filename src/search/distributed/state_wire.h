#pragma once
// Search states crossing a process boundary (dfs-mpi's middle states, bfs's routed children, a
// resumed checkpoint): the compact encoding of state_codec.h, whose expression ids are the writer's.
// The reader decodes it and recomputes every expression in its own pool from the graph (memoized in
// the pool, so cheap).
#include "search/bfs/state_codec.h"
#include "search/distributed/wire.h"
#include "ugs/expr/expr.h"

namespace ugs::search_detail {

void rebuild_expressions(State& state, expr::ExprPool& pool);
// The encoding's bytes, as one item of a message.
void put_state(const uint8_t* encoded, size_t bytes, WireWriter& out);
// One state of a message, with its expressions rebuilt in `pool`.
void get_state(WireReader& in, expr::ExprPool& pool, State& state);

}  // namespace ugs::search_detail
