#pragma once
// The canonical JSON of a μGraph (docs/design.md §2, §9). Tensors are referred to by index: kernel tensors
// are the inputs then each kernel op's outputs; block tiles are the loaders then each block op's
// output. φ in imap/fmap/omap is -1.
//
//   {"inputs": [[2, 256], [256, 384]],
//    "kernels": [{"op": "block", "grid": [6, 1, 1], "loop": 4,
//                 "in": [{"t": 0, "imap": [-1, -1, -1], "fmap": 1}, ...],
//                 "ops": [{"op": "matmul", "in": [0, 1]}, {"op": "reduce_sum", "in": [2], "dim": 1}, ...],
//                 "out": [{"t": 5, "omap": [1, -1, -1]}]},
//                {"op": "rms_norm", "in": [0]}],
//    "outputs": [2]}
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ugs/ir/graph.h"

namespace ugs {

nlohmann::json to_json(const KernelGraph& graph);
// Throws InputError naming `origin`, the kernel (and block) op and the reason.
KernelGraph mugraph_from_json(const nlohmann::json& doc, const std::string& origin, const GraphRules& rules);
// The text of a file holding one μGraph, or of a results file (its first μGraph); `origin` (its
// path) prefixes every message.
KernelGraph parse_mugraph(std::string_view text, const std::string& origin, const GraphRules& rules);
// parse_mugraph of the file at `path`.
KernelGraph load_mugraph(const std::string& path, const GraphRules& rules);

}  // namespace ugs
