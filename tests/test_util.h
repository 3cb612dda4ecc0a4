#pragma once
// Shared by the tests: the reference μGraphs and programs of experiments/, and running the binary.
#include <string>
#include <utility>
#include <vector>

#include "ugs/io/mugraph_json.h"
#include "ugs/io/program.h"
#include "ugs/util/files.h"

namespace ugs::test {

inline constexpr const char* kReferences[] = {"rmsnorm_linear_small", "gated_mlp_small", "lora_small", "gqa_small"};
// The reference μGraph each built-in preset's search must find: gqa_small's preset holds the
// FlashDecoding pair whose second kernel adds the partial results over its loop (gqa_small_loop); the
// variant that adds them with reduce_sum_to (gqa_small) needs a space about 50 times larger. At full
// size the same holds for gqa_loop and gqa.
inline constexpr std::pair<const char*, const char*> kSearchReferences[] = {
    {"rmsnorm_linear_small", "rmsnorm_linear_small"},
    {"gated_mlp_small", "gated_mlp_small"},
    {"lora_small", "lora_small"},
    {"gqa_small", "gqa_small_loop"},
    {"rmsnorm_linear", "rmsnorm_linear"},
    {"gated_mlp", "gated_mlp"},
    {"lora", "lora"},
    {"gqa", "gqa_loop"},
    {"qknorm_gqa", "qknorm_gqa"}};
// The μGraph Mirage reports for each benchmark whose model this project expresses, in its `mirage` space:
// RMSNorm fused into the matmul, GatedMLP, LoRA, and the FlashDecoding-style gqa pair that adds the
// partial results over the second graph's loop (Mirage's block ops have no reduce_sum_to); at `_small`
// size that pair is gqa_small_mirage, gqa_loop's grids as the scaled grid rule offers them.
// qknorm_gqa's reference normalizes at kernel level, where Mirage has no rms_norm: not in its space.
inline constexpr std::pair<const char*, const char*> kMirageReferences[] = {
    {"rmsnorm_linear_small", "rmsnorm_linear_small"},
    {"gated_mlp_small", "gated_mlp_small"},
    {"lora_small", "lora_small"},
    {"gqa_small", "gqa_small_mirage"},
    {"rmsnorm_linear", "rmsnorm_linear"},
    {"gated_mlp", "gated_mlp"},
    {"lora", "lora"},
    {"gqa", "gqa_loop"}};
// Every file of experiments/mugraphs/ with its program (test_references checks that none is missing),
// so that checks of "every reference μGraph" also cover the ones that only a search test names.
inline constexpr std::pair<const char*, const char*> kEveryReference[] = {
    {"rmsnorm_linear_small", "rmsnorm_linear_small"}, {"gated_mlp_small", "gated_mlp_small"},
    {"lora_small", "lora_small"}, {"gqa_small", "gqa_small"}, {"gqa_small", "gqa_small_loop"},
    {"rmsnorm_linear", "rmsnorm_linear"}, {"gated_mlp", "gated_mlp"}, {"lora", "lora"}, {"gqa", "gqa"},
    {"gqa", "gqa_loop"}, {"qknorm_gqa", "qknorm_gqa"}, {"gqa_small", "gqa_small_mirage"}};

inline std::string source_path(const std::string& rel) { return std::string(UGS_SOURCE_DIR) + "/" + rel; }

inline KernelGraph reference(const std::string& name) {
  return load_mugraph(source_path("experiments/mugraphs/" + name + ".json"), GraphRules{});
}

inline nlohmann::json reference_json(const std::string& name) {
  return nlohmann::json::parse(read_file(source_path("experiments/mugraphs/" + name + ".json")));
}

struct RunResult {
  int status = -1;
  std::string out, err;
};

// Runs the ugsearch binary with the given arguments (each shell-quoted here).
RunResult run_ugsearch(const std::vector<std::string>& args);
// Runs argv[0] with the other arguments, its output captured.
RunResult run_command(const std::vector<std::string>& argv);
// Starts the ugsearch binary with the given arguments, its output into dir/out and dir/err, and
// returns at once: the child's pid, for kill and waitpid.
int spawn_ugsearch(const std::vector<std::string>& args, const std::string& dir);

// A fresh temporary directory for one test.
std::string temp_dir();

// The level a bfs checkpoint in dir holds as the one being expanded (its header's "current"), or -1
// when there is none yet.
int checkpoint_level(const std::string& dir);

}  // namespace ugs::test
