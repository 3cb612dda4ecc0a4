// Hand-made mutants of the reference μGraphs, each a JSON patch (RFC 6902) of the reference file: the
// mistakes a generator or a person could make (swapped operands, wrong reduction, wrong maps, wrong
// loop range, a missing or an extra factor).
#include "reference_mutants.h"

#include "test_util.h"
#include "ugs/eval/verify.h"

namespace ugs::test {
namespace {

using nlohmann::json;

json replace(const std::string& path, json value) { return {{"op", "replace"}, {"path", path}, {"value", value}}; }
json append_op(int kernel, json op, int saved_tile) {
  const std::string k = "/kernels/" + std::to_string(kernel);
  return json::array({{{"op", "add"}, {"path", k + "/ops/-"}, {"value", op}},
                      {{"op", "replace"}, {"path", k + "/out/0/t"}, {"value", saved_tile}}});
}
json ops(int kernel, json list, int saved_tile) {
  const std::string k = "/kernels/" + std::to_string(kernel);
  return json::array({replace(k + "/ops", list), replace(k + "/out/0/t", saved_tile)});
}
// As ops(), for a kernel with two savers.
json ops2(int kernel, json list, int saved0, int saved1) {
  const std::string k = "/kernels/" + std::to_string(kernel);
  return json::array({replace(k + "/ops", list), replace(k + "/out/0/t", saved0), replace(k + "/out/1/t", saved1)});
}
json one(json op) { return json::array({op}); }
json both(json a, json b) { return json::array({a, b}); }
json o(const char* kind, std::vector<int> in) { return {{"op", kind}, {"in", in}}; }

std::vector<Mutant> rmsnorm_linear() {
  // ops: accum_rms_lastdim(0)->2, matmul(0,1)->3, accum_sum(3)->4, div(4,2)->5; save 5
  return {
      {"swapped div operands", one(replace("/kernels/0/ops/3/in", {2, 4}))},
      {"div replaced by mul", one(replace("/kernels/0/ops/3/op", "mul"))},
      {"missing rms factor: sum instead of rms", one(replace("/kernels/0/ops/0/op", "accum_sum_lastdim"))},
      {"X squared before the matmul",
       ops(0, {o("accum_rms_lastdim", {0}), o("square", {0}), o("matmul", {3, 1}), o("accum_sum", {4}), o("div", {5, 2})}, 6)},
      {"wrong fmaps: the same tiles every iteration", both(replace("/kernels/0/in/0/fmap", -1), replace("/kernels/0/in/1/fmap", -1))},
      {"wrong loop range without tiling",
       json::array({replace("/kernels/0/loop", 2), replace("/kernels/0/in/0/fmap", -1), replace("/kernels/0/in/1/fmap", -1)})},
      {"extra square", append_op(0, o("square", {5}), 6)},
      {"extra exp", append_op(0, o("exp", {5}), 6)},
      {"divided twice", append_op(0, o("div", {5, 2}), 6)},
      {"rms of X·W instead of X",
       ops(0, {o("matmul", {0, 1}), o("accum_sum", {2}), o("accum_rms_lastdim", {2}), o("div", {3, 4})}, 5)},
      {"each k-tile normalized by its own rms", ops(0, {o("rms_norm", {0}), o("matmul", {2, 1}), o("accum_sum", {3})}, 4)},
      {"wrong omap (interface)", one(replace("/kernels/0/out/0/omap", {0, -1, -1}))},
      {"wrong imap: W replicated (interface)", one(replace("/kernels/0/in/1/imap", {-1, -1, -1}))},
  };
}

std::vector<Mutant> gated_mlp() {
  // ops: matmul(0,1)->3, matmul(0,2)->4, accum(3)->5, accum(4)->6, silu(5)->7, mul(6,7)->8; save 8
  return {
      {"silu on the wrong branch", both(replace("/kernels/0/ops/4/in", {6}), replace("/kernels/0/ops/5/in", {5, 7}))},
      {"silu replaced by exp", one(replace("/kernels/0/ops/4/op", "exp"))},
      {"silu replaced by sqrt", one(replace("/kernels/0/ops/4/op", "sqrt"))},
      {"mul replaced by add", one(replace("/kernels/0/ops/5/op", "add"))},
      {"W1 and W2 swapped", both(replace("/kernels/0/in/1/t", 2), replace("/kernels/0/in/2/t", 1))},
      {"rms accumulator instead of sum", one(replace("/kernels/0/ops/2/op", "accum_rms_lastdim"))},
      {"wrong fmaps: the same tiles every iteration",
       json::array({replace("/kernels/0/in/0/fmap", -1), replace("/kernels/0/in/1/fmap", -1), replace("/kernels/0/in/2/fmap", -1)})},
      {"W1 tiles transposed (imap and fmap swapped)", both(replace("/kernels/0/in/1/imap", {0, -1, -1}), replace("/kernels/0/in/1/fmap", 1))},
      {"extra square", append_op(0, o("square", {8}), 9)},
      {"silu before the accumulator",
       ops(0, {o("matmul", {0, 1}), o("matmul", {0, 2}), o("silu", {3}), o("accum_sum", {4}), o("accum_sum", {5}), o("mul", {6, 7})}, 8)},
      {"product inside the loop", ops(0, {o("matmul", {0, 1}), o("matmul", {0, 2}), o("silu", {3}), o("mul", {4, 5}), o("accum_sum", {6})}, 7)},
      {"wrong omap (interface)", one(replace("/kernels/0/out/0/omap", {0, -1, -1}))},
  };
}

std::vector<Mutant> lora() {
  // ops: matmul(0,1)->4 XW, matmul(0,2)->5 XA, matmul(5,3)->6 XAB, add(4,6)->7, accum(7)->8; save 8
  return {
      {"add replaced by mul", one(replace("/kernels/0/ops/3/op", "mul"))},
      {"add replaced by div", one(replace("/kernels/0/ops/3/op", "div"))},
      {"W and B swapped", both(replace("/kernels/0/ops/0/in", {0, 3}), replace("/kernels/0/ops/2/in", {5, 1}))},
      {"wrong fmaps: the same tiles every iteration",
       json::array({replace("/kernels/0/in/0/fmap", -1), replace("/kernels/0/in/1/fmap", -1), replace("/kernels/0/in/2/fmap", -1)})},
      {"wrong loop range without tiling",
       json::array({replace("/kernels/0/loop", 2), replace("/kernels/0/in/0/fmap", -1), replace("/kernels/0/in/1/fmap", -1),
                    replace("/kernels/0/in/2/fmap", -1)})},
      {"extra square", append_op(0, o("square", {8}), 9)},
      {"extra exp", append_op(0, o("exp", {8}), 9)},
      {"extra sqrt", append_op(0, o("sqrt", {8}), 9)},
      {"X·A squared before B",
       ops(0, {o("matmul", {0, 1}), o("matmul", {0, 2}), o("square", {5}), o("matmul", {6, 3}), o("add", {4, 7}), o("accum_sum", {8})}, 9)},
      {"silu of the low-rank term",
       ops(0, {o("matmul", {0, 1}), o("matmul", {0, 2}), o("matmul", {5, 3}), o("silu", {6}), o("add", {4, 7}), o("accum_sum", {8})}, 9)},
      {"exp of X·W before the add",
       ops(0, {o("matmul", {0, 1}), o("matmul", {0, 2}), o("matmul", {5, 3}), o("exp", {4}), o("add", {6, 7}), o("accum_sum", {8})}, 9)},
      {"wrong omap (interface)", one(replace("/kernels/0/out/0/omap", {0, -1, -1}))},
      {"wrong reduction: fold to 32 (interface)", one(replace("/kernels/0/ops/4", {{"op", "accum_sum_lastdim_to"}, {"in", {7}}, {"to", 32}}))},
  };
}

std::vector<Mutant> gqa() {
  // kernel 0: matmul(0,1)->3, exp(3)->4, accum_sum_lastdim(4)->5, matmul(4,2)->6, accum(6)->7
  // kernel 1: reduce_sum(0, 2)->2, reduce_sum_to(1, 2, 16)->3, div(3,2)->4, accum(4)->5
  return {
      {"swapped div operands", one(replace("/kernels/1/ops/2/in", {2, 3}))},
      {"div replaced by mul", one(replace("/kernels/1/ops/2/op", "mul"))},
      {"div replaced by add", one(replace("/kernels/1/ops/2/op", "add"))},
      {"exp replaced by sqrt", one(replace("/kernels/0/ops/1/op", "sqrt"))},
      {"exp replaced by square", one(replace("/kernels/0/ops/1/op", "square"))},
      {"row sums taken before exp", one(replace("/kernels/0/ops/2/in", {3}))},
      {"P·V without exp", one(replace("/kernels/0/ops/3/in", {3, 2}))},
      {"rms of the scores instead of their sum", one(replace("/kernels/0/ops/2/op", "accum_rms_lastdim"))},
      {"extra square", append_op(1, o("square", {5}), 6)},
      {"exp of the row sum instead of the sum of exps",
       ops2(0, {o("matmul", {0, 1}), o("accum_sum_lastdim", {3}), o("exp", {4}), o("exp", {3}), o("matmul", {6, 2}),
                o("accum_sum", {7})}, 5, 8)},
      {"row sums of P·V instead of P",
       ops2(0, {o("matmul", {0, 1}), o("exp", {3}), o("matmul", {4, 2}), o("accum_sum_lastdim", {5}), o("accum_sum", {5})}, 6, 7)},
      {"wrong reduction: reduce_sum instead of reduce_sum_to (interface)",
       one(replace("/kernels/1/ops/1", {{"op", "reduce_sum"}, {"in", {1}}, {"dim", 2}}))},
      {"wrong reduction: fold to 8 (interface)", one(replace("/kernels/1/ops/1/to", 8))},
  };
}

}  // namespace

std::vector<Mutant> mutants_of(const std::string& reference) {
  if (reference == "rmsnorm_linear_small") return rmsnorm_linear();
  if (reference == "gated_mlp_small") return gated_mlp();
  if (reference == "lora_small") return lora();
  if (reference == "gqa_small") return gqa();
  return {};
}

std::vector<MutantCase> all_mutant_cases() {
  std::vector<MutantCase> cases;
  for (const char* name : test::kReferences) {
    const KernelGraph p = load_program(name).graph;
    for (const test::Mutant& m : mutants_of(name)) {
      const json j = reference_json(name).patch(m.patch);
      const KernelGraph g = mugraph_from_json(j, std::string(name) + ": " + m.name, GraphRules{});
      cases.push_back({std::string(name) + ": " + m.name, p, g, !interface_mismatch(p, g).empty()});
    }
  }
  const json tiny_inputs = {{{"name", "a"}, {"shape", {1, 1}}}};
  auto tiny_program = [&](const char* op) {
    const json j = {{"inputs", tiny_inputs}, {"ops", {{{"name", "O"}, {"op", op}, {"inputs", {"a"}}}}}, {"outputs", {"O"}}};
    return parse_program(j.dump(), op).graph;
  };
  const json exp2a = {{"inputs", {{1, 1}}},
                      {"kernels", {{{"op", "add"}, {"in", {0, 0}}}, {{"op", "exp"}, {"in", {1}}}}},
                      {"outputs", {2}}};
  const json expa = {{"inputs", {{1, 1}}}, {"kernels", {{{"op", "exp"}, {"in", {0}}}}}, {"outputs", {1}}};
  cases.push_back({"1x1: exp(2a) for exp(a)", tiny_program("exp"), mugraph_from_json(exp2a, "exp2a", GraphRules{}), false});
  cases.push_back({"1x1: exp(a) for silu(a)", tiny_program("silu"), mugraph_from_json(expa, "expa", GraphRules{}), false});
  return cases;
}


}  // namespace ugs::test
