// `ugsearch search PROGRAM`: run a search and write the results file (docs/design.md §9). Exit 0, 3 when
// --time-limit stopped it, 128 + the signal's number when SIGINT or SIGTERM did (stop_signals.h); a
// stopped run's results so far are written and marked partial.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "stop_signals.h"
#include "ugs/io/checkpoint_files.h"
#include "ugs/io/results_file.h"
#include "ugs/io/spaces.h"
#include "ugs/search/distributed/comm.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"
#include "verbs.h"

namespace ugs::cli {
namespace {

struct Opts {
  std::string program, strategy = "dfs", backend = "auto", field = "wide", config, out = "results.json";
  std::string dedup = "structural", checkpoint, resume, space, objective = "all";
  int64_t memory_limit = -1;  // -1: the default (default_memory_limit_mib)
  int threads = 1;
  uint64_t seed = 1;
  int64_t max_kernel_ops = 0, max_block_ops = 0;
  double time_limit = 0, checkpoint_share = -1;  // -1: not given (RunOptions' default)
  double within = 0;                              // 0: not given (1 under --objective best)
  bool quiet = false, symbolic = false;
};

// The space's config (--space, else the --config file's "space", else the program's default), then
// --config, then the flags.
SearchConfig config_of(const Opts& args, const Program& program) {
  nlohmann::json file = nlohmann::json::object();
  if (!args.config.empty()) {
    file = nlohmann::json::parse(read_file(args.config), nullptr, false);
    if (file.is_discarded()) throw InputError(args.config + ": not valid JSON; check brackets, commas and quotes");
    if (!file.is_object()) throw InputError(args.config + ": a search config must be a JSON object");
  }
  Space space = default_space(program);
  if (!args.space.empty()) {
    space = *space_from_name(args.space);
  } else if (file.contains("space")) {
    SearchConfig probe;
    apply_config_json(probe, {{"space", file["space"]}}, args.config);
    space = probe.space;
  }
  SearchConfig cfg = space_config(program, space);
  if (!args.config.empty()) apply_config_json(cfg, file, args.config);
  cfg.space = space;
  if (args.max_kernel_ops) apply_config_json(cfg, {{"max_kernel_ops", args.max_kernel_ops}}, "--max-kernel-ops");
  if (args.max_block_ops) apply_config_json(cfg, {{"max_block_ops", args.max_block_ops}}, "--max-block-ops");
  if (args.symbolic) apply_config_json(cfg, {{"symbolic", 1}}, "--symbolic");
  resolve(cfg, program.graph);
  return cfg;
}

// With several GPUs on a machine, rank i of that machine uses device i mod their number (set before
// anything initializes CUDA; a CUDA_VISIBLE_DEVICES given by the user wins).
void pin_gpu_per_rank() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local) local = std::getenv("MPI_LOCALRANKID");
  if (!local || std::getenv("CUDA_VISIBLE_DEVICES")) return;
  std::error_code ec;
  int gpus = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++gpus;
  if (gpus > 1) setenv("CUDA_VISIBLE_DEVICES", std::to_string(std::atoi(local) % gpus).c_str(), 1);
}

// The bfs-only flags, checked before anything runs.
void check_bfs_flags(const Opts& args) {
  const bool bfs = args.strategy == "bfs";
  auto only_bfs = [&](bool given, const char* flag) {
    if (given && !bfs) throw InputError(std::string(flag) + ": only --strategy bfs has it; add --strategy bfs or drop it");
  };
  only_bfs(args.dedup != "structural", "--dedup function");
  only_bfs(args.memory_limit >= 0, "--memory-limit");
  only_bfs(!args.checkpoint.empty(), "--checkpoint");
  only_bfs(!args.resume.empty(), "--resume");
  if (args.checkpoint_share >= 0 && args.checkpoint.empty() && args.resume.empty())
    throw InputError("--checkpoint-share: there are no checkpoints; add --checkpoint DIR or drop it");
  if (!args.checkpoint.empty() && !args.resume.empty() && args.checkpoint != args.resume)
    throw InputError("--checkpoint and --resume name different directories; a resumed run keeps checkpointing where it "
                     "resumed from, so give only --resume");
}

// bfs's frontier limit when --memory-limit is not given: 128 MiB, or half the memory available when
// the search starts if that is less (the process adds the batch's children, the generator's memo
// and the program's tensors to the frontier). A large space is then searched depth-first over
// chunks of its levels, the most promising states first, instead of ending the run out of memory;
// each level keeps its dedup. A small frontier dives early, so the search reaches μGraphs within
// seconds where a GiB of breadth came first and took a minute, and a complete search takes as long
// (docs/bfs.md); past the limit a batch still takes 8 MiB of children. Under mpirun the ranks must
// take one limit, and each would read its own machine's figure: there the default is the 128 MiB
// alone (on the whole frontier, every rank holding its share).
int64_t default_memory_limit_mib() {
  constexpr int64_t kDefaultMib = 128;
  if (under_mpi_launcher()) return kDefaultMib;
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t kib = 0;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") return std::min(kDefaultMib, std::max<int64_t>(kib / 2 / 1024, 1));
  return kDefaultMib;
}

