#pragma once
// Batches of candidates for the CUDA backend's tests (test_cuda: on the device; test_cuda_emulator:
// the same work run by host threads), and the comparison of two backends' fingerprints.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "ugs/eval/backend.h"
#include "ugs/ir/graph.h"

namespace ugs::test {

// The built-in programs whose names end in _small.
std::vector<std::string> small_programs();

// For a reference μGraph (a name of experiments/mugraphs/): the reference, its kernel-level prefixes
// without outputs (partial states), and, where it has them, its hand-made mutants.
std::vector<KernelGraph> reference_batch(const std::string& name, bool with_mutants);

// (program, reference) of every reference μGraph (test::kEveryReference) of a _small program, or of
// a full-size one.
std::vector<std::pair<std::string, std::string>> every_reference(bool small);

// n graphs of predefined ops over the program's inputs, drawn at random (every op kind, broadcasts,
// reductions over every dim); some are partial (no outputs), some end with outputs set.
std::vector<KernelGraph> random_graphs(const KernelGraph& program, int n, uint64_t seed);

std::vector<const KernelGraph*> pointers(const std::vector<KernelGraph>& graphs);

// "" when a and b give the same hashes and match flags for every graph, else the first difference.
std::string compare_backends(Backend& a, Backend& b, std::span<const KernelGraph* const> graphs);

// The backend under test (the device's, or its emulation on host threads) for the run of a program
// in a field from a seed, which makes its own setup; null fails. It is compared with the CPU backend
// of FingerprintSetup::make, so its setup is checked too.
using BackendMaker = std::function<std::unique_ptr<Backend>(const KernelGraph& program, FieldKind field, uint64_t seed)>;

// The cases both test_cuda and test_cuda_emulator run, each in both fields against the CPU backend:
// every _small program against itself (it must match), a reference μGraph's batch (the reference must
// match; in the wide field nothing else may), and random graphs of predefined ops on every _small program.
void expect_programs_match_themselves(const BackendMaker& make);
void expect_reference_batch_matches_cpu(const std::string& program, const std::string& reference, bool with_mutants,
                                        const BackendMaker& make);
void expect_random_graphs_match_cpu(int per_program, const BackendMaker& make);

// Function classes (Backend::classify_functions) against the CPU backend's, on every _small program:
// random graphs and the program, some of them twice or three times over (classes of several), with
// costs and ties that repeat so that every rank decides somewhere.
void expect_function_classes_match_cpu(const BackendMaker& make);
// "" when a and b give the same classes of graphs (keys and representatives), else the first difference.
std::string compare_classes(Backend& a, Backend& b, std::span<const KernelGraph* const> graphs);

// gqa_small's reference batch with the search's stop flag down, then raised: fingerprints and classes
// of every graph, then none (hashes all zero, no match, no class).
void expect_nothing_evaluated_once_the_stop_is_raised(const BackendMaker& make);

// The float64 check's evaluator under test (the device's, or its emulation) for a program and seed.
using FloatMaker = std::function<std::unique_ptr<FloatEvaluator>(const KernelGraph& program, uint64_t seed)>;

// On every _small program: its outputs against the CPU evaluator's in float64 (to rounding) for the
// program, random graphs of predefined ops and its reference μGraphs with their partial states and
// mutants; and the confirmation's answers with it as without it.
void expect_float_outputs_match_cpu(const FloatMaker& make);

}  // namespace ugs::test
