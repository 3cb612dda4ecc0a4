#include "ugs/io/spaces.h"

#include "ugs/search/generator/mirage_space.h"
#include "ugs/util/error.h"

namespace ugs {

Space default_space(const Program& program) {
  return program.search_preset.is_null() ? Space::Open : Space::Preset;
}

SearchConfig space_config(const Program& program, Space space) {
  switch (space) {
    case Space::Open:
      return SearchConfig{};
    case Space::Preset: {
      if (program.search_preset.is_null())
        throw InputError(program.name + ": --space preset, but the program carries no \"search\" preset; use "
                         "--space open or mirage");
      SearchConfig cfg;
      apply_config_json(cfg, program.search_preset, program.name + " (preset)");
      cfg.space = Space::Preset;
      return cfg;
    }
    case Space::Mirage:
      return mirage_space(program.mirage_config, program.mirage_scale);
  }
  return SearchConfig{};
}

}  // namespace ugs
