// libFuzzer target: any bytes given to the checkpoint-file reader (`--resume DIR`) yield a checkpoint
// or an InputError, never a crash, a hang, another exception or undefined behaviour (built with
// address and undefined sanitizers). The reader takes a path: the bytes go to one temp file per
// process, rewritten for each input. A checkpoint read has a key for each state of each layer, and
// its layers' states are then read as a resume reads them (src/search/bfs/bfs.cpp): split by the
// bounded decoder, each checked by well_formed, which must refuse or accept, never crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

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
  return 0;
}
