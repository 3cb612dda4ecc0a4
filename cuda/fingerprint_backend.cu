// The CUDA fingerprint backend (issue 6). The run's inputs are drawn on the device and the program
// evaluated there once; both stay resident, and only their element sums come to the host. A batch is cut
// into chunks whose tensors fit a budget, and each chunk is one plan (cuda/plan.h): one upload of its
// programs, jobs and comparisons, one interpreter launch per wave and arena class (op s of every
// candidate in the same launch), one comparison launch, one download of the element sums and match
// flags, one synchronization. Function classes (--dedup function) keep the sums on the device: keys made
// there per chunk, one CUB sort and select per batch (classify.cu). Memory comes from grow-only buffers.
// A mutex serializes callers (the depth-first drivers call from several threads), as Mirage's lock does.
#include <cuda_runtime.h>

#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_map>

#include "device_buffer.cuh"
#include "dispatch.cuh"
#include "draw_inputs.h"
#include "error.cuh"
#include "plan.h"
#include "tuning.h"
#include "ugs/cuda/backend.h"
#include "ugs/cuda/device.h"

namespace ugs::cuda {
namespace {

constexpr size_t align16(size_t n) { return (n + 15) & ~size_t{15}; }

// Held through every public call: a call that throws midway (memory exhausted growing a buffer, a
// launch refused) still leaves none of its work in flight, so the next call may refill the pinned
// staging buffer and grow the buffers that work would read.
class DrainedOnThrow {
 public:
  explicit DrainedOnThrow(const cudaStream_t& stream) : stream_(stream) {}
  ~DrainedOnThrow() {
    if (std::uncaught_exceptions() > unwinding_ && stream_) cudaStreamSynchronize(stream_);
  }
  DrainedOnThrow(const DrainedOnThrow&) = delete;
  DrainedOnThrow& operator=(const DrainedOnThrow&) = delete;

 private:
  const cudaStream_t& stream_;  // the backend's, made by open_device()
  const int unwinding_ = std::uncaught_exceptions();
};

// Byte offsets of a chunk's sections in the staging buffer and its device copy; the key plan's when
// the chunk's graphs are being classified.
struct Layout {
  size_t programs = 0, jobs = 0, compares = 0, sums = 0, match = 0, results_end = 0;
  size_t key_graphs = 0, shape_of = 0, shapes = 0, end = 0;

  Layout(const ChunkPlan& plan, const KeyPlan* keys) {
    jobs = align16(programs + plan.programs.size() * sizeof(BlockProgram));
    compares = align16(jobs + plan.jobs.size() * sizeof(Job));
    sums = align16(compares + plan.compares.size() * sizeof(CompareItem));
    match = sums + plan.n_slots * sizeof(uint64_t);
    end = results_end = match + plan.match.size();
    if (!keys) return;
    key_graphs = align16(results_end);
    shape_of = align16(key_graphs + keys->graphs.size() * sizeof(KeyGraph));
    shapes = align16(shape_of + keys->shape_of.size() * sizeof(uint32_t));
    end = shapes + keys->shapes.size() * sizeof(KeyShape);
  }
};

// Byte offsets of a classified batch's arrays on the device (cost and tie first: the host's copy
// has them there too, then the count and the classes' best items it reads back).
struct ClassLayout {
  size_t cost = 0, tie = 0, items = 0, sorted = 0, flags = 0, best = 0, count = 0, temp = 0, end = 0;
  size_t host_count = 0, host_best = 0, host_end = 0;

