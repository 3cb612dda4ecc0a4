#include "search/found.h"

#include <algorithm>

namespace ugs::search_detail {

void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, double within, SearchResult& result) {
  result.mugraphs.clear();
  std::sort(all.begin(), all.end(), [](const FoundGraph& a, const FoundGraph& b) { return a.hash < b.hash; });
  for (const FoundGraph& entry : all) {
    if (!result.mugraphs.empty() && result.mugraphs.back().hash == entry.hash) {
      ++result.duplicates;
      result.mugraphs.back().found_s = std::min(result.mugraphs.back().found_s, entry.found_s);
      continue;
    }
    result.mugraphs.push_back(entry);
    result.mugraphs.back().cost = estimate(entry.graph, gpu);
  }
  std::sort(result.mugraphs.begin(), result.mugraphs.end(),
            [](const FoundGraph& a, const FoundGraph& b) { return ranks_before(a.cost, a.hash, b.cost, b.hash); });
  result.time_to_first_s = result.time_to_best_s = -1;
  if (result.mugraphs.empty()) return;
  result.time_to_first_s = result.mugraphs[0].found_s;
  for (const FoundGraph& found : result.mugraphs) result.time_to_first_s = std::min(result.time_to_first_s, found.found_s);
  if (within > 0) {
    const double limit = result.mugraphs[0].cost.estimated_us * within;
    std::erase_if(result.mugraphs, [&](const FoundGraph& f) { return CostBound::beyond(f.cost.estimated_us, limit); });
  }
  result.time_to_best_s = result.mugraphs[0].found_s;
}

}  // namespace ugs::search_detail
