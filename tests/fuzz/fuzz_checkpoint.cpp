// libFuzzer target: any bytes given to the checkpoint readers (`--resume DIR`) yield a checkpoint or
// an InputError, never a crash, a hang, another exception or undefined behaviour (built with address
// and undefined sanitizers). The bytes are read both ways a resume reads a file:
// - as a checkpoint file: the reader takes a path, so they go to one temp file per process,
//   rewritten for each input. A checkpoint read has a key for each state of each layer, and its
//   layers' states are then read as a resume reads them (src/search/bfs/tree_checkpoint.cpp): split
//   by the bounded decoder, each checked by well_formed, which must refuse or accept, never crash;
// - as a slab of the tree (slab_codec.h): decoded or refused, and a decoded slab's nodes' steps
//   unpacked where they are within the slab, as a resume does before checking them.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>

#include "search/bfs/slab_codec.h"
#include "search/bfs/state_check.h"
#include "search/bfs/state_codec.h"
#include "ugs/io/checkpoint_files.h"
#include "ugs/util/error.h"

namespace {

// This process's temp file, removed when it exits.
struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("fuzz_checkpoint." + std::to_string(getpid()) + ".ugs")).string();
  ~TempFile() { std::remove(path.c_str()); }
};

void read_as_slab(const uint8_t* data, size_t size) {
  using namespace ugs::search_detail;
  NodeSlab slab;
  if (!decode_slab(std::span(data, size), slab)) return;
  ugs::State state;
  for (size_t i = 0; i < slab.bases.size(); ++i) {
    slab.bases.decode_at(i, state);
    (void)well_formed(state, ugs::GraphRules{});
  }
  uint64_t sum = 0;
  for (const Node& n : slab.nodes)
    if (n.parent != kBase && whole_step_within(n, slab.whole_steps.size()))
      sum += static_cast<uint64_t>(unpack_step(n, slab.whole_steps).kind);
  if (sum == ~uint64_t{0}) __builtin_trap();  // keeps the loop
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const TempFile file;
  const std::string& path = file.path;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) __builtin_trap();  // the harness cannot write its temp file: stop loudly
  }
  try {
    ugs::Checkpoint checkpoint = ugs::read_checkpoint_file(path, ugs::GraphRules{});
    ugs::State state;
    for (ugs::CheckpointLayer& layer : checkpoint.layers) {
      if (layer.keys.size() != layer.count) __builtin_trap();
      ugs::search_detail::Frontier states;
      if (!states.assign(std::move(layer.states), layer.count)) continue;
      for (size_t i = 0; i < states.size(); ++i) {
        states.decode_at(i, state);
        (void)ugs::search_detail::well_formed(state, ugs::GraphRules{});
      }
    }
  } catch (const ugs::InputError&) {
  }
  read_as_slab(data, size);
  return 0;
}
