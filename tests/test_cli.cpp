// The real binary: malformed programs each get their specific one-line message and exit 2, nothing
// else happens; verbs answer with the exit statuses of docs/design.md §9.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace ugs {
namespace {

struct Malformed {
  const char* what;
  std::string text;
  std::string message;  // expected after "ugsearch: <file>: "
};

std::string prog(const std::string& inputs, const std::string& ops, const std::string& outputs = R"(["O"])") {
  return R"({"name": "t", "inputs": )" + inputs + R"(, "ops": )" + ops + R"(, "outputs": )" + outputs + "}";
}
const std::string kX = R"([{"name": "X", "shape": [2, 4]}])";
const std::string kXW = R"([{"name": "X", "shape": [2, 4]}, {"name": "W", "shape": [4, 3]}])";

std::vector<Malformed> malformed() {
  return {
      {"bad JSON", R"({"inputs": [)", "not valid JSON; check brackets, commas and quotes"},
      {"not an object", "[1, 2]", "a program must be a JSON object with inputs, ops and outputs"},
      {"unknown top-level key", R"({"inputs": [], "ops": [], "outputs": [], "extra": 1})",
       "unknown key 'extra' (a program has name, inputs, ops, outputs, search, mirage)"},
      {"unknown Mirage config", R"({"inputs": [], "ops": [], "outputs": [], "mirage": {"config": "mlpx"}})",
       R"('mirage' must be {"config": "default"|"mlp"|"lora"|"attention", "scale": N}; unknown config 'mlpx')"},
      {"missing inputs", R"({"ops": [], "outputs": []})", "missing 'inputs'"},
      {"empty ops", prog(kX, "[]"), "'ops' is empty"},
      {"missing outputs", R"({"inputs": )" + kX + R"(, "ops": [{"name": "O", "op": "exp", "inputs": ["X"]}]})",
       "missing 'outputs'"},
      {"unknown op", prog(kX, R"([{"name": "O", "op": "tanh", "inputs": ["X"]}])"),
       "op 'O': unknown op 'tanh' (known: matmul, add, mul, div, exp, sqrt, square, silu, reduce_sum, rms_norm)"},
      {"block op in a program", prog(kX, R"([{"name": "O", "op": "accum_sum", "inputs": ["X"]}])"),
       "op 'O' (accum_sum): is a block-graph op, not allowed in programs (known: matmul, add, mul, div, exp, sqrt, square, silu, reduce_sum, rms_norm)"},
      {"wrong arity", prog(kXW, R"([{"name": "O", "op": "matmul", "inputs": ["X"]}])"),
       "op 'O' (matmul): takes 2 inputs, got 1"},
      {"matmul shape mismatch", prog(kXW, R"([{"name": "O", "op": "matmul", "inputs": ["W", "X"]}])"),
       "op 'O' (matmul): matmul inner dimensions differ ([4, 3] and [2, 4])"},
      {"broadcast mismatch", prog(kXW, R"([{"name": "O", "op": "add", "inputs": ["X", "W"]}])"),
       "op 'O' (add): shapes do not broadcast (each dim must be equal or 1) ([2, 4] and [4, 3])"},
      {"rank mismatch", prog(R"([{"name": "X", "shape": [2, 4]}, {"name": "Y", "shape": [4]}])",
                             R"([{"name": "O", "op": "mul", "inputs": ["X", "Y"]}])"),
       "op 'O' (mul): operands have different ranks ([2, 4] and [4])"},
      {"unknown name", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["Z"]}])"),
       "op 'O' (exp): input 'Z' is not an input or an earlier op"},
      {"use before definition", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["A"]}, {"name": "A", "op": "exp", "inputs": ["X"]}])"),
       "op 'O' (exp): input 'A' is not an input or an earlier op"},
      {"duplicate name", prog(kX, R"([{"name": "X", "op": "exp", "inputs": ["X"]}])", R"(["X"])"),
       "name 'X' is used twice; names must be unique"},
      {"double exp", prog(kX, R"([{"name": "A", "op": "exp", "inputs": ["X"]}, {"name": "O", "op": "exp", "inputs": ["A"]}])"),
       "op 'O' (exp): a path from an input passes two exps (exp or silu); LAX programs allow one per path"},
      {"exp after silu", prog(kX, R"([{"name": "A", "op": "silu", "inputs": ["X"]}, {"name": "O", "op": "exp", "inputs": ["A"]}])"),
       "op 'O' (exp): a path from an input passes two exps (exp or silu); LAX programs allow one per path"},
      {"unused input", prog(kXW, R"([{"name": "O", "op": "exp", "inputs": ["X"]}])"),
       "input 'W' is not used by any op; remove it"},
      {"dead op", prog(kX, R"([{"name": "A", "op": "sqrt", "inputs": ["X"]}, {"name": "O", "op": "exp", "inputs": ["X"]}])"),
       "op 'A' (sqrt): its result reaches no output; remove it or list it in outputs"},
      {"rank 5", prog(R"([{"name": "X", "shape": [1, 2, 3, 4, 5]}])", R"([{"name": "O", "op": "exp", "inputs": ["X"]}])"),
       "input 'X': rank 5 (shapes have rank 1 to 4)"},
      {"zero dimension", prog(R"([{"name": "X", "shape": [2, 0]}])", R"([{"name": "O", "op": "exp", "inputs": ["X"]}])"),
       "input 'X': dimension 0 must be between 1 and 16777216"},
      {"shape not integers", prog(R"([{"name": "X", "shape": [2, "4"]}])", R"([{"name": "O", "op": "exp", "inputs": ["X"]}])"),
       "input 'X': shape must be an array of 1 to 4 positive integers"},
      {"missing dim", prog(kX, R"([{"name": "O", "op": "reduce_sum", "inputs": ["X"]}])"),
       "op 'O' (reduce_sum): needs an integer attribute 'dim'"},
      {"dim out of range", prog(kX, R"([{"name": "O", "op": "reduce_sum", "inputs": ["X"], "dim": 2}])"),
       "op 'O' (reduce_sum): dim 2 is out of range for rank 2"},
      {"attribute on the wrong op", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["X"], "dim": 1}])"),
       "op 'O' (exp): unknown key 'dim' (this op has name, op, inputs)"},
      {"output names an input", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["X"]}])", R"(["X"])"),
       "output 'X' names an input; outputs name ops"},
      {"output unknown", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["X"]}])", R"(["P"])"),
       "output 'P' is not an op"},
      {"output twice", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["X"]}])", R"(["O", "O"])"),
       "output 'O' is listed twice"},
      {"empty outputs", prog(kX, R"([{"name": "O", "op": "exp", "inputs": ["X"]}])", "[]"), "'outputs' is empty"},
      {"op without name", prog(kX, R"([{"op": "exp", "inputs": ["X"]}])"), "each op needs a non-empty string 'name'"},
  };
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test::temp_dir(); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(CliTest, MalformedProgramsGetTheirMessageAndExit2) {
  const std::vector<Malformed> cases = malformed();
  ASSERT_GE(cases.size(), 20u);
  const std::string ref = test::source_path("experiments/mugraphs/rmsnorm_linear_small.json");
  int i = 0;
  for (const Malformed& m : cases) {
    SCOPED_TRACE(m.what);
    const std::string path = write("p" + std::to_string(i++) + ".json", m.text);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"programs", path}, std::vector<std::string>{"verify", path, ref}}) {
      const test::RunResult r = test::run_ugsearch(args);
      EXPECT_EQ(r.status, 2);
      EXPECT_EQ(r.out, "");
      EXPECT_EQ(r.err, "ugsearch: " + path + ": " + m.message + "\n");
    }
  }
}