  ClassLayout(size_t n, size_t temp_bytes) {
    tie = n * sizeof(double);
    items = align16(tie + n * sizeof(uint64_t));
    sorted = items + n * sizeof(ClassItem);
    best = sorted + n * sizeof(ClassItem);
    flags = best + n * sizeof(ClassItem);
    count = align16(flags + n);
    temp = (count + sizeof(int64_t) + 255) & ~size_t{255};
    end = temp + temp_bytes;
    host_count = items;
    host_best = align16(host_count + sizeof(int64_t));
    host_end = host_best + n * sizeof(ClassItem);
  }
};

class CudaBackend final : public Backend {
 public:
  ~CudaBackend() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  // The setup made on the device (plan.h's adopt_inputs and adopt_outputs): the inputs drawn where they
  // stay, then, in a field, the program run as a chunk of its own; only element sums cross to the host.
  // The float64 check's (Arith::Real) has no program outputs here: its reference stays on the host.
  void init(const KernelGraph& program, Arith arith, uint64_t seed) {
    const DrainedOnThrow drained(stream_);
    arith_ = arith;
    omega_ = omega_of_seed(arith, seed);
    exp_host_ = exp_powers(arith, omega_);
    const bool field = arith != Arith::Real;
    throw_if(open_device(), "opening the device");
    size_t total = 2 * program.num_inputs * sizeof(uint64_t);  // the inputs' hashes, then their sums
    total += align16(exp_host_.size() * sizeof(uint32_t));
    for (int i = 0; i < program.num_inputs; ++i) total += align16(program.shape(i).numel() * sizeof(FieldPair));
    for (int32_t t : program.outputs) total += field ? align16(program.shape(t).numel() * sizeof(FieldPair)) : 0;
    throw_if(resident_.reserve(std::max<size_t>(total, 16)), "resident memory");
    size_t off = 0;
    auto take = [&](const Shape& s) {
      FieldPair* d = resident_.as<FieldPair>(off);
      off += align16(s.numel() * sizeof(FieldPair));
      return d;
    };
    if (!exp_host_.empty()) {
      exp_dev_ = resident_.as<uint32_t>(off);
      off += align16(exp_host_.size() * sizeof(uint32_t));
      throw_if(cudaMemcpyAsync(exp_dev_, exp_host_.data(), exp_host_.size() * sizeof(uint32_t), cudaMemcpyHostToDevice,
                               stream_), "exp's table");
    }
    std::vector<const FieldPair*> inputs;
    for (int i = 0; i < program.num_inputs; ++i) inputs.push_back(take(program.shape(i)));
    std::vector<FieldPair*> want;
    for (int32_t t : program.outputs)
      if (field) want.push_back(take(program.shape(t)));
    auto* hashes = resident_.as<uint64_t>(off);
    std::vector<uint64_t> sums(program.num_inputs);
    throw_if(draw_inputs(program, seed, inputs, hashes + program.num_inputs, sums), "drawing the inputs");
    adopt_inputs(program, inputs, sums, setup_);
    input_hashes_ = hashes;
    throw_if(cudaMemcpyAsync(hashes, setup_.input_hashes.data(), sums.size() * sizeof(uint64_t),
                             cudaMemcpyHostToDevice, stream_),
             "input hashes");
    size_t free_bytes = 0, total_bytes = 0;
    throw_if(cudaMemGetInfo(&free_bytes, &total_bytes), "memory size");
    budget_elems_ = std::min(tuning::kTensorBudgetBytes, free_bytes / 3) / sizeof(FieldPair);
    if (field) run_program(program, sums, want);
  }

  // The float64 check's evaluation (an Arith::Real backend): `graph`'s outputs, as doubles.
  std::vector<std::vector<double>> float_outputs(const KernelGraph& graph) {
    std::lock_guard lock(mu_);
    const DrainedOnThrow drained(stream_);
    const KernelGraph* one = &graph;
    enqueue_chunk(std::span(&one, 1), 0, 1, false);
    std::vector<std::vector<double>> out;
    for (int32_t t : graph.outputs) {
      out.emplace_back(graph.shape(t).numel());
      throw_if(cudaMemcpyAsync(out.back().data(), plan_.where[0][t], out.back().size() * sizeof(double),
                               cudaMemcpyDeviceToHost, stream_), "float64 outputs");
    }
    throw_if(cudaStreamSynchronize(stream_), "float64 evaluation");
    return out;
  }

  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string device() const override { return device_description(); }

