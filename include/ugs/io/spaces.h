#pragma once
// The search space a search of a program starts from (docs/search.md, "Spaces"): a program file says
// which preset and which Mirage config it carries, and the space picks one.
#include "ugs/io/program.h"
#include "ugs/search/generator/config.h"

namespace ugs {

// The space a search takes when none is named: the program's preset when it carries one, else open.
Space default_space(const Program& program);

// The config `space` starts from, before --config and the flags apply: open, the defaults; preset,
// the defaults with the program's preset (InputError when it carries none); mirage, Mirage's generator
// under the program's Mirage config and scale. Not yet resolved.
SearchConfig space_config(const Program& program, Space space);

}  // namespace ugs
