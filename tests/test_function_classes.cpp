// Function classes (--dedup function): the key is a multiset of the tensors' fingerprints with their
// open marks, whatever order the ops came in; a class's representative is the cheapest, then the
// smallest tie, then the first. On the CPU backend here; test_cuda_emulator and test_cuda hold the
// CUDA backend's classes to these.
#include <gtest/gtest.h>

#include <algorithm>

#include "ugs/eval/backend.h"

namespace ugs {
namespace {

Op unary(OpKind k, int32_t in) {
  Op op;
  op.kind = k;
  op.in = {in, -1};
  return op;
}

Op binary(OpKind k, int32_t a, int32_t b) {
  Op op;
  op.kind = k;
  op.in = {a, b};
  return op;
}

struct Fixture {
  KernelGraph program;
  std::unique_ptr<Backend> cpu;
  Fixture() {
    program.add_input(Shape::of({4, 8}));
    program.add_input(Shape::of({4, 8}));
    EXPECT_EQ(program.add_op(binary(OpKind::Add, 0, 1)), Verdict::Ok);
    const int32_t out = 2;
    EXPECT_EQ(program.set_outputs(std::span(&out, 1)), Verdict::Ok);
    cpu = make_backend(BackendKind::Cpu, program, FieldKind::Wide, 5);
  }
  KernelGraph inputs() const {
    KernelGraph g;
    g.add_input(program.shape(0));
    g.add_input(program.shape(1));
    return g;
  }
  FunctionClasses classify(const std::vector<KernelGraph>& graphs, std::vector<double> cost, std::vector<uint64_t> tie) {
    std::vector<const KernelGraph*> ptrs;
    for (const KernelGraph& g : graphs) ptrs.push_back(&g);
    FunctionClasses c;
    cpu->classify_functions(ptrs, cost, tie, c);
    return c;
  }
};

TEST(FunctionClasses, OpsInAnotherOrderAreOneFunction) {
  Fixture f;
  KernelGraph a = f.inputs(), b = f.inputs(), c = f.inputs();
  ASSERT_EQ(a.add_op(unary(OpKind::Exp, 0)), Verdict::Ok);
  ASSERT_EQ(a.add_op(unary(OpKind::Sqrt, 1)), Verdict::Ok);
  ASSERT_EQ(b.add_op(unary(OpKind::Sqrt, 1)), Verdict::Ok);
  ASSERT_EQ(b.add_op(unary(OpKind::Exp, 0)), Verdict::Ok);
  ASSERT_EQ(c.add_op(unary(OpKind::Exp, 0)), Verdict::Ok);
  ASSERT_EQ(c.add_op(unary(OpKind::Exp, 1)), Verdict::Ok);  // another tensor
  const FunctionClasses k = f.classify({a, b, c}, {1, 1, 1}, {0, 0, 0});
  ASSERT_EQ(k.keys.size(), 2u);
  std::vector<uint32_t> best = k.best;
  std::sort(best.begin(), best.end());
  EXPECT_EQ(best, (std::vector<uint32_t>{0, 2}));
}

// Equal hashes, but another tensor consumed: another state of the search, another key.
TEST(FunctionClasses, OpenAndConsumedTensorsDiffer) {
  Fixture f;
  KernelGraph a = f.inputs(), b = f.inputs();
  ASSERT_EQ(a.add_op(unary(OpKind::Exp, 0)), Verdict::Ok);  // y and exp(x) open
  ASSERT_EQ(b.add_op(unary(OpKind::Exp, 1)), Verdict::Ok);  // x and exp(y) open
  const uint64_t hashes[] = {11, 12, 13};
  EXPECT_NE(function_key(a, hashes), function_key(b, hashes));
  const uint64_t swapped[] = {12, 11, 13};
  EXPECT_EQ(function_key(a, hashes), function_key(b, swapped));
}

TEST(FunctionClasses, TheCheapestThenTheSmallestTieThenTheFirstRepresents) {
  Fixture f;
  KernelGraph a = f.inputs();
  ASSERT_EQ(a.add_op(unary(OpKind::Exp, 0)), Verdict::Ok);
  const std::vector<KernelGraph> four(4, a);
  EXPECT_EQ(f.classify(four, {3, 2, 1, 2}, {0, 0, 0, 0}).best, (std::vector<uint32_t>{2}));
  EXPECT_EQ(f.classify(four, {2, 2, 2, 2}, {9, 4, 7, 4}).best, (std::vector<uint32_t>{1}));
  EXPECT_EQ(f.classify(four, {2, 2, 2, 2}, {5, 5, 5, 5}).best, (std::vector<uint32_t>{0}));
  EXPECT_TRUE(f.classify({}, {}, {}).keys.empty());
}

}  // namespace
}  // namespace ugs