// MPI starts only for dfs-mpi or when mpirun started this process, so a plain search needs no MPI
// runtime. Each rank takes one GPU of its machine: with several, the device of its local rank.
std::unique_ptr<Comm> start_ranks(const Opts& args) {
  if (args.strategy != "dfs-mpi" && !under_mpi_launcher()) return nullptr;
  if (!mpi_built())
    throw InputError(args.strategy == "dfs-mpi"
                         ? "--strategy dfs-mpi: not available, this ugsearch was built without MPI (install "
                           "libopenmpi-dev and rebuild)"
                         : "started by mpirun, but this ugsearch was built without MPI; run it without mpirun");
  pin_gpu_per_rank();
  return start_mpi();
}

int search(const Opts& args, Comm* comm) {
  const Program program = load_program(args.program);
  const SearchConfig cfg = config_of(args, program);
  RunOptions opt;
  opt.strategy = *strategy_from_name(args.strategy);
  opt.threads = args.threads;
  opt.field = *field_from_name(args.field);
  opt.backend = *backend_from_name(args.backend);
  opt.dedup = *dedup_from_name(args.dedup);
  opt.memory_limit_mib =
      args.memory_limit >= 0 ? args.memory_limit : (args.strategy == "bfs" ? default_memory_limit_mib() : 0);
  opt.resume = !args.resume.empty();
  const std::string checkpoint_dir = opt.resume ? args.resume : args.checkpoint;
  std::optional<DirectoryCheckpoints> checkpoints;
  if (!checkpoint_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::create_directories(checkpoint_dir, ec) && ec)
      throw InputError(checkpoint_dir + ": cannot create the checkpoint directory (" + ec.message() + ")");
    opt.checkpoints = &checkpoints.emplace(checkpoint_dir);
  }
  if (args.checkpoint_share >= 0) opt.checkpoint_share = args.checkpoint_share;
  opt.objective = *objective_from_name(args.objective);
  if (args.within > 0) opt.within = args.within;
  opt.seed = args.seed;
  opt.time_limit_s = args.time_limit;
  opt.comm = comm;
  std::atomic<bool> stop{false};
  std::optional<StopSignals> signals;
  if (!comm) {
    opt.stop = &stop;
    signals.emplace(stop);
  }
  const bool root = !comm || comm->rank() == 0;
  opt.progress = root && !args.quiet && isatty(STDERR_FILENO);
  const SearchResult result = run_search(program.graph, cfg, opt);
  const int sig = StopSignals::caught();
  const std::string stopped_by = !result.partial ? "" : sig ? signal_name(sig) : "time_limit";
  const int status = !result.partial ? 0 : sig ? 128 + sig : 3;
  if (!root) return status;
  nlohmann::json doc = results_json(program, cfg, opt, result);
  doc["run"]["stopped_by"] = stopped_by.empty() ? nlohmann::json() : nlohmann::json(stopped_by);  // null: ran to its end
  write_file_atomic(args.out, doc.dump(1) + "\n");
  if (!args.quiet)
    fmt::print("{}: {} μGraphs{} in {:.2f} s ({} states, {:.0f} states/s, {} z3 calls); results in {}\n", program.name,
               result.mugraphs.size(),
               result.partial ? " so far (stopped by " + (sig ? stopped_by : "--time-limit") + ")" : "", result.wall_s,
               result.totals.states, result.totals.states / std::max(result.wall_s, 1e-9), result.expr.z3_calls,
               args.out);
  // A space that admits no first step is searched whole at once: the run is complete and empty, and
  // the line says why (the limits, mostly: the kernel-op limit counts the inputs).
  if (!result.partial && result.mugraphs.empty() && result.totals.states <= 1 && result.totals.candidates == 0)
    fmt::print(stderr,
               "ugsearch: {}: no step from the inputs passes the space's checks ({} cut by the op limits, {} by "
               "shapes); raise the limits (max_kernel_ops {} counts the {} inputs, max_block_inputs {}, "
               "max_block_ops {} counts the loaders) or search another --space\n",
               program.name, result.totals.pruned.reach, result.totals.pruned.shape, cfg.max_kernel_ops,
               program.graph.num_inputs, cfg.max_block_inputs, cfg.max_block_ops);
  return status;
}

