#pragma once
// An error the user can cause (bad file, bad flag, impossible config): one line naming the thing and
// the fix. The command line prints it and exits with status 2.
#include <stdexcept>
#include <string>

namespace ugs {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ugs
