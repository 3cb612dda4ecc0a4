// `ugsearch cost`: programs print three plans, μGraph and results files one cost; bad input exits 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace ugs {
namespace {

using nlohmann::json;

std::string write_temp(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(CostCli, ProgramPrintsThreePlans) {
  const test::RunResult r = test::run_ugsearch({"cost", "gqa"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("NVIDIA H100 SXM5"), std::string::npos);
  for (const char* plan : {"\nunfused ", "\nxla ", "\nastitch "}) EXPECT_NE(r.out.find(plan), std::string::npos) << plan;
  EXPECT_NE(r.out.find("exp+reduce_sum+div"), std::string::npos);

  const test::RunResult j = test::run_ugsearch({"cost", "gqa", "--gpu", "a100", "--json"});
  ASSERT_EQ(j.status, 0) << j.err;
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["gpu"]["name"], "a100");
  ASSERT_EQ(doc["plans"].size(), 3u);
  EXPECT_EQ(doc["plans"][2]["plan"], "astitch");
  EXPECT_EQ(doc["plans"][0]["cost"]["dram_bytes"], 31'590'400);  // as test_cost_plans works out
  EXPECT_EQ(doc["plans"][2]["cost"]["kernels"], 3);
}

TEST(CostCli, ProgramFileIsAProgram) {
  const std::string dir = test::temp_dir();
  const std::string path = write_temp(dir, "p.json", read_file(test::source_path("experiments/programs/lora.json")));
  const test::RunResult r = test::run_ugsearch({"cost", path, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["program"], "lora");
  std::filesystem::remove_all(dir);
}

TEST(CostCli, MugraphAndResultsFiles) {
  const std::string ref = test::source_path("experiments/mugraphs/gqa.json");
  const test::RunResult r = test::run_ugsearch({"cost", ref, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const json cost = json::parse(r.out)["cost"];
  EXPECT_EQ(cost["dram_bytes"], 11'632'640);
  EXPECT_EQ(cost["kernels"], 2);
  EXPECT_EQ(cost["per_kernel"][1]["blocks"], 32);

  // A results file: its first μGraph is meant.
  const std::string dir = test::temp_dir();
  const json results = {{"mugraphs", {{{"hash", "0"}, {"graph", test::reference_json("lora")}}}}};
  const test::RunResult rr = test::run_ugsearch({"cost", write_temp(dir, "results.json", results.dump())});
  ASSERT_EQ(rr.status, 0) << rr.err;
  EXPECT_NE(rr.out.find("block 64x1x1 loop 4"), std::string::npos);
  EXPECT_NE(rr.out.find("3407872 dram bytes"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(CostCli, BadInputExits2) {
  const std::string dir = test::temp_dir();
  const std::string neither = write_temp(dir, "x.json", R"({"foo": 1})");
  const test::RunResult r = test::run_ugsearch({"cost", neither});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("neither a program"), std::string::npos) << r.err;

  const test::RunResult bad_json = test::run_ugsearch({"cost", write_temp(dir, "y.json", "{")});
  EXPECT_EQ(bad_json.status, 2);
  EXPECT_NE(bad_json.err.find("not valid JSON"), std::string::npos);

  EXPECT_EQ(test::run_ugsearch({"cost", "no_such_program"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"cost", dir + "/missing.json"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"cost", "gqa", "--gpu", "v100"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"cost"}).status, 2);
  EXPECT_EQ(test::run_ugsearch({"cost", "--help"}).status, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ugs