  // Stopped between chunks (each one batch of launches).
  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                   const std::atomic<bool>* stop) override {
    std::lock_guard lock(mu_);
    const DrainedOnThrow drained(stream_);
    out.reset(graphs);
    for (size_t begin = 0; begin < graphs.size() && !raised(stop);) {
      const size_t end = chunk_end(graphs, begin, budget_elems_);
      run_chunk(graphs, begin, end, out);
      begin = end;
    }
  }

  // The batch's items made on the device chunk by chunk (each chunk's keys from its element sums, which
  // never leave the device), then classified there; one item per class comes back. Stopped between
  // chunks, with no classes.
  void classify_functions(std::span<const KernelGraph* const> graphs, std::span<const double> cost,
                          std::span<const uint64_t> tie, FunctionClasses& out,
                          const std::atomic<bool>* stop) override {
    std::lock_guard lock(mu_);
    const DrainedOnThrow drained(stream_);
    out.keys.clear();
    out.best.clear();
    if (graphs.empty()) return;
    size_t temp_bytes = 0;
    throw_if(classify_temp_bytes(static_cast<uint32_t>(graphs.size()), &temp_bytes), "classification scratch size");
    const ClassLayout at(graphs.size(), temp_bytes);
    if (!make_items(graphs, cost, tie, at, stop)) return;
    const std::span<const ClassItem> best = classify_items(graphs.size(), at, temp_bytes);
    for (const ClassItem& c : best) {
      out.keys.push_back(c.key);
      out.best.push_back(c.index);
    }
  }

 private:
  // Every graph's ClassItem into the device's items array: cost and tie uploaded, then chunk by chunk
  // the plan run and the keys made from its sums. False when the stop cut it short.
  bool make_items(std::span<const KernelGraph* const> graphs, std::span<const double> cost,
                  std::span<const uint64_t> tie, const ClassLayout& at, const std::atomic<bool>* stop) {
    throw_if(classes_.reserve(at.end), "classification memory");
    throw_if(classes_host_.reserve(at.host_end), "classification staging");
    std::memcpy(classes_host_.as<char>(at.cost), cost.data(), cost.size() * sizeof(double));
    std::memcpy(classes_host_.as<char>(at.tie), tie.data(), tie.size() * sizeof(uint64_t));
    throw_if(cudaMemcpyAsync(classes_.as<char>(), classes_host_.as<char>(), at.items, cudaMemcpyHostToDevice, stream_),
             "cost upload");
    for (size_t begin = 0; begin < graphs.size();) {
      if (raised(stop)) {  // the cost upload may still read the staging buffer the next call refills
        throw_if(cudaStreamSynchronize(stream_), "cost upload");
        return false;
      }
      const size_t end = chunk_end(graphs, begin, budget_elems_);
      const Layout chunk = enqueue_chunk(graphs, begin, end, true);
      throw_if(dispatch_function_keys(key_args(chunk, at), stream_), "function keys");
      throw_if(cudaStreamSynchronize(stream_), "kernels");  // before the staging buffer is refilled
      begin = end;
    }
    return true;
  }

  // The n items sorted and each class's first selected on the device; those back in host memory.
  std::span<const ClassItem> classify_items(size_t n, const ClassLayout& at, size_t temp_bytes) {
    ClassifyArgs args;
    args.items = classes_.as<ClassItem>(at.items);
    args.sorted = classes_.as<ClassItem>(at.sorted);
    args.flags = classes_.as<uint8_t>(at.flags);
    args.best = classes_.as<ClassItem>(at.best);
    args.count = classes_.as<int64_t>(at.count);
    args.n = static_cast<uint32_t>(n);
    args.temp = classes_.as<void>(at.temp);
    throw_if(dispatch_classify(args, temp_bytes, stream_), "classification");
    auto* count = classes_host_.as<int64_t>(at.host_count);
    throw_if(cudaMemcpyAsync(count, args.count, sizeof(int64_t), cudaMemcpyDeviceToHost, stream_),
             "class count download");
    throw_if(cudaStreamSynchronize(stream_), "classification");
    auto* best = classes_host_.as<ClassItem>(at.host_best);
    throw_if(cudaMemcpyAsync(best, args.best, *count * sizeof(ClassItem), cudaMemcpyDeviceToHost, stream_),
             "class download");
    throw_if(cudaStreamSynchronize(stream_), "class download");
    return {best, static_cast<size_t>(*count)};
  }

