#pragma once
// The list of a search's μGraphs: each once, priced by the cost model, best first.
#include <vector>

#include "ugs/cost/gpu.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs (hashed) into r.mugraphs: deduplicated by hash (r.duplicates counts the rest), priced,
// sorted best first.
void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, SearchResult& r);

}  // namespace ugs::search_detail
