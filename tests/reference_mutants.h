#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ugs/ir/graph.h"

namespace ugs::test {

struct Mutant {
  std::string name;
  nlohmann::json patch;  // JSON patch of the reference file
};

// At least ten per reference of test::kReferences.
std::vector<Mutant> mutants_of(const std::string& reference);

struct MutantCase {
  std::string name;
  KernelGraph program, graph;
  bool interface_differs;  // outputs of another shape: rejected before any test
};

// Every mutant of every reference, parsed (each must be a valid μGraph), plus μGraphs with a 1×1
// output, where one element decides: exp(2a) for exp(a), and exp(a) for silu(a) = a·exp(a).
std::vector<MutantCase> all_mutant_cases();

}  // namespace ugs::test
