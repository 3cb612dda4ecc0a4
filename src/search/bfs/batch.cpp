#include "search/bfs/batch.h"

#include <algorithm>

namespace ugs::search_detail {

namespace {

constexpr size_t kChunkKeepBytes = size_t{1} << 20;

template <class V>
void empty(V& v) {
  if (v.capacity() * sizeof(typename V::value_type) > kChunkKeepBytes)
    V().swap(v);
  else
    v.clear();
}

}  // namespace

void Chunk::clear() {
  empty(children);
  empty(whole_steps);
  empty(whole_hashes);
  empty(whole_slots);
  empty(keys);
  empty(keep);
  empty(promise);
  kernel_level.clear();
  kernel_level_child.clear();
  empty(misses);
  deferred.clear();
}

void Batch::lay_out(const std::vector<NodeId>& carried, int threads, bool drains) {
  own = nodes.size();
  chunk = std::clamp<size_t>(own / (32 * static_cast<size_t>(threads)), 1, kChunk);
  nodes.insert(nodes.end(), carried.begin(), carried.end());
  keys.resize(nodes.size());
  own_chunks = (own + chunk - 1) / chunk;
  chunk_count = own_chunks + (nodes.size() - own + chunk - 1) / chunk;
  if (chunks.size() < chunk_count) chunks.resize(chunk_count);
  for (size_t c = own_chunks; c < chunk_count; ++c) {
    chunks[c].clear();
    const auto [begin, end] = states_of(c);
    for (size_t i = begin; i < end; ++i) chunks[c].deferred.push_back(static_cast<uint32_t>(i));
  }
  draining = drains;
}

std::pair<size_t, size_t> Batch::states_of(size_t c) const {
  if (c < own_chunks) return {c * chunk, std::min(own, (c + 1) * chunk)};
  const size_t begin = own + (c - own_chunks) * chunk;
  return {begin, std::min(nodes.size(), begin + chunk)};
}

}  // namespace ugs::search_detail