int run(const Opts& args) {
  check_bfs_flags(args);
  if (args.within > 0 && args.objective != "best")
    throw InputError("--within: only --objective best keeps μGraphs within a factor of the best; add --objective best "
                     "or drop it");
  const std::unique_ptr<Comm> comm = start_ranks(args);
  if (!comm || comm->size() == 1) return search(args, comm.get());
  if (args.strategy != "dfs-mpi" && args.strategy != "bfs") {  // every rank decides alike: no abort needed
    if (comm->rank() == 0)
      fmt::print(stderr, "ugsearch: --strategy {} runs in one process; over ranks use dfs-mpi or bfs\n",
                 args.strategy);
    return 2;
  }
  try {
    return search(args, comm.get());
  } catch (const std::exception& e) {  // one rank's failure ends every rank: never a partial result
    fmt::print(stderr, "ugsearch: rank {}: {}\n", comm->rank(), e.what());
    comm->abort(dynamic_cast<const InputError*>(&e) ? 2 : kFailed);
  }
  return 1;  // not reached: abort ends this process and the others
}

}  // namespace

Verb add_search(CLI::App& app) {
  auto args = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("search", "Search μGraphs equivalent to a program; write a results file");
  cmd->add_option("PROGRAM", args->program, "Built-in program name or program file")->required();
  cmd->add_option("--strategy", args->strategy, "Search strategy")
      ->check(CLI::IsMember({"dfs", "dfs-static", "dfs-omp", "dfs-mpi", "bfs"}))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Worker threads (of each rank, under mpirun)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--backend", args->backend, "Fingerprint backend")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--field", args->field, "Finite field of the tests")
      ->check(CLI::IsMember({"wide", "mirage"}))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the fingerprint and confirmation tests")->capture_default_str();
  cmd->add_option("--space", args->space,
                  "Search space: preset (the program's, the default when it has one), open (the defaults), "
                  "mirage (Mirage's generator)")
      ->check(CLI::IsMember({"preset", "open", "mirage"}));
  cmd->add_option("--config", args->config, "Search config file (JSON), applied over the space's config");
  cmd->add_option("--max-kernel-ops", args->max_kernel_ops, "Kernel-level ops, counting inputs")
      ->check(CLI::Range(1, 16));
  cmd->add_option("--max-block-ops", args->max_block_ops, "Block-level ops, counting loaders")
      ->check(CLI::Range(2, 20));
  cmd->add_flag("--symbolic", args->symbolic,
                "Open block graphs with their maps, grid and loop range left open until they close (config key "
                "symbolic)");
  cmd->add_option("--objective", args->objective,
                  "all: every μGraph of the space; best: the best and those within --within of it, every state that "
                  "cannot beat them cut by the cost model's bound")
      ->check(CLI::IsMember({"all", "best"}))
      ->capture_default_str();
  cmd->add_option("--within", args->within,
                  "--objective best: also keep μGraphs that cost at most this factor times the best (default 1)")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--time-limit", args->time_limit, "Stop after this many seconds (exit 3, partial results)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--dedup", args->dedup,
                  "bfs: states that are one (structural: equal graphs; function: equal tensors)")
      ->check(CLI::IsMember({"structural", "function"}))
      ->capture_default_str();
  cmd->add_option("--memory-limit", args->memory_limit,
                  "bfs: MiB of frontier; past it, levels are searched in chunks (default: 128, or half the memory "
                  "available at the start if less; 0: none)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 30));
  cmd->add_option("--checkpoint", args->checkpoint,
                  "bfs: directory for a checkpoint after every level, within --checkpoint-share");
  cmd->add_option("--checkpoint-share", args->checkpoint_share,
                  "bfs: the share of the run's time level checkpoints may take; past it a level's is skipped, never "
                  "the last one (default 0.1; 1: every level)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--resume", args->resume, "bfs: continue the run whose checkpoint is in this directory");
  cmd->add_option("--out", args->out, "Results file")->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress line and no summary");
  cmd->footer("Spaces: `preset` narrows the search to what the program's \"search\" preset names; `open` tries\n"
              "every op, map and derived grid within the default limits; `mirage` reproduces Mirage's generator\n"
              "(limits, op lists, its one choice of opening inputs, its grid rule, imap/fmap/omap lists) under\n"
              "the config the program's Mirage benchmark uses; what this model cannot express is listed in the\n"
              "results (run.space_not_covered). docs/search.md tells each.\n\n"
              "Ctrl-C (SIGINT) or SIGTERM stops a search as --time-limit does: the results so far are written,\n"
              "marked partial, and bfs leaves its checkpoint (exit 130 or 143); a second signal ends it at once.\n\n"
              "Search config keys (JSON, --config):\n" + config_reference());
  return {cmd, [args] { return run(*args); }};
}

}  // namespace ugs::cli
