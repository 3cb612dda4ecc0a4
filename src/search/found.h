#pragma once
// The list of a search's μGraphs: each once, priced by the cost model, best first.
#include <vector>

#include "ugs/cost/gpu.h"
#include "ugs/search/search.h"

namespace ugs::search_detail {

// Found μGraphs (hashed and dated) into result.mugraphs: deduplicated by hash (result.duplicates counts
// the rest; the earliest date stays), priced, sorted best first; and the times to the first and the best.
// `within` > 0 (--objective best): only those that cost at most `within` times the best stay; the time
// to the first is still the run's first μGraph's, which the list may no longer hold.
void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, double within, SearchResult& result);

}  // namespace ugs::search_detail
