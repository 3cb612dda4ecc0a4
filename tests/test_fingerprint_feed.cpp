// The bfs feed thread (src/search/fingerprint_feed.h): graphs handed in from several threads, in
// pieces, get the match flags one backend call gives them, batch after batch; a backend's exception
// reaches wait() and the feed serves the next batch; with the stop raised every piece still gets one
// flag per graph; a wait up to a mark returns once what came before it is done, whatever came after.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "cuda_cases.h"
#include "search/bfs/fingerprint_feed.h"
#include "ugs/io/program.h"

namespace ugs::search_detail {
namespace {

// gqa_small's reference, its partial states and mutants, and random graphs: a few match.
std::vector<KernelGraph> mixed_batch(const KernelGraph& program) {
  std::vector<KernelGraph> graphs = test::reference_batch("gqa_small", true);
  for (KernelGraph& g : test::random_graphs(program, 40, 7)) graphs.push_back(std::move(g));
  return graphs;
}

// The batch cut into `parts` pieces, handed in from two threads; the flags joined in batch order.
std::vector<uint8_t> fed(FingerprintFeed& feed, const std::vector<KernelGraph>& graphs, size_t parts,
                         uint64_t* fingerprinted = nullptr) {
  std::vector<std::vector<uint8_t>> match(parts);
  const std::span<const KernelGraph> all(graphs);
#pragma omp parallel for num_threads(2) schedule(dynamic, 1)
  for (size_t k = 0; k < parts; ++k) {
    const size_t begin = graphs.size() * k / parts, end = graphs.size() * (k + 1) / parts;
    feed.add(all.subspan(begin, end - begin), &match[k]);
  }
  const FingerprintFeed::Done done = feed.wait();
  if (fingerprinted) *fingerprinted = done.graphs;
  std::vector<uint8_t> joined;
  for (const std::vector<uint8_t>& m : match) joined.insert(joined.end(), m.begin(), m.end());
  return joined;
}

TEST(FingerprintFeed, FlagsAsOneBackendCallGivesThemBatchAfterBatch) {
  const Program p = load_program("gqa_small");
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p.graph, FieldKind::Wide, 1));
  const std::vector<KernelGraph> graphs = mixed_batch(p.graph);
  Fingerprints want;
  cpu->fingerprint(test::pointers(graphs), want);
  ASSERT_GT(std::count(want.match.begin(), want.match.end(), 1), 0);
  ASSERT_GT(std::count(want.match.begin(), want.match.end(), 0), 0);
  FingerprintFeed feed(*cpu, nullptr, 2);
  for (size_t parts : {1, 7, 30}) {
    SCOPED_TRACE(parts);
    uint64_t fingerprinted = 0;
    EXPECT_EQ(fed(feed, graphs, parts, &fingerprinted), want.match);
    EXPECT_EQ(fingerprinted, graphs.size());
  }
}

// Throws on its first call; later calls leave every graph without a match.
class FailsOnce : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Cuda; }
  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                   const std::atomic<bool>*) override {
    if (calls_++ == 0) throw std::runtime_error("device lost");
    out.reset(graphs);
  }
  void classify_functions(std::span<const KernelGraph* const>, std::span<const double>, std::span<const uint64_t>,
                          FunctionClasses&, const std::atomic<bool>*) override {}

 private:
  int calls_ = 0;
};

TEST(FingerprintFeed, ABackendsExceptionReachesWaitAndTheNextBatchIsServed) {
  const Program p = load_program("gqa_small");
  const std::vector<KernelGraph> graphs = mixed_batch(p.graph);
  FailsOnce backend;
  FingerprintFeed feed(backend, nullptr, 2);
  EXPECT_THROW(fed(feed, graphs, 5), std::runtime_error);
  EXPECT_EQ(fed(feed, graphs, 5), std::vector<uint8_t>(graphs.size(), 0));
}

// Flags every graph a match; while closed, a call waits for the gate to open.
class Gate : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::Cuda; }
  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                   const std::atomic<bool>*) override {
    std::unique_lock lock(mu_);
    opened_.wait(lock, [&] { return open_; });
    out.reset(graphs);
    std::fill(out.match.begin(), out.match.end(), 1);
  }
  void classify_functions(std::span<const KernelGraph* const>, std::span<const double>, std::span<const uint64_t>,
                          FunctionClasses&, const std::atomic<bool>*) override {}
  void set(bool open) {
    {
      std::lock_guard lock(mu_);
      open_ = open;
    }
    opened_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable opened_;
  bool open_ = true;
};

TEST(FingerprintFeed, AWaitUpToAMarkLeavesWhatCameAfterIt) {
  const Program p = load_program("gqa_small");
  const std::vector<KernelGraph> graphs = test::random_graphs(p.graph, 6, 3);
  const std::span<const KernelGraph> all(graphs);
  Gate gate;
  FingerprintFeed feed(gate, nullptr, 1);
  std::vector<uint8_t> first, second, third;
  feed.add(all.subspan(0, 2), &first);
  feed.wait();
  const uint64_t before_second = feed.mark();
  EXPECT_EQ(before_second, 1u);
  gate.set(false);
  feed.add(all.subspan(2, 2), &second);  // its call waits at the gate
  feed.wait(before_second);              // so this returns only if it does not wait for that call
  EXPECT_EQ(first, std::vector<uint8_t>(2, 1));
  const uint64_t before_third = feed.mark();
  feed.add(all.subspan(4, 2), &third);
  std::thread opener([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.set(true);
  });
  feed.wait(before_third);  // the second call, once the gate opens
  EXPECT_EQ(second, std::vector<uint8_t>(2, 1));
  feed.wait();
  EXPECT_EQ(third, std::vector<uint8_t>(2, 1));
  opener.join();
}

TEST(FingerprintFeed, WithTheStopRaisedEveryGraphStillGetsAFlag) {
  const Program p = load_program("gqa_small");
  const auto cpu = make_cpu_backend(FingerprintSetup::make(p.graph, FieldKind::Wide, 1));
  const std::vector<KernelGraph> graphs = mixed_batch(p.graph);
  const std::atomic<bool> stop{true};
  FingerprintFeed feed(*cpu, &stop, 2);
  EXPECT_EQ(fed(feed, graphs, 7).size(), graphs.size());
}

}  // namespace
}  // namespace ugs::search_detail