  cudaError_t open_device() {
    UGS_CUDA_TRY(cudaSetDevice(0));
    UGS_CUDA_TRY(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, 0));
    UGS_CUDA_TRY(interpret_prepare(0, &smem_limit_));
    return cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
  }

  // Each input into its place in `where`, its element sum into sums (by way of device_sums).
  cudaError_t draw_inputs(const KernelGraph& program, uint64_t seed, std::span<const FieldPair* const> where,
                          uint64_t* device_sums, std::vector<uint64_t>& sums) {
    UGS_CUDA_TRY(cudaMemsetAsync(device_sums, 0, sums.size() * sizeof(uint64_t), stream_));
    for (int i = 0; i < program.num_inputs; ++i) {
      DrawArgs args;
      args.out = const_cast<FieldPair*>(where[i]);
      args.n = static_cast<uint64_t>(program.shape(i).numel());
      args.stream = input_stream(seed, i);
      args.sum = device_sums + i;
      UGS_CUDA_TRY(dispatch_draw_input(arith_, args, sms_ * 8, stream_));
    }
    UGS_CUDA_TRY(cudaMemcpyAsync(sums.data(), device_sums, sums.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost, stream_));
    return cudaStreamSynchronize(stream_);
  }

  // The program as the only graph of a chunk (nothing to compare yet), its outputs then copied to
  // `want`, where they stay.
  void run_program(const KernelGraph& program, std::span<const uint64_t> input_sums, std::span<FieldPair* const> want) {
    const KernelGraph* one = &program;
    const Layout at = enqueue_chunk(std::span(&one, 1), 0, 1, false);
    throw_if(cudaMemcpyAsync(staging_.as<char>(at.sums), plan_dev_.as<char>(at.sums), at.match - at.sums,
                             cudaMemcpyDeviceToHost, stream_), "result download");
    throw_if(cudaStreamSynchronize(stream_), "the program's kernels");
    const std::vector<const FieldPair*> where =
        adopt_outputs(program, plan_, staging_.as<uint64_t>(at.sums), input_sums, setup_);
    for (size_t o = 0; o < where.size(); ++o) {
      throw_if(cudaMemcpyAsync(want[o], where[o], setup_.want_shapes[o].numel() * sizeof(FieldPair),
                               cudaMemcpyDeviceToDevice, stream_),
               "the program's outputs");
      setup_.want.push_back(want[o]);
    }
    throw_if(cudaStreamSynchronize(stream_), "the program's outputs");
  }

  void run_chunk(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, Fingerprints& out) {
    const Layout at = enqueue_chunk(graphs, begin, end, false);
    throw_if(cudaMemcpyAsync(staging_.as<char>(at.sums), plan_dev_.as<char>(at.sums), at.results_end - at.sums,
                             cudaMemcpyDeviceToHost, stream_), "result download");
    throw_if(cudaStreamSynchronize(stream_), "kernels");
    finish_fingerprints(graphs, plan_, setup_, staging_.as<uint64_t>(at.sums), staging_.as<uint8_t>(at.match), out);
  }

  // Plans graphs [begin, end) (and their key plan when `keys`), uploads the plan and enqueues its work.
  Layout enqueue_chunk(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, bool keys) {
    uint64_t elems = 0;
    for (size_t i = begin; i < end; ++i) elems += computed_elems(*graphs[i]);
    throw_if(tensors_.reserve(std::max<uint64_t>(elems, 1) * sizeof(FieldPair)), "tensor memory");
    PlanLimits limits;
    limits.threads = tuning::kThreads;
    limits.smem_bytes = smem_limit_;
    limits.compare_chunk = tuning::kCompareChunk;
    build_plan(graphs, begin, end, setup_, tensors_.as<FieldPair>(), limits, plan_);
    if (keys) build_key_plan(graphs, plan_, keys_);
    const Layout at(plan_, keys ? &keys_ : nullptr);
    throw_if(stage(at, keys), "plan upload");
    throw_if(launch_all(at), "launch");
    return at;
  }

