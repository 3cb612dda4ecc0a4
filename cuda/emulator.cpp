// The CUDA backend's plan run by host threads (ugs/cuda/emulator.h): one emulated block at a time,
// `threads` host threads in it, a barrier for __syncthreads and atomics for the hash sums.
#include "ugs/cuda/emulator.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "agent_interpret.h"
#include "arith.h"
#include "draw_inputs.h"
#include "function_keys.h"
#include "plan.h"
#include "tuning.h"
#include "ugs/eval/field_kind.h"

namespace ugs::cuda {
namespace {

class Barrier {
 public:
  explicit Barrier(int n) : parties_(n) {}
  void wait() {
    std::unique_lock lock(mutex_);
    const uint64_t gen = gen_;
    if (++count_ == parties_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
      return;
    }
    cv_.wait(lock, [&] { return gen_ != gen; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int parties_, count_ = 0;
  uint64_t gen_ = 0;
};

// The block context of agent_tile_ops.h on the host. Warp 0 is the first min(32, num_threads)
// threads, with a barrier of its own for shuffles.
struct HostCtx {
  uint32_t id, num_threads;
  Barrier* barrier;
  Barrier* warp_barrier;
  FieldPair* lanes;
  uint32_t tid() const { return id; }
  uint32_t threads() const { return num_threads; }
  void sync() const { barrier->wait(); }
  uint32_t warp_size() const { return std::min(num_threads, 32u); }
  FieldPair shfl_down(FieldPair v, uint32_t delta) const {
    lanes[id] = v;
    warp_barrier->wait();
    const FieldPair r = id + delta < warp_size() ? lanes[id + delta] : v;
    warp_barrier->wait();
    return r;
  }
  void add_sum(uint64_t* slot, uint64_t v) const {
    std::atomic_ref<uint64_t>(*slot).fetch_add(v, std::memory_order_relaxed);
  }
  void copy(FieldPair* dst, const FieldPair* src) const { *dst = *src; }
  void copy_pair(FieldPair* dst, const FieldPair* src) const {
    dst[0] = src[0];
    dst[1] = src[1];
  }
  void commit_loads() const {}
  void wait_loads(bool) const {}
};

// One launch as one persistent block that walks all its items, as a device block walks its share.
template <class A>
void run_launch(const ChunkPlan& plan, const LaunchPlan& launch, const A& ar, uint64_t* sums, uint32_t threads) {
  std::vector<FieldPair> arena(launch.arena), lanes(32);
  Barrier barrier(static_cast<int>(threads)), warp_barrier(static_cast<int>(std::min(threads, 32u)));
  auto body = [&](uint32_t id) {
    const HostCtx cx{id, threads, &barrier, &warp_barrier, lanes.data()};
    uint32_t j = 0;
    for (uint64_t w = 0; w < launch.items; ++w) {
      while (j + 1 < launch.n_jobs && plan.jobs[launch.first_job + j + 1].first_item <= w) ++j;
      const Job& job = plan.jobs[launch.first_job + j];
      const InterpretAgent<A, HostCtx> agent{cx, ar, plan.programs[job.program], job, arena.data(), sums};
      agent.run(w - job.first_item);
    }
  };
  std::vector<std::thread> pool;
  for (uint32_t id = 1; id < threads; ++id) pool.emplace_back(body, id);
  body(0);
  for (auto& t : pool) t.join();
}

class EmulatedBackend final : public Backend {
 public:
  // As the device makes its setup (fingerprint_backend.cu): the inputs drawn by the same element
  // function, then, in a field, the program run through a plan of its own.
  EmulatedBackend(const KernelGraph& program, Arith arith, uint64_t seed, int threads, uint64_t budget_elems)
      : arith_(arith),
        omega_(omega_of_seed(arith, seed)),
        exp_(exp_powers(arith, omega_)),
        threads_(std::clamp(threads, 1, tuning::kThreads)),
        budget_elems_(budget_elems),
        inputs_(program.num_inputs),
        want_(program.outputs.size()) {
    const std::vector<uint64_t> sums = draw_inputs(program, seed);
    if (arith != Arith::Real) run_program(program, sums);
  }

  // As CudaBackend::float_outputs (an Arith::Real backend).
  std::vector<std::vector<double>> float_outputs(const KernelGraph& graph) {
    std::lock_guard lock(mu_);
    const KernelGraph* one = &graph;
    std::vector<std::vector<double>> out;
    each_chunk(std::span(&one, 1), nullptr, [&](const std::vector<uint64_t>&) {
      for (int32_t t : graph.outputs) {
        out.emplace_back(graph.shape(t).numel());
        std::memcpy(out.back().data(), plan_.where[0][t], out.back().size() * sizeof(double));
      }
    });
    return out;
  }

  BackendKind kind() const override { return BackendKind::Cuda; }

  // Stopped between chunks, as the device is.
  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                   const std::atomic<bool>* stop) override {
    std::lock_guard lock(mu_);
    out.reset(graphs);
    each_chunk(graphs, stop, [&](const std::vector<uint64_t>& sums) {
      std::vector<uint8_t> match = plan_.match;
      for (const CompareItem& c : plan_.compares)
        if (sums[c.slot] != c.want_sum || !std::equal(c.got, c.got + c.numel, c.want)) match[c.graph] = 0;
      finish_fingerprints(graphs, plan_, setup_, sums.data(), match.data(), out);
    });
  }

  // As the device does it: each chunk's items by key_item from its sums, then sorted; no classes once
  // the stop is raised.
  void classify_functions(std::span<const KernelGraph* const> graphs, std::span<const double> cost,
                          std::span<const uint64_t> tie, FunctionClasses& out,
                          const std::atomic<bool>* stop) override {
    std::lock_guard lock(mu_);
    std::vector<ClassItem> items(graphs.size());
    each_chunk(graphs, stop, [&](const std::vector<uint64_t>& sums) {
      build_key_plan(graphs, plan_, keys_);
      KeyArgs args;
      args.graphs = keys_.graphs.data();
      args.n = static_cast<uint32_t>(keys_.graphs.size());
      args.first = static_cast<uint32_t>(plan_.begin);
      args.shape_of = keys_.shape_of.data();
      args.shapes = keys_.shapes.data();
      args.sums = sums.data();
      args.input_hashes = setup_.input_hashes.data();
      args.cost = cost.data();
      args.tie = tie.data();
      args.items = items.data();
      for (uint32_t i = 0; i < args.n; ++i) key_item(args, i);
    });
    if (raised(stop)) {
      out = {};
      return;
    }
    out.assign(items);
  }

 private:
  // The inputs into inputs_ and setup_; returns their element sums.
  std::vector<uint64_t> draw_inputs(const KernelGraph& program, uint64_t seed) {
    std::vector<const FieldPair*> where;
    std::vector<uint64_t> sums;
    for (int i = 0; i < program.num_inputs; ++i) {
      inputs_[i].resize(program.shape(i).numel());
      const uint64_t stream = input_stream(seed, i);
      uint64_t sum = 0;
      with_arith(arith_, [&](auto ar) {
        for (uint64_t e = 0; e < inputs_[i].size(); ++e)
          sum += draw_input_element<decltype(ar)>(stream, e, inputs_[i].data());
      });
      where.push_back(inputs_[i].data());
      sums.push_back(sum);
    }
    adopt_inputs(program, where, sums, setup_);
    return sums;
  }

  // The program's outputs into want_ and setup_.
  void run_program(const KernelGraph& program, std::span<const uint64_t> input_sums) {
    const KernelGraph* one = &program;
    each_chunk(std::span(&one, 1), nullptr, [&](const std::vector<uint64_t>& work_sums) {
      const std::vector<const FieldPair*> at = adopt_outputs(program, plan_, work_sums.data(), input_sums, setup_);
      for (size_t o = 0; o < at.size(); ++o) {
        want_[o].assign(at[o], at[o] + setup_.want_shapes[o].numel());
        setup_.want.push_back(want_[o].data());
      }
    });
  }

  // Each chunk of the batch planned into plan_ and run; then done(its element sums). None once `stop`
  // is raised.
  template <class Done>
  void each_chunk(std::span<const KernelGraph* const> graphs, const std::atomic<bool>* stop, Done done) {
    PlanLimits limits;
    limits.threads = static_cast<int>(threads_);
    limits.smem_bytes = 1u << 30;
    limits.compare_chunk = tuning::kCompareChunk;
    for (size_t begin = 0; begin < graphs.size() && !raised(stop);) {
      const size_t end = chunk_end(graphs, begin, budget_elems_);
      uint64_t need = 0;
      for (size_t i = begin; i < end; ++i) need += computed_elems(*graphs[i]);
      tensors_.assign(need, FieldPair{});
      build_plan(graphs, begin, end, setup_, tensors_.data(), limits, plan_);
      std::vector<uint64_t> sums(plan_.n_slots, 0);
      with_arith(arith_, [&](auto ar) {
        set_exp(ar, {omega_, exp_.empty() ? nullptr : exp_.data()});
        for (const LaunchPlan& l : plan_.launches) run_launch(plan_, l, ar, sums.data(), threads_);
      });
      done(sums);
      begin = end;
    }
  }

  Arith arith_;
  uint32_t omega_;
  std::vector<uint32_t> exp_;  // ω's powers, as the device reads them
  uint32_t threads_;
  uint64_t budget_elems_;
  std::vector<std::vector<FieldPair>> inputs_, want_;
  Resident setup_;
  std::mutex mu_;
  std::vector<FieldPair> tensors_;
  ChunkPlan plan_;
  KeyPlan keys_;
};

class EmulatedFloatEvaluator final : public FloatEvaluator {
 public:
  EmulatedFloatEvaluator(const KernelGraph& program, uint64_t seed, int threads)
      : engine_(program, Arith::Real, seed, threads, uint64_t{1} << 26) {}
  std::vector<std::vector<double>> outputs(const KernelGraph& graph) override { return engine_.float_outputs(graph); }

 private:
  EmulatedBackend engine_;
};

}  // namespace

std::unique_ptr<Backend> make_emulated_backend(const KernelGraph& program, FieldKind field, uint64_t seed, int threads,
                                               uint64_t budget_elems) {
  return std::make_unique<EmulatedBackend>(program, arith_of(field), seed, threads, budget_elems);
}

std::unique_ptr<FloatEvaluator> make_emulated_float_evaluator(const KernelGraph& program, uint64_t seed, int threads) {
  return std::make_unique<EmulatedFloatEvaluator>(program, seed, threads);
}

}  // namespace ugs::cuda
