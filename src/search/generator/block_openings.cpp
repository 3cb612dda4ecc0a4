// Opening a block graph: inputs (a combination of kernel tensors, or Mirage's one choice) × launch
// (grid, listed or from Mirage's rule over the inputs, × loop range) × per-input (imap, fmap),
// enumerated as one product. A symbolic opening (config `symbolic`) is one step per inputs and maps,
// with the launches that open them.
#include <algorithm>
#include <bit>
#include <span>
#include <vector>

#include "search/generator/closing_memo.h"
#include "search/generator/enumerate.h"
#include "search/generator/opening_memos.h"
#include "search/generator/output_shapes.h"
#include "search/generator/output_symbols.h"
#include "search/generator/reach.h"
#include "ugs/ir/canonical.h"
#include "ugs/search/generator/generator.h"
#include "ugs/search/generator/mirage_space.h"
#include "ugs/util/hash.h"

namespace ugs {

using search_detail::Odometer;
using search_detail::TableOpening;

namespace {

struct LoaderChoice {
  Axes imap;
  int8_t fmap;
  Shape tile;
};

// Every valid (imap, fmap) of one input under a grid and loop range: each axis of size > 1 maps a
// distinct dim or none; with a loop, fmap names a dim or none.
std::vector<LoaderChoice> loader_choices(const Shape& src, const Dim3& grid, int32_t loop, const SearchConfig& cfg) {
  std::vector<LoaderChoice> choices;
  FixedVec<int, 3> radix;
  for (int a = 0; a < 3; ++a) radix.push_back(grid[a] > 1 ? src.rank + 1 : 1);  // digit 0: φ
  Odometer<3> im(radix);
  do {
    Axes imap{kNoDim, kNoDim, kNoDim};
    for (int a = 0; a < 3; ++a) imap[a] = static_cast<int8_t>(im.digits()[a] - 1);
    if (!cfg.tries_imap(imap)) continue;
    for (int f = -1; f < (loop > 1 ? src.rank : 0); ++f) {
      if (loop > 1 && !cfg.tries_fmap(static_cast<int8_t>(f))) continue;  // a loop of 1 has only φ
      BlockGraph probe;
      probe.grid = grid;
      probe.loop = loop;
      if (probe.add_input(0, src, imap, static_cast<int8_t>(f)) == Verdict::Ok)
        choices.push_back({imap, static_cast<int8_t>(f), probe.tiles[0].shape});
    }
  } while (im.next());
  return choices;
}

// A symbolic opening's identity: its loaders (tensor, imap, fmap) and its part of the launch table.
struct FamilyKey {
  std::array<uint64_t, kMaxBlockInputs> loaders{};
  uint16_t launch_base = 0;
  friend bool operator==(const FamilyKey&, const FamilyKey&) = default;
};
uint64_t hash_of(const FamilyKey& k) {
  uint64_t h = splitmix64(k.launch_base);
  for (uint64_t v : k.loaders) h = splitmix64(h ^ v);
  return h;
}

// The openings of one choice of inputs by family, as indices into the step list. Open addressing
// over a table sized to the call and kept by the thread: a node-based map that grew once for a large
// launch table stays large, and then every call pays a cache miss per bucket and a free per node.
class Families {
 public:
  void clear() {
    keys_.clear();
    steps_.clear();
    slots_.assign(64, 0);
  }
  // The step of `key`'s family, or `fresh` after it is added as the family of step `step`.
  size_t find_or_add(const FamilyKey& key, size_t step, bool& fresh) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow();
    size_t at = place(key);
    fresh = slots_[at] == 0;
    if (!fresh) return steps_[slots_[at] - 1];
    keys_.push_back(key);
    steps_.push_back(step);
    slots_[at] = static_cast<uint32_t>(keys_.size());
    return step;
  }

