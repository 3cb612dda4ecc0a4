#include "search/found.h"

#include <algorithm>

namespace ugs::search_detail {

void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, SearchResult& result) {
  result.mugraphs.clear();
  std::sort(all.begin(), all.end(), [](const FoundGraph& a, const FoundGraph& b) { return a.hash < b.hash; });
  for (const FoundGraph& entry : all) {
    if (!result.mugraphs.empty() && result.mugraphs.back().hash == entry.hash) {
      ++result.duplicates;
      continue;
    }
    result.mugraphs.push_back(entry);
    result.mugraphs.back().cost = estimate(entry.graph, gpu);
  }
  std::sort(result.mugraphs.begin(), result.mugraphs.end(),
            [](const FoundGraph& a, const FoundGraph& b) { return ranks_before(a.cost, a.hash, b.cost, b.hash); });
}

}  // namespace ugs::search_detail
