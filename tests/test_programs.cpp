// Programs: the built-ins parse with the shapes of docs/design.md §7, and the LAX rule is enforced per path.
#include <gtest/gtest.h>

#include "test_util.h"
#include "ugs/util/error.h"

namespace ugs {
namespace {

const char* kBenchmarks[] = {"rmsnorm_linear", "gated_mlp", "lora", "gqa", "mha", "mqa", "qknorm_gqa", "ntrans"};

TEST(Programs, EveryBenchmarkShipsFullAndSmall) {
  EXPECT_EQ(builtin_programs().size(), 16u);
  for (const char* name : kBenchmarks) {
    SCOPED_TRACE(name);
    const Program full = load_program(name), small = load_program(std::string(name) + "_small");
    EXPECT_EQ(full.name, name);
    EXPECT_EQ(full.graph.ops.size(), small.graph.ops.size());
    EXPECT_EQ(full.graph.num_inputs, small.graph.num_inputs);
    for (int i = 0; i < full.graph.ops.size(); ++i) EXPECT_EQ(full.graph.ops[i].op, small.graph.ops[i].op);
    int64_t small_elems = 0, full_elems = 0;
    for (int i = 0; i < full.graph.num_inputs; ++i) {
      small_elems += small.graph.shape(i).numel();
      full_elems += full.graph.shape(i).numel();
    }
    EXPECT_LE(small_elems * 16, full_elems);
  }
}

TEST(Programs, FullSizeShapesAreMirages) {
  const Program p = load_program("rmsnorm_linear");
  EXPECT_EQ(p.graph.shape(0), Shape::of({2, 4096}));
  EXPECT_EQ(p.graph.shape(1), Shape::of({4096, 6144}));
  EXPECT_EQ(p.graph.shape(p.graph.outputs[0]), Shape::of({2, 6144}));
  const Program g = load_program("gqa");
  EXPECT_EQ(g.graph.shape(g.graph.outputs[0]), Shape::of({2, 256, 64}));
  EXPECT_EQ(load_program("mha").graph.shape(0), Shape::of({32, 16, 64}));
  EXPECT_EQ(load_program("mqa").graph.shape(0), Shape::of({1, 1024, 64}));
  EXPECT_EQ(load_program("ntrans").graph.shape(2), Shape::of({8, 4096}));
  EXPECT_EQ(load_program("lora").graph.shape(2), Shape::of({256, 16}));
}

TEST(Programs, LoadsByPathAndKeepsNames) {
  const Program p = load_program(test::source_path("experiments/programs/gqa_small.json"));
  EXPECT_EQ(p.name, "gqa_small");
  EXPECT_EQ(p.input_name(0), "Q");
  EXPECT_EQ(p.tensor_names.back(), "O");
  EXPECT_EQ(p.source["ops"].size(), 5u);
}

std::string error_of(const std::string& text) {
  try {
    parse_program(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Programs, LaxAllowsOneExpPerPathNotPerProgram) {
  const std::string two_paths = R"({"inputs": [{"name": "X", "shape": [2, 2]}],
    "ops": [{"name": "A", "op": "exp", "inputs": ["X"]}, {"name": "B", "op": "silu", "inputs": ["X"]},
            {"name": "C", "op": "add", "inputs": ["A", "B"]}], "outputs": ["C"]})";
  EXPECT_EQ(error_of(two_paths), "");
  const std::string chained = R"({"inputs": [{"name": "X", "shape": [2, 2]}],
    "ops": [{"name": "A", "op": "silu", "inputs": ["X"]}, {"name": "B", "op": "sqrt", "inputs": ["A"]},
            {"name": "C", "op": "exp", "inputs": ["B"]}], "outputs": ["C"]})";
  EXPECT_EQ(error_of(chained),
            "t.json: op 'C' (exp): a path from an input passes two exps (exp or silu); LAX programs allow one per path");
}

TEST(Programs, MessagesNameTheFileTheOpAndTheReason) {
  EXPECT_EQ(error_of(R"({"inputs": [{"name": "X", "shape": [2, 3]}, {"name": "W", "shape": [4, 5]}],
    "ops": [{"name": "O", "op": "matmul", "inputs": ["X", "W"]}], "outputs": ["O"]})"),
            "t.json: op 'O' (matmul): matmul inner dimensions differ ([2, 3] and [4, 5])");
  EXPECT_EQ(error_of(R"({"inputs": [{"name": "X", "shape": [2]}],
    "ops": [{"name": "O", "op": "exp", "inputs": ["Y"]}], "outputs": ["O"]})"),
            "t.json: op 'O' (exp): input 'Y' is not an input or an earlier op");
}

}  // namespace
}  // namespace ugs