  KeyArgs key_args(const Layout& chunk, const ClassLayout& at) {
    KeyArgs args;
    args.graphs = plan_dev_.as<KeyGraph>(chunk.key_graphs);
    args.n = static_cast<uint32_t>(keys_.graphs.size());
    args.first = static_cast<uint32_t>(plan_.begin);
    args.shape_of = plan_dev_.as<uint32_t>(chunk.shape_of);
    args.shapes = plan_dev_.as<KeyShape>(chunk.shapes);
    args.sums = plan_dev_.as<uint64_t>(chunk.sums);
    args.input_hashes = input_hashes_;
    args.cost = classes_.as<double>(at.cost);
    args.tie = classes_.as<uint64_t>(at.tie);
    args.items = classes_.as<ClassItem>(at.items);
    return args;
  }

  // The plan as one block of bytes, copied to the device in one transfer.
  cudaError_t stage(const Layout& at, bool keys) {
    UGS_CUDA_TRY(staging_.reserve(at.end));
    UGS_CUDA_TRY(plan_dev_.reserve(at.end));
    std::memcpy(staging_.as<char>(at.programs), plan_.programs.data(), plan_.programs.size() * sizeof(BlockProgram));
    std::memcpy(staging_.as<char>(at.jobs), plan_.jobs.data(), plan_.jobs.size() * sizeof(Job));
    std::memcpy(staging_.as<char>(at.compares), plan_.compares.data(), plan_.compares.size() * sizeof(CompareItem));
    std::memset(staging_.as<char>(at.sums), 0, at.match - at.sums);
    std::memcpy(staging_.as<char>(at.match), plan_.match.data(), plan_.match.size());
    if (keys) {
      std::memcpy(staging_.as<char>(at.key_graphs), keys_.graphs.data(), keys_.graphs.size() * sizeof(KeyGraph));
      std::memcpy(staging_.as<char>(at.shape_of), keys_.shape_of.data(), keys_.shape_of.size() * sizeof(uint32_t));
      std::memcpy(staging_.as<char>(at.shapes), keys_.shapes.data(), keys_.shapes.size() * sizeof(KeyShape));
    }
    return cudaMemcpyAsync(plan_dev_.as<char>(), staging_.as<char>(), at.end, cudaMemcpyHostToDevice, stream_);
  }

  // Blocks for a launch: as many as fit the device at once, at most one per item, and for arenas in
  // device memory at most what the arena budget holds.
  cudaError_t ctas_for(const LaunchPlan& launch, int* ctas) {
    const size_t smem = launch.on_chip ? size_t{launch.arena} * sizeof(FieldPair) : 0;
    const uint64_t key = smem * 4 + static_cast<uint64_t>(arith_);
    auto it = blocks_per_sm_.find(key);
    if (it == blocks_per_sm_.end()) {
      int n = 0;
      UGS_CUDA_TRY(interpret_blocks_per_sm(arith_, smem, &n));
      it = blocks_per_sm_.emplace(key, std::max(n, 1)).first;
    }
    uint64_t blocks = std::min<uint64_t>(launch.items, uint64_t(it->second) * sms_);
    if (!launch.on_chip)
      blocks = std::min<uint64_t>(blocks, std::max<uint64_t>(1, tuning::kGlobalArenaBudgetBytes /
                                                                    (uint64_t{launch.arena} * sizeof(FieldPair))));
    *ctas = static_cast<int>(std::max<uint64_t>(blocks, 1));
    return cudaSuccess;
  }

