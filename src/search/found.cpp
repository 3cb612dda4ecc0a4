#include "search/found.h"

#include <algorithm>

namespace ugs::search_detail {

void list_found(std::vector<FoundGraph> all, const GpuSpec& gpu, SearchResult& r) {
  r.mugraphs.clear();
  std::sort(all.begin(), all.end(), [](const FoundGraph& a, const FoundGraph& b) { return a.hash < b.hash; });
  for (const FoundGraph& f : all) {
    if (!r.mugraphs.empty() && r.mugraphs.back().hash == f.hash) {
      ++r.duplicates;
      continue;
    }
    r.mugraphs.push_back(f);
    r.mugraphs.back().cost = estimate(f.graph, gpu);
  }
  std::sort(r.mugraphs.begin(), r.mugraphs.end(),
            [](const FoundGraph& a, const FoundGraph& b) { return ranks_before(a.cost, a.hash, b.cost, b.hash); });
}

}  // namespace ugs::search_detail
