// Mirage's search space (mirage_space.h), as its generator's code defines it.
#include "ugs/search/generator/mirage_space.h"

#include <algorithm>

#include "ugs/util/names.h"

namespace ugs {

namespace {

constexpr std::pair<MirageConfig, std::string_view> kConfigs[] = {
    {MirageConfig::Default, "default"}, {MirageConfig::Mlp, "mlp"}, {MirageConfig::Lora, "lora"},
    {MirageConfig::Attention, "attention"}};

// Mirage's largest grid, in blocks, at full size.
constexpr int32_t kMaxBlocks = 4096;

}  // namespace

std::optional<MirageConfig> mirage_config_from_name(std::string_view name) { return value_named(kConfigs, name); }
std::string_view name_of(MirageConfig config) { return name_in(kConfigs, config); }

SearchConfig mirage_space(MirageConfig config, int32_t scale) {
  const bool attention = config == MirageConfig::Attention;
  SearchConfig cfg;
  cfg.space = Space::Mirage;
  // Limits: kernel ops and block ops count the graphs' inputs, as Mirage counts its input ops.
  cfg.max_kernel_ops = 5;
  cfg.max_block_ops = 9;
  cfg.max_block_graphs = attention ? 2 : 1;
  cfg.max_block_inputs = config == MirageConfig::Lora ? 4 : 3;
  cfg.max_block_outputs = 2;
  // Mirage's kernel ops have no reduction and no rms_norm; its block ops no reduction but the
  // accumulators (gelu, relu, clamp and pow: mirage_not_covered).
  cfg.kernel_ops = {OpKind::Matmul, OpKind::Exp, OpKind::Square, OpKind::Sqrt, OpKind::Silu,
                    OpKind::Add,    OpKind::Mul, OpKind::Div};
  cfg.block_ops = {OpKind::Matmul, OpKind::Exp,  OpKind::Square,  OpKind::Sqrt,           OpKind::Silu,
                   OpKind::Add,    OpKind::Mul,  OpKind::Div,     OpKind::RmsNorm,        OpKind::AccumSum,
                   OpKind::AccumSumLastdim, OpKind::AccumRmsLastdim};
  if (attention) cfg.block_ops.push_back(OpKind::AccumSumLastdimTo);
  cfg.block_inputs = config == MirageConfig::Lora ? InputRule::MirageLora : InputRule::Mirage;
  cfg.grid_rule = attention ? GridRule::MirageAttention : GridRule::Mirage;
  cfg.grid_blocks = {std::max(1, 32 / scale), std::max(1, kMaxBlocks / scale)};
  // Mirage tries F in {4, 16, 64} when some input has a loop dim and only 1 when none has: the same
  // openings as {1, 4, 16, 64} here, where F = 1 admits no fmap and F > 1 needs one.
  cfg.loop_ranges = {1, 4, 16, 64};
  cfg.imaps = {{0, -1, 1}, {0, 1, -1}, {0, 2, -1}, {-1, 1, -1}};
  if (!attention) cfg.imaps.insert(cfg.imaps.end(), {{-1, -1, -1}, {1, -1, -1}, {0, -1, -1}});
  cfg.fmaps = {-1, 0, 1, 2};
  cfg.omaps = {{0, 1, -1},  {0, 2, 1},   {0, 2, -1},   {0, -1, -1}, {-1, 2, 1},
               {-1, 1, -1}, {-1, 2, -1}, {-1, -1, -1}, {1, -1, -1}};
  return cfg;
}

std::vector<std::string> mirage_not_covered(MirageConfig config) {
  std::vector<std::string> missing{"kernel and block ops gelu, relu, clamp, pow (no such op here)",
                                   "block dims (128, 1, 1): the thread level is not searched here"};
  if (config == MirageConfig::Lora) missing.push_back("concat-then-matmul block op (LoRA config)");
  return missing;
}

void mirage_grids(std::span<const Shape> inputs, bool attention, const std::array<int32_t, 2>& window,
                  std::vector<Dim3>& out) {
  out.clear();
  std::vector<int32_t> dims;
  bool all_rank2 = true, all_rank3 = true;
  for (const Shape& shape : inputs) {
    for (int d = 0; d < shape.rank; ++d) dims.push_back(shape.d[d]);
    all_rank2 = all_rank2 && shape.rank == 2;
    all_rank3 = all_rank3 && shape.rank == 3;
  }
  const int32_t batch = !inputs.empty() && (all_rank2 || all_rank3) ? inputs[0].d[0] : -1;
  for (int32_t x = 8; x <= 256; x *= 2)
    for (int32_t d : dims)
      if (d % x == 0) out.push_back({d / x, 1, 1});
  if (attention && batch > 0) {
    for (int32_t y : {8, 64, 128, 256})
      for (int32_t d : dims)
        if (d % y == 0) out.push_back({batch, d / y, 1});
    if (inputs.size() > 2) out.push_back({batch, 16, 4});
  }
  std::erase_if(out, [&](const Dim3& g) {
    const int64_t blocks = int64_t{g[0]} * g[1] * g[2];
    return blocks < window[0] || blocks > window[1];
  });
  if (batch > 0 && batch <= window[1]) out.push_back({batch, 1, 1});
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace ugs
