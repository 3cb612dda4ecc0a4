// The checkpoint readers on damaged files: every one is an InputError naming the file, never a
// crash. The damaged headers are the holes the reader had (found reading it for its fuzz target,
// tests/fuzz/fuzz_checkpoint.cpp, which had not reached them in two minutes): sizes whose product
// with an element's size wraps around, and numbers of another kind where an integer belongs.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "ugs/io/checkpoint_files.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

using nlohmann::json;

constexpr size_t kMagic = 8;  // the magic line; the header and its length come last

// A checkpoint with one pending layer (two states' bytes, opaque to the reader, and their keys) and
// one function-dedup key.
Checkpoint small_checkpoint() {
  Checkpoint c;
  c.run_key = "test";
  c.current = 1;
  c.levels.push_back({0, 1, 2, 3, 4, 5, 0.5});
  c.layers.resize(2);
  c.layers[1].states = {1, 2, 3, 4, 5};
  c.layers[1].count = 2;
  c.layers[1].keys = {11, 12};
  c.seen = {{7, 1.5}};
  return c;
}

// The tree small_checkpoint's file names: one level, one slab (its bytes live elsewhere).
std::vector<CheckpointLevel> small_tree() { return {{{{3, 10, 100, 0xABCDEF0123456789ull}}, 4}}; }

struct File {
  json header;
  std::string body;  // the raw bytes between the magic line and the header
};

File split(const std::string& bytes) {
  uint64_t len = 0;
  std::memcpy(&len, bytes.data() + bytes.size() - sizeof len, sizeof len);
  const size_t end = bytes.size() - sizeof len - len;
  return {json::parse(bytes.substr(end, len)), bytes.substr(kMagic, end - kMagic)};
}

std::string join(const std::string& magic, const File& f) {
  const std::string header = f.header.dump();
  const uint64_t len = header.size();
  return magic + f.body + header + std::string(reinterpret_cast<const char*>(&len), sizeof len);
}

class CheckpointFile : public testing::Test {
 protected:
  void SetUp() override {
    path_ = test::temp_dir() + "/checkpoint.ugs";
    const Checkpoint c = small_checkpoint();
    LayersSource states(c.layers, small_tree());
    write_checkpoint_file(path_, c, states);
    bytes_ = read_file(path_);
    magic_ = bytes_.substr(0, 8);
    file_ = split(bytes_);
  }
  // Reading `f` throws an InputError naming the file and containing `why`.
  void expect_damaged(const File& f, const std::string& why) {
    write_file_atomic(path_, join(magic_, f));
    try {
      read_checkpoint_file(path_, GraphRules{});
      ADD_FAILURE() << "read a damaged checkpoint: " << f.header.dump();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }

  std::string path_, bytes_, magic_;
  File file_;
};

TEST_F(CheckpointFile, ReadsBackWhatWasWritten) {
  const Checkpoint c = read_checkpoint_file(path_, GraphRules{});
  EXPECT_EQ(c.run_key, "test");
  EXPECT_EQ(c.current, 1);
  ASSERT_EQ(c.layers.size(), 2u);
  EXPECT_EQ(c.layers[1].count, 2u);
  EXPECT_EQ(c.layers[1].keys, (std::vector<uint64_t>{11, 12}));
  EXPECT_EQ(std::string(c.layers[1].states.begin(), c.layers[1].states.end()), "\1\2\3\4\5");
  ASSERT_EQ(c.seen.size(), 1u);
  EXPECT_EQ(c.seen[0], (std::pair<uint64_t, double>{7, 1.5}));
  ASSERT_EQ(c.levels.size(), 1u);
  EXPECT_EQ(c.levels[0].verified, 5u);
  EXPECT_EQ(c.levels[0].wall_s, 0.5);
  EXPECT_EQ(c.tree, small_tree());
}

// The search writes a layer in chunks, as its threads encode them; it reads back as one layer.
TEST(CheckpointChunks, ALayerWrittenInChunksReadsBackWhole) {
  struct TwoChunks final : CheckpointSource {
    void new_slabs(const Slab&) override {}
    std::vector<CheckpointLevel> tree() const override { return {}; }
    size_t depths() const override { return 1; }
    void layer(size_t, const Chunk& chunk) override {
      const uint8_t first[] = {1, 2, 3}, second[] = {4, 5};
      const uint64_t first_keys[] = {11}, second_keys[] = {12, 13};
      chunk(1, first, first_keys);
      chunk(0, {}, {});
      chunk(2, second, second_keys);
    }
  } states;
  const std::string path = test::temp_dir() + "/checkpoint.ugs";
  Checkpoint c = small_checkpoint();
  write_checkpoint_file(path, c, states);
  c = read_checkpoint_file(path, GraphRules{});
  ASSERT_EQ(c.layers.size(), 1u);
  EXPECT_EQ(c.layers[0].count, 3u);
  EXPECT_EQ(c.layers[0].keys, (std::vector<uint64_t>{11, 12, 13}));
  EXPECT_EQ(std::string(c.layers[0].states.begin(), c.layers[0].states.end()), "\1\2\3\4\5");
  ASSERT_EQ(c.seen.size(), 1u);
}

// A run killed while writing a checkpoint leaves its temp file; the next write of that checkpoint
// (the resumed run's) removes it.
TEST(CheckpointDirectory, AKilledWritersTempFileGoesWithTheNextWrite) {
  const std::string dir = test::temp_dir();
  const std::string stale = dir + "/checkpoint.ugs.tmp.4194305", other = dir + "/notes.tmp.1";
  write_file_atomic(stale, "half a checkpoint");
  write_file_atomic(other, "not ours");
  DirectoryCheckpoints store(dir);
  const Checkpoint c = small_checkpoint();
  LayersSource states(c.layers);
  store.write(c, states, 0, 1, 1);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(other));
  uint64_t generation = 0;
  EXPECT_EQ(store.read(0, 1, "test", GraphRules{}, &generation).layers[1].count, 2u);
}

