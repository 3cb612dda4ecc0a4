#include "search/bfs/tree_checkpoint.h"

#include <algorithm>
#include <string>
#include <utility>

#include "search/bfs/slab_codec.h"
#include "search/bfs/state_check.h"
#include "search/distributed/state_wire.h"
#include "ugs/util/error.h"
#include "ugs/util/hash.h"

namespace ugs::search_detail {

void TreeSource::new_slabs(const Slab& slab) {
  for (size_t d = 0; d < store_.depths(); ++d) {
    Level& level = store_.level(static_cast<int>(d));
    for (size_t i = 0; i < level.slab_count(); ++i) {
      NodeSlab& s = level.slab(i);
      if (s.saved) continue;
      encode_slab(s, encoded_);
      slab(next_id_, encoded_);
      s.saved = next_id_++;  // only once written: a write that throws leaves it to the next checkpoint
      s.saved_bytes = encoded_.size();
      s.saved_hash = hash_bytes(encoded_.data(), encoded_.size());
      written_ += s.nodes.size();
    }
  }
}

std::vector<CheckpointLevel> TreeSource::tree() const {
  std::vector<CheckpointLevel> tree(store_.depths());
  for (size_t d = 0; d < tree.size(); ++d) {
    const Level& level = store_.level(static_cast<int>(d));
    tree[d].pending = level.pending();
    for (size_t i = 0; i < level.slab_count(); ++i) {
      const NodeSlab& s = level.slab(i);
      tree[d].slabs.push_back({s.saved, s.nodes.size(), s.saved_bytes, s.saved_hash});
    }
  }
  return tree;
}

uint64_t TreeSource::unwritten() const {
  std::vector<uint64_t> sizes;
  store_.pending_sizes(sizes);
  uint64_t n = carried_ ? carried_->size() : 0;
  for (size_t d = 0; d < store_.depths(); ++d) {
    const Level& level = store_.level(static_cast<int>(d));
    n += sizes[d] - level.pending();  // in the threads' open slabs, joined before a checkpoint
    for (size_t i = 0; i < level.slab_count(); ++i)
      if (!level.slab(i).saved) n += level.slab(i).nodes.size();
  }
  return n;
}

// The carried states: a cursor walks to each, and each is encoded whole with its key, in rounds of a
// fixed number of states per thread, so that the file is the same whatever the timing.
void TreeSource::layer(size_t depth, const Chunk& chunk) {
  if (static_cast<int>(depth) != current_ || !carried_ || carried_->empty()) return;
  const std::vector<NodeId>& ids = *carried_;
  written_ += ids.size();
  const size_t threads = parts_.size();
  for (size_t from = 0; from < ids.size(); from += kRound * threads) {
    const size_t round = std::min(ids.size() - from, kRound * threads);
    team_.each_thread(nullptr, [&](int t) {
      Part& part = parts_[t];
      part.states.clear();
      part.keys.clear();
      for (size_t i = from + round * t / threads; i < from + round * (t + 1) / threads; ++i) {
        part.cursor.move_to(store_.levels(), static_cast<int>(depth), ids[i], gen_, store_.tree());
        part.states.push(part.cursor.state());
        part.keys.push_back(part.cursor.key());
      }
    });
    for (const Part& part : parts_)
      chunk(part.keys.size(), std::span(part.states.data().data(), part.states.data().size()), part.keys);
  }
}

namespace {

struct Checker {
  Cursor cursor;
  State state, scratch;
  Frontier fresh;
};

}  // namespace

uint64_t restore_tree(const Checkpoint& c, const CheckpointStore& files, int rank, LevelStore& store,
                      const Generator& gen, const GraphRules& rules, Team& team) {
  const size_t depths = std::max(c.tree.size(), c.layers.size());
  store.reset(depths);
  std::vector<Checker> checkers(team.size());
  uint64_t largest = 0;
  for (size_t d = 0; d < depths; ++d) {
    const auto damaged = [&](const std::string& what) {
      return InputError("--resume: the checkpoint's level " + std::to_string(d) + " " + what +
                        "; the file is damaged, start the search again without --resume");
    };
    std::vector<NodeSlab> slabs;
    uint64_t nodes = 0;
    if (d < c.tree.size())
      for (const CheckpointSlab& written : c.tree[d].slabs) {
        const HugeBytes bytes = files.read_slab(rank, written);
        NodeSlab& slab = slabs.emplace_back();
        if (!decode_slab(bytes, slab) || written.nodes == 0 || written.nodes > slab.nodes.size())
          throw damaged("slab " + std::to_string(written.id) + " is not one the search writes");
        slab.nodes.resize(written.nodes);
        slab.saved = written.id;
        slab.saved_bytes = written.bytes;
        slab.saved_hash = written.hash;
        nodes += written.nodes;
        largest = std::max(largest, written.id);
      }
    // The carried states, taken from the level but not finished, go after its pending nodes as bases:
    // no id the level below names moves.
    uint64_t carried = 0;
    if (d < c.layers.size() && c.layers[d].count > 0) {
      const CheckpointLayer& layer = c.layers[d];
      Frontier states;
      if (layer.keys.size() != layer.count || !states.assign(Bytes(layer.states.begin(), layer.states.end()), layer.count))
        throw damaged("does not hold its " + std::to_string(layer.count) + " carried states");
      NodeSlab slab;
      for (size_t i = 0; i < states.size(); ++i) {
        if (slab.full()) slabs.push_back(std::exchange(slab, NodeSlab{}));
        slab.push_base(states.state_bytes(i), states.bytes_of(i), layer.keys[i]);
      }
      slabs.push_back(std::move(slab));
      carried = layer.count;
    }
    const uint64_t pending = carried + (d < c.tree.size() ? c.tree[d].pending : 0);
    if (pending > nodes + carried) throw damaged("names more pending nodes than it holds");
    // Every slab checked, each on one thread: its bases whole (their expressions rebuilt in this run's
    // pool), its nodes' parents and whole steps in place, and each step against its parent state.
    team.each(
        nullptr, slabs.size(),
        [&](size_t s, int thread) {
          NodeSlab& slab = slabs[s];
          Checker& check = checkers[thread];
          if (!slab.bases.empty()) {
            check.fresh.clear();
            for (size_t i = 0; i < slab.bases.size(); ++i) {
              slab.bases.decode_at(i, check.state);
              if (!well_formed(check.state, rules))
                throw damaged("holds a state no search makes (slab " + std::to_string(s) + ", state " +
                              std::to_string(i) + ")");
              rebuild_expressions(check.state, gen.pool());
              check.fresh.push(check.state);
            }
            std::swap(slab.bases, check.fresh);
          }
          for (Node& n : slab.nodes) {
            if (n.parent == kBase) {
              if (n.step >= slab.bases.size()) throw damaged("names a state it does not hold");
              continue;
            }
            if (d == 0 || !store.level(static_cast<int>(d) - 1).holds(n.parent) ||
                !whole_step_within(n, slab.whole_steps.size()))
              throw damaged("names a node or a step it does not hold");
            check.cursor.move_to(store.levels(), static_cast<int>(d) - 1, n.parent, gen, store.tree());
            const std::optional<expr::ExprId> query =
                step_fits(check.cursor.state_for_check(), unpack_step(n, slab.whole_steps), gen, check.scratch);
            if (!query) throw damaged("holds a step no search makes (slab " + std::to_string(s) + ")");
            n.query = *query;
          }
        },
        /*dynamic=*/true);
    store.level(static_cast<int>(d)).restore(std::move(slabs), pending);
  }
  return largest;
}

}  // namespace ugs::search_detail
