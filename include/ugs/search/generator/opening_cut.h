#pragma once
// What may cut an opening before the closing lookahead searches it: the search's cost bound under
// --objective best (cost_bound.h implements it, above the generator). Such an opening would be cut
// when visited, and the lookahead's searches are most of the work where it runs.
#include "ugs/search/generator/state.h"

namespace ugs {

class OpeningCut {
 public:
  // Whether it may cut anything now (false: no opening is priced).
  virtual bool binding() const = 0;
  // Whether the state an opening makes, `opened`, is cut.
  virtual bool cuts(const State& opened) const = 0;

 protected:
  ~OpeningCut() = default;
};

}  // namespace ugs
