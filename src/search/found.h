#pragma once
// The list of a search's μGraphs: each once, priced by the cost model, best first.
#include <vector>

#include "ugs/cost/gpu.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs (hashed) into result.mugraphs: deduplicated by hash (result.duplicates counts the rest),
// priced, sorted best first.
void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, SearchResult& result);

}  // namespace ugs::search_detail