// Slabs as a run writes them: the new ones each time, the tree naming some written before.
struct SlabsSource final : CheckpointSource {
  std::vector<std::pair<uint64_t, std::string>> fresh;
  std::vector<CheckpointLevel> levels;
  void new_slabs(const Slab& slab) override {
    for (const auto& [id, bytes] : fresh)
      slab(id, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  }
  std::vector<CheckpointLevel> tree() const override { return levels; }
  size_t depths() const override { return 0; }
  void layer(size_t, const Chunk&) override {}
};

CheckpointSlab slab_of(uint64_t id, const std::string& bytes) {
  return {id, 1, bytes.size(), hash_bytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size())};
}

// Each slab is written once; a write removes those neither it nor the checkpoint before holds, and
// a slab read back is checked against the length and hash its checkpoint names.
TEST(CheckpointDirectory, SlabsAreWrittenOnceAndGoWhenNoCheckpointHoldsThem) {
  const std::string dir = test::temp_dir();
  const auto path = [&](int id) { return dir + "/slab.0." + std::to_string(id) + ".ugs"; };
  DirectoryCheckpoints store(dir);
  const Checkpoint c = small_checkpoint();
  SlabsSource source;
  source.fresh = {{1, "first"}, {2, "second"}};
  source.levels = {{{slab_of(1, "first"), slab_of(2, "second")}, 2}};
  store.write(c, source, 0, 1, 1);
  source.fresh = {{3, "third"}};
  source.levels = {{{slab_of(2, "second"), slab_of(3, "third")}, 2}};
  store.write(c, source, 0, 1, 2);
  EXPECT_TRUE(std::filesystem::exists(path(1)));  // the checkpoint before holds it
  source.fresh = {};
  source.levels = {{{slab_of(3, "third")}, 1}};
  store.write(c, source, 0, 1, 3);
  EXPECT_FALSE(std::filesystem::exists(path(1)));
  EXPECT_TRUE(std::filesystem::exists(path(2)));
  store.write(c, source, 0, 1, 4);
  EXPECT_FALSE(std::filesystem::exists(path(2)));

  uint64_t generation = 0;
  const Checkpoint back = store.read(0, 1, "test", GraphRules{}, &generation);
  ASSERT_EQ(back.tree.size(), 1u);
  ASSERT_EQ(back.tree[0].slabs.size(), 1u);
  const HugeBytes bytes = store.read_slab(0, back.tree[0].slabs[0]);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "third");

  write_file_atomic(path(3), "thirD");
  try {
    store.read_slab(0, back.tree[0].slabs[0]);
    ADD_FAILURE() << "read a damaged slab";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path(3)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not the bytes the checkpoint names"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path(3));
  EXPECT_THROW(store.read_slab(0, back.tree[0].slabs[0]), InputError);
}

