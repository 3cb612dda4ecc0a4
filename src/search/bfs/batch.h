#pragma once
// One batch of the breadth-first engine: the states it expands and what their chunks produce. A batch
// is cut into chunks of consecutive states, which the threads take from ranges they steal from each
// other (stealing_ranges.h); the serial glue reads the chunks in order, so the next level is the same
// in every run whatever thread took which chunk. A batch's own states (new ones of the level) come
// first, then those carried from the batch before it (Completions, pipelining), in chunks of their own.
#include <cstdint>
#include <utility>
#include <vector>

#include "search/bfs/state_tree.h"
#include "ugs/ir/graph.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

// A child whose step's query waits for the oracle's answer: made in its place among the chunk's
// children, not kept until the answer says so.
struct Pending {
  uint32_t child;  // its index among the chunk's children
  expr::ExprId query;
};

// What one chunk produces.
struct Chunk {
  std::vector<Node> children;                // packed as the next level holds them
  std::vector<Step> whole_steps;             // the children's distinct steps stored whole (a node names one)
  std::vector<uint64_t> whole_hashes;        // per whole step: its step_hash
  std::vector<uint32_t> whole_slots;         // whole_steps by hash (store_whole)
  std::vector<uint64_t> keys;                // per child: its key
  std::vector<uint8_t> keep;                 // whether it survives the oracle, dedup and routing
  std::vector<uint8_t> promise;              // per child: how near it looks to a μGraph (promise.h)
  std::vector<KernelGraph> kernel_level;     // function dedup: the children outside any block graph
  std::vector<uint32_t> kernel_level_child;  // and their index among the chunk's children
  std::vector<Pending> misses;               // children whose query the oracle's cache did not know
  std::vector<uint32_t> deferred;            // states with completions: expanded once they are verified
  // Emptied; a buffer over 1 MiB is freed, so that a batch of states with thousands of children each
  // does not leave every chunk holding its largest buffers for the rest of the search.
  void clear();
};

struct Batch {
  // States per chunk: 64, or fewer in a small batch so that every thread gets at least 32 chunks (a
  // small level's few heavy states, with completions to verify, then spread over the threads).
  static constexpr size_t kChunk = 64;

  std::vector<NodeId> nodes;    // the states of the current level: its own, then the carried ones
  std::vector<uint64_t> keys;   // per state: its key, once visited
  size_t own = 0;               // states of its own
  size_t chunk = kChunk;        // states per chunk
  size_t own_chunks = 0;        // chunks of its own states
  size_t chunk_count = 0;       // chunks of all its states
  bool draining = true;         // it finishes its own states with completions (else it carries them)
  std::vector<Chunk> chunks;    // reused: the first chunk_count are this batch's

  size_t size() const { return nodes.size(); }
  // Lays out the chunks: `nodes` holds the batch's own states; the carried ones are appended, their
  // chunks starting with their deferral lists, as if the expansion had made them.
  void lay_out(const std::vector<NodeId>& carried, int threads, bool drains);
  // Chunk c's states [begin, end).
  std::pair<size_t, size_t> states_of(size_t c) const;
};

}  // namespace ugs::search_detail
