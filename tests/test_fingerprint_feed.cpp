// The bfs feed thread (src/search/fingerprint_feed.h): graphs handed in from several threads, in
// pieces, get the match flags one backend call gives them, batch after batch; a backend's exception
// reaches wait() and the feed serves the next batch; with the stop raised every piece still gets one
// flag per graph.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "cuda_cases.h"
#include "search/fingerprint_feed.h"
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