TEST_F(CheckpointFile, TruncatedFilesAreDamaged) {
  for (size_t size : {size_t{0}, size_t{7}, kMagic, kMagic + 8, kMagic + 18, bytes_.size() - 1}) {
    write_file_atomic(path_, bytes_.substr(0, size));
    EXPECT_THROW(read_checkpoint_file(path_, GraphRules{}), InputError) << size;
  }
}

// 2^61 keys of 8 bytes wrap around to 0 bytes: the check that the file holds them passed, and the
// keys' vector was then sized 2^61 (std::length_error, not an InputError).
TEST_F(CheckpointFile, AKeyCountWhoseSizeWrapsAroundIsDamaged) {
  File f = file_;
  f.header["layers"] = json::array({json::array({json::array({uint64_t{1} << 61, 0})})});
  f.body.clear();  // and nothing after the header but the dedup keys
  f.header["seen"] = 0;
  expect_damaged(f, "truncated layers");
}

// 2^60 dedup keys of 16 bytes wrap around to the 0 bytes left.
TEST_F(CheckpointFile, ADedupKeyCountWhoseSizeWrapsAroundIsDamaged) {
  File f = file_;
  f.header["layers"] = json::array();
  f.header["seen"] = uint64_t{1} << 60;
  f.body.clear();
  expect_damaged(f, "truncated dedup keys");
}

// A float out of an integer's range converted to it is undefined behaviour (the undefined-behaviour
// sanitizer stops there), and a negative number read as a size wraps around.
TEST_F(CheckpointFile, NumbersOfTheWrongKindAreDamaged) {
  const std::pair<json::json_pointer, json> fields[] = {
      {json::json_pointer("/current"), 1e300},
      {json::json_pointer("/current"), -1},
      {json::json_pointer("/chunks"), 1.5},
      {json::json_pointer("/seen"), -1},
      {json::json_pointer("/layers/1/0/0"), 1e300},
      {json::json_pointer("/layers/1/0/1"), -5},
      {json::json_pointer("/levels/0/0"), 1e300},
      {json::json_pointer("/counters/states"), -1e300},
      {json::json_pointer("/expr/queries"), "many"},
      {json::json_pointer("/wall_s"), "soon"},
  };
  for (const auto& [field, value] : fields) {
    File f = file_;
    f.header[field] = value;
    SCOPED_TRACE(field.to_string() + " = " + value.dump());
    expect_damaged(f, "not a usable checkpoint");
  }
}

TEST_F(CheckpointFile, AnotherMagicIsDamaged) {
  magic_ = "UGSCKPT2";
  expect_damaged(file_, "wrong magic or version");
}

// A run over ranks leaves a manifest naming the ranks and the generation; one whose numbers are of
// the wrong kind (a float out of an int's range was undefined behaviour, a string an uncaught
// json::type_error) is not a manifest.
TEST(CheckpointManifest, NumbersOfTheWrongKindAreNotAManifest) {
  for (const char* manifest : {R"({"ranks": 1e300, "generation": 1})", R"({"ranks": "two", "generation": 1})",
                               R"({"ranks": 2, "generation": -1})", R"({"ranks": 2, "generation": 0.5})"}) {
    const std::string dir = test::temp_dir();
    write_file_atomic(dir + "/manifest.json", manifest);
    uint64_t generation = 0;
    try {
      DirectoryCheckpoints(dir).read(0, 2, "test", GraphRules{}, &generation);
      ADD_FAILURE() << "read a checkpoint under " << manifest;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("not a checkpoint manifest"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ugs