// GCC names an ASan build with __SANITIZE_ADDRESS__, clang 14 only through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define UGS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UGS_ASAN 1
#endif
#endif

// A failure the input did not cause is one line and exit 4, not an abort: here memory runs out (the
// full-size program's inputs alone are 200 MB). ASan reserves more address space than the limit allows.
TEST_F(CliTest, RunningOutOfMemoryIsOneLineAndExit4) {
#if defined(UGS_ASAN)
  GTEST_SKIP() << "address sanitizer build: a virtual memory limit stops it before main";
#endif
  const std::string ref = test::source_path("experiments/mugraphs/rmsnorm_linear.json");
  for (const std::string& verb : {std::string("verify rmsnorm_linear '") + ref + "'",
                                  std::string("search rmsnorm_linear --backend cpu --quiet --out '") + dir_ + "/r.json'"}) {
    SCOPED_TRACE(verb);
    const test::RunResult r = test::run_command({"/bin/sh", "-c", "ulimit -v 400000 && exec '" UGS_BINARY "' " + verb});
    EXPECT_EQ(r.status, 4);
    EXPECT_EQ(r.err, "ugsearch: failed: out of memory; use fewer threads, a smaller program, or bfs --memory-limit\n");
  }
}

TEST_F(CliTest, VerifyAnswersWithItsExitStatus) {
  const std::string ref = test::source_path("experiments/mugraphs/lora_small.json");
  test::RunResult r = test::run_ugsearch({"verify", "lora_small", ref, "--field", "both"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("equivalent: 3 wide tests passed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("equivalent: 3 mirage tests passed"), std::string::npos) << r.out;

  nlohmann::json j = test::reference_json("lora_small");
  j["kernels"][0]["ops"][3]["op"] = "mul";  // X·W ∗ (X·A)·B
  const std::string bad = write("bad.json", j.dump());
  r = test::run_ugsearch({"verify", "lora_small", bad, "--json"});
  EXPECT_EQ(r.status, 1);
  const nlohmann::json out = nlohmann::json::parse(r.out);
  EXPECT_FALSE(out["equivalent"].get<bool>());
  EXPECT_EQ(out["fields"][0]["reason"], "finite-field test 1 of 3 (wide field) gives different outputs");

  r = test::run_ugsearch({"verify", "gqa_small", ref});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not a μGraph of gqa_small"), std::string::npos) << r.err;
  r = test::run_ugsearch({"verify", "no_such_program", ref});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "ugsearch: no_such_program: not a built-in program (see `ugsearch programs`) nor a file path\n");
  r = test::run_ugsearch({"verify", "lora_small", write("m.json", R"({"inputs": [[16, 64]], "kernels": [{"op": "exp", "in": [3]}], "outputs": [1]})")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("kernel op 0: an operand names a tensor that does not exist (yet)"), std::string::npos) << r.err;
}

TEST_F(CliTest, ShowPrintsTheCanonicalFormAndItsHash) {
  const std::string ref = test::source_path("experiments/mugraphs/gqa_small.json");
  test::RunResult r = test::run_ugsearch({"show", ref, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["canonical"].get<bool>());
  EXPECT_EQ(j["hash"].get<std::string>().size(), 16u);
  EXPECT_EQ(j["graph"], test::reference_json("gqa_small"));
  r = test::run_ugsearch({"show", ref, "--dot"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("digraph mugraph {", 0), 0u);
  r = test::run_ugsearch({"show", ref});
  EXPECT_NE(r.out.find("block  grid [2, 4, 1]  loop 4"), std::string::npos) << r.out;
}

TEST_F(CliTest, UsageErrorsExit2AndHelpExits0) {
  for (const char* verb : {"programs", "show", "verify"}) {
    const test::RunResult r = test::run_ugsearch({verb, "--help"});
    EXPECT_EQ(r.status, 0) << verb;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << verb;
  }
  EXPECT_EQ(test::run_ugsearch({}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"frobnicate"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"verify", "lora_small"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"verify", "lora_small", "x.json", "--field", "tiny"}).status, 2);
  const test::RunResult r = test::run_ugsearch({"programs"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("rmsnorm_linear_small"), std::string::npos);
}

}  // namespace
}  // namespace ugs
