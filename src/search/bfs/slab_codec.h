#pragma once
// A slab of the frontier's tree (state_tree.h) as a checkpoint keeps it: a slab joined to its level
// never changes (one that loses expanded nodes is marked unwritten), so a checkpoint writes each slab once
// and the next ones only name it. The bytes: the counts (nodes, whole steps, bases, the bases' bytes),
// then the nodes, the whole steps (field by field, state_codec.h: the same steps give the same bytes),
// the bases encoded and their keys. The nodes' and steps' queries are left out: they are ids in the
// pool of the run that wrote them, and a resume recomputes them.
// Internal to src/search.
#include <cstdint>
#include <span>
#include <vector>

#include "search/bfs/state_tree.h"

namespace ugs::search_detail {

void encode_slab(const NodeSlab& slab, std::vector<uint8_t>& out);
// False where `bytes` are not one encoded slab (counts past a slab's or past the bytes, bases that do
// not decode). Only the layout is checked here: whether its steps and bases are ones a search makes is
// the resume's to check, against the levels above (bfs.cpp).
[[nodiscard]] bool decode_slab(std::span<const uint8_t> bytes, NodeSlab& slab);

}  // namespace ugs::search_detail