  cudaError_t launch_all(const Layout& at) {
    // Reserve every buffer before the first launch (a reallocation would free memory in use).
    uint64_t arena_bytes = 0;
    for (const LaunchPlan& launch : plan_.launches) {
      if (launch.on_chip) continue;
      int ctas = 0;
      UGS_CUDA_TRY(ctas_for(launch, &ctas));
      arena_bytes = std::max<uint64_t>(arena_bytes, uint64_t(ctas) * launch.arena * sizeof(FieldPair));
    }
    if (arena_bytes) UGS_CUDA_TRY(arena_.reserve(arena_bytes));
    auto* sums = plan_dev_.as<uint64_t>(at.sums);
    for (const LaunchPlan& launch : plan_.launches) {
      InterpretArgs args;
      args.programs = plan_dev_.as<BlockProgram>(at.programs);
      args.jobs = plan_dev_.as<Job>(at.jobs) + launch.first_job;
      args.n_jobs = launch.n_jobs;
      args.items = launch.items;
      args.sums = sums;
      args.global_arena = launch.on_chip ? nullptr : arena_.as<FieldPair>();
      args.arena = launch.arena;
      int ctas = 0;
      UGS_CUDA_TRY(ctas_for(launch, &ctas));
      const size_t smem = launch.on_chip ? size_t{launch.arena} * sizeof(FieldPair) : 0;
      UGS_CUDA_TRY(dispatch_interpret(arith_, {omega_, exp_dev_}, args, ctas, smem, stream_));
    }
    CompareArgs compare;
    compare.items = plan_dev_.as<CompareItem>(at.compares);
    compare.n_items = static_cast<uint32_t>(plan_.compares.size());
    compare.chunks = plan_.compare_chunks;
    compare.sums = sums;
    compare.match = plan_dev_.as<uint8_t>(at.match);
    const int ctas = static_cast<int>(std::min<uint64_t>(std::max<uint64_t>(compare.chunks, 1), uint64_t(sms_) * 8));
    return dispatch_compare(compare, ctas, stream_);
  }

  Arith arith_ = Arith::Wide;
  uint32_t omega_ = 1;
  std::vector<uint32_t> exp_host_;     // ω's powers (exp_table.h), kept while their upload may run
  uint32_t* exp_dev_ = nullptr;        // and resident, for the field's exp
  Resident setup_;
  int sms_ = 1;
  uint32_t smem_limit_ = 0;
  uint64_t budget_elems_ = 0;
  cudaStream_t stream_ = nullptr;
  std::mutex mu_;
  DeviceBuffer resident_, tensors_, plan_dev_, arena_, classes_;
  PinnedBuffer staging_, classes_host_;
  const uint64_t* input_hashes_ = nullptr;  // the run's inputs', resident
  ChunkPlan plan_;
  KeyPlan keys_;
  std::unordered_map<uint64_t, int> blocks_per_sm_;
};

// The float64 check's evaluator: the backend's machinery over Arith::Real (its fingerprint side unused).
class CudaFloatEvaluator final : public FloatEvaluator {
 public:
  void init(const KernelGraph& program, uint64_t seed) { engine_.init(program, Arith::Real, seed); }
  std::vector<std::vector<double>> outputs(const KernelGraph& graph) override { return engine_.float_outputs(graph); }

 private:
  CudaBackend engine_;
};

// T::init(program, args...) on a device, or null with the reason.
template <class T, class... Args>
std::unique_ptr<T> made_on_device(std::string* why_not, const KernelGraph& program, Args... args) {
  if (device_count() == 0) {
    *why_not = device_description();
    return nullptr;
  }
  auto b = std::make_unique<T>();
  try {
    b->init(program, args...);
  } catch (const std::exception& e) {
    cudaGetLastError();
    *why_not = std::string("while setting up: ") + e.what();
    return nullptr;
  }
  return b;
}

}  // namespace

std::unique_ptr<Backend> make_backend(const KernelGraph& program, FieldKind field, uint64_t seed, std::string* why_not) {
  return made_on_device<CudaBackend>(why_not, program, arith_of(field), seed);
}

std::unique_ptr<FloatEvaluator> make_float_evaluator(const KernelGraph& program, uint64_t seed, std::string* why_not) {
  return made_on_device<CudaFloatEvaluator>(why_not, program, seed);
}

}  // namespace ugs::cuda