 private:
  // The slot holding `key`, or the empty one where it goes.
  size_t place(const FamilyKey& key) const {
    const size_t mask = slots_.size() - 1;
    size_t at = hash_of(key) & mask;
    while (slots_[at] != 0 && !(keys_[slots_[at] - 1] == key)) at = (at + 1) & mask;
    return at;
  }
  void grow() {
    slots_.assign(2 * slots_.size(), 0);
    for (size_t i = 0; i < keys_.size(); ++i) slots_[place(keys_[i])] = static_cast<uint32_t>(i + 1);
  }
  std::vector<FamilyKey> keys_;
  std::vector<size_t> steps_;
  std::vector<uint32_t> slots_;  // 1 + index into keys_ and steps_; 0: empty
};
FamilyKey family_key(const Step& st, size_t launch_index) {
  FamilyKey key;
  size_t i = 0;
  for (const BlockInput& in : st.inputs) {
    uint64_t v = static_cast<uint32_t>(in.tensor) + 1;
    for (int8_t dim : in.imap) v = v << 8 | static_cast<uint8_t>(dim);
    key.loaders[i++ % kMaxBlockInputs] = v << 8 | static_cast<uint8_t>(in.fmap);
  }
  key.launch_base = static_cast<uint16_t>(launch_index / kMaxLaunches * kMaxLaunches);
  return key;
}

}  // namespace

void Generator::launch_table(const KernelGraph& kernel, std::span<const int32_t> ins, std::vector<Launch>& out) const {
  out.clear();
  thread_local std::vector<Dim3> derived;  // Mirage's grid rules: from the inputs' dims
  if (cfg_.grid_rule != GridRule::Listed) {
    FixedVec<Shape, kMaxBlockInputs> shapes;
    for (int32_t t : ins) shapes.push_back(kernel.shape(t));
    mirage_grids(shapes.span(), cfg_.grid_rule == GridRule::MirageAttention, cfg_.grid_blocks, derived);
  }
  for (const Dim3& grid : cfg_.grid_rule == GridRule::Listed ? cfg_.grids : derived)
    for (int32_t loop : cfg_.loop_ranges) out.push_back({grid, loop});
}

void Generator::open_steps(const State& state, std::vector<Step>& out, PruneCounts& pruned,
                           const OpeningCut* cut) const {
  const KernelGraph& kernel = state.kernel;
  if (kernel.blocks.size() >= cfg_.max_block_graphs || kernel.num_inputs + kernel.ops.size() >= cfg_.max_kernel_ops)
    return;
  const int n = kernel.num_tensors();
  if (cfg_.block_inputs != InputRule::Subsets) {  // Mirage's rule: one choice of inputs
    FixedVec<int32_t, kMaxBlockInputs> ins;
    const int first = n == 3 || (n == 4 && cfg_.block_inputs == InputRule::MirageLora) ? 0 : std::max(0, n - 2);
    for (int t = first; t < n; ++t) ins.push_back(t);
    if (ins.size() <= cfg_.max_block_inputs) open_steps_for(state, ins, out, pruned, cut);
    return;
  }
  for (int k = 1; k <= std::min<int64_t>(cfg_.max_block_inputs, n); ++k) {
    FixedVec<int32_t, kMaxBlockInputs> ins;
    for (int i = 0; i < k; ++i) ins.push_back(i);
    do {
      open_steps_for(state, ins, out, pruned, cut);
    } while (search_detail::next_combination(ins, n));
  }
}

// The openings of inputs of these shapes that pass the checks before the lookahead, each with its
// combination of launch and tile shapes (opening_memos.h).
void Generator::build_opening_table(const KernelGraph& kernel, std::span<const int32_t> ins, int output_shape_ops,
                                    search_detail::OpeningTable& table) const {
  PruneCounts& found = table.pruned;
  launch_table(kernel, ins, table.launches);
  const int num_ins = ins.size();
  std::vector<Shape> shapes;  // the distinct tile shapes of a loader's choices
  for (size_t launch = 0; launch < table.launches.size(); ++launch) {
    const Dim3& grid = table.launches[launch].grid;
    const int32_t loop = table.launches[launch].loop;
    std::array<std::vector<LoaderChoice>, kMaxBlockInputs> choices;
    std::array<std::vector<uint32_t>, kMaxBlockInputs> shape_of;  // a choice's tile shape, numbered
    std::array<uint32_t, kMaxBlockInputs> stride{};
    FixedVec<int, kMaxBlockInputs> radix;
    uint32_t combos = 1;
    for (int i = 0; i < num_ins; ++i) {
      choices[i] = loader_choices(kernel.shape(ins[i]), grid, loop, cfg_);
      radix.push_back(static_cast<int>(choices[i].size()));
      shapes.clear();
      for (const LoaderChoice& c : choices[i]) {
        const auto it = std::find(shapes.begin(), shapes.end(), c.tile);
        shape_of[i].push_back(static_cast<uint32_t>(it - shapes.begin()));
        if (it == shapes.end()) shapes.push_back(c.tile);
      }
      stride[i] = combos;
      combos *= std::max<uint32_t>(1, shapes.size());
    }
    Odometer<kMaxBlockInputs> pick(radix);
    if (pick.empty()) {
      ++found.shape;
      continue;
    }
    // The output-shape check's answer, per combination of this launch's tile shapes (-1: not asked).
    std::vector<int8_t> may_save(combos, -1);
    do {
      TableOpening opening;
      opening.launch = static_cast<uint32_t>(launch);
      std::array<bool, 3> axis_used{};
      bool looped = false;
      int64_t elems = 0;
      uint32_t combo = 0;
      FixedVec<Shape, kMaxBlockInputs> tiles;
      for (int i = 0; i < num_ins; ++i) {
        const int digit = pick.digits()[i];
        const LoaderChoice& c = choices[i][digit];
        opening.imap[i] = c.imap;
        opening.fmap[i] = c.fmap;
        for (int a = 0; a < 3; ++a) axis_used[a] |= c.imap[a] != kNoDim;
        looped |= c.fmap != kNoDim;
        elems += c.tile.numel();
        tiles.push_back(c.tile);
        combo += shape_of[i][digit] * stride[i];
      }
      // Every block computes something distinct (each axis of size > 1 splits some input), and a
      // loop iterates over something (some input has an fmap).
      bool distinct = loop == 1 || looped;
      for (int a = 0; a < 3; ++a) distinct = distinct && (grid[a] == 1 || axis_used[a]);
      if (!distinct) {
        ++found.shape;
        continue;
      }
      if (elems * rules_.elem_bytes > rules_.smem_budget_bytes) {
        ++found.memory;
        continue;
      }
      if (output_shape_ops > 0) {
        if (may_save[combo] < 0) may_save[combo] = outputs_->may_save_output(grid, tiles.span(), output_shape_ops);
        if (may_save[combo] == 0) {
          ++found.reach;
          continue;
        }
      }
      opening.combo = table.combos + combo;
      table.openings.push_back(opening);
    } while (pick.next());
    table.combos += combos;
  }
}

void Generator::open_steps_for(const State& state, const FixedVec<int32_t, kMaxBlockInputs>& ins,
                               std::vector<Step>& out, PruneCounts& pruned, const OpeningCut* cut) const {
  OpRank rank;  // the block op's rank is known up to its block key: can it still rank high enough?
  rank.in = ins;
  rank.kind = OpKind::Block;
  rank.block_key = ~uint64_t{0};
  if (!may_append(state.kernel, rank)) {
    ++pruned.order;
    return;
  }
  const int num_ins = ins.size();
  // The block will consume its inputs, and its loaders need an op each before it can close.
  int consumed = 0;
  for (int32_t t : state.kernel.open_tensors()) consumed += std::find(ins.begin(), ins.end(), t) != ins.end();
  if (2 * num_ins > cfg_.max_block_ops ||
      !search_detail::kernel_can_finish(state.kernel.open_tensors().size() - consumed + 1, program_.outputs.size(),
                                        cfg_.max_kernel_ops - state.kernel.num_inputs - state.kernel.ops.size() - 1,
                                        cfg_.max_block_graphs - state.kernel.blocks.size() - 1, cfg_)) {
    ++pruned.reach;
    return;
  }
  // A block graph no kernel op can follow must save the outputs' shapes (output_shapes.h).
  const bool final_block = search_detail::kernel_ops_after_block(state.kernel, cfg_) <= 0;
  const int output_shape_ops = cfg_.output_reach == 1 && final_block ? static_cast<int>(cfg_.max_block_ops) - num_ins : 0;
  // ... and make the outputs' silu and rms atoms from its inputs (output_symbols.h).
  if (final_block && symbols_) {
    FixedVec<expr::ExprId, kMaxBlockInputs> loaded;
    for (int32_t t : ins) loaded.push_back(state.kexpr[t]);
    if (!symbols_->atoms_reachable(loaded.span(), pool_)) {
      ++pruned.reach;
      return;
    }
  }
  // Searched ahead only above a block graph: there the same signature comes from each way that block
  // graph was built. Above the inputs and predefined ops alone signatures repeat little, and
  // searching them ahead would move most of the search into its first levels (and its first μGraph
  // after them).
  const bool lookahead = closings_ && !state.kernel.blocks.empty() && final_block;
  // A replayed opening (closing_replay.cpp) is never searched, so it stays concrete: its launches
  // gathered into one symbolic opening would be searched again, once more per opening.
  const bool concrete = !cfg_.symbolic || (lookahead && cfg_.closing_replay == 1);
  // The last block graph's openings depend on its inputs alone (opening_memos.h).
  const bool memos = cfg_.opening_memos == 1;
  const bool remembered = memos && lookahead && concrete;
  // Under --objective best, an opening the cost bound cuts is cut before the lookahead searches it
  // (OpeningCut). The openings kept are remembered only when none was cut: the cut depends on the
  // kernel graph below and on the limit, which the memo's key does not hold.
  const bool priced = lookahead && cut != nullptr && cut->binding();
  search_detail::KeptKey kept_key;
  if (remembered) {
    kept_key = search_detail::kept_key(
        state, ins.span(), search_detail::savers_allowed(state.kernel, ins.span(), program_.outputs.size(), cfg_));
    if (const std::shared_ptr<const search_detail::KeptOpenings> kept = kept_openings_->find(kept_key)) {
      for (const Step& st : kept->steps) {
        if (priced && cut->cuts(apply(state, st)))
          ++pruned.cost;
        else
          out.push_back(st);
      }
      pruned += kept->pruned;
      if (closings_) closings_->answered.fetch_add(kept->lookahead, std::memory_order_relaxed);
      return;
    }
  }
  const search_detail::TableKey table_key = search_detail::table_key(state.kernel, ins.span(), output_shape_ops);
  std::shared_ptr<const search_detail::OpeningTable> table = memos ? tables_->find(table_key) : nullptr;
  if (!table) {
    auto made = std::make_shared<search_detail::OpeningTable>();
    build_opening_table(state.kernel, ins.span(), output_shape_ops, *made);
    if (memos) tables_->add(table_key, made, made->openings.size());
    table = std::move(made);
  }
  PruneCounts found = table->pruned;  // this enumeration's rejections, kept with its openings when remembered
  uint64_t asked = 0, answered = 0;   // openings the lookahead was asked about, and of those answered here
  uint64_t priced_cut = 0;            // openings the bound cut before the lookahead was asked
  // The lookahead's verdict per combination of launch and tile shapes (-1: not asked).
  thread_local std::vector<int8_t> closes;
  if (lookahead) closes.assign(table->combos, -1);
  const size_t first = out.size();
  // Symbolic openings: one step per loaders and part of the table, with the launches that open it.
  thread_local Families families;
  families.clear();
  for (const TableOpening& opening : table->openings) {
    Step st;
    st.kind = Step::Kind::OpenBlock;
    st.grid = table->launches[opening.launch].grid;
    st.loop = table->launches[opening.launch].loop;
    for (int i = 0; i < num_ins; ++i) st.inputs.push_back({ins[i], opening.imap[i], opening.fmap[i]});
    if (lookahead) {
      int8_t& verdict = closes[opening.combo];
      if (verdict != 0 && priced && cut->cuts(apply(state, st))) {  // a verdict of 0 cuts it anyway
        ++priced_cut;
        continue;
      }
      ++asked;
      answered += verdict >= 0;
      if (verdict < 0) verdict = may_close(state, st) ? 1 : 0;
      if (verdict == 0) {
        ++found.reach;
        continue;
      }
    }
    if (concrete) {
      out.push_back(st);
      continue;
    }
    const FamilyKey key = family_key(st, opening.launch);
    const uint64_t bit = uint64_t{1} << (opening.launch - key.launch_base);
    bool fresh = false;
    const size_t at = families.find_or_add(key, out.size(), fresh);
    if (fresh) {  // the first launch is the one the state's block graph is built for
      st.launches = bit;
      st.launch_base = key.launch_base;
      out.push_back(st);
    } else {
      out[at].launches |= bit;
    }
  }
  if (cfg_.symbolic)  // an opening with one launch is a concrete one
    for (size_t i = first; i < out.size(); ++i)
      if (std::has_single_bit(out[i].launches)) {
        out[i].launches = 0;
        out[i].launch_base = 0;
      }
  pruned += found;
  pruned.cost += priced_cut;
  if (answered != 0) closings_->answered.fetch_add(answered, std::memory_order_relaxed);
  if (remembered && !stopped() && priced_cut == 0) {  // a stopped lookahead's answers are not all answers
    auto kept = std::make_shared<search_detail::KeptOpenings>();
    kept->steps.assign(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    kept->pruned = found;
    kept->lookahead = asked;
    kept_openings_->add(kept_key, kept, kept->steps.size());
  }
}

}  // namespace ugs
