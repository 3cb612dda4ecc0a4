#pragma once
// Names of an enum's values, from one table of {value, name} pairs: how every option the command line
// and the config files name (strategies, backends, spaces, ...) maps to its value and back.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace ugs {

template <class E, size_t N>
using NameTable = std::pair<E, std::string_view>[N];

template <class E, size_t N>
std::optional<E> value_named(const NameTable<E, N>& names, std::string_view name) {
  for (const auto& [value, text] : names)
    if (text == name) return value;
  return std::nullopt;
}

template <class E, size_t N>
std::string_view name_in(const NameTable<E, N>& names, E value) {
  for (const auto& [entry, text] : names)
    if (entry == value) return text;
  return "?";
}

// "\"a\", \"b\", \"c\"": the names, for a message listing what is accepted.
template <class E, size_t N>
std::string quoted_names(const NameTable<E, N>& names) {
  std::string list;
  for (const auto& entry : names) list += (list.empty() ? "\"" : ", \"") + std::string(entry.second) + "\"";
  return list;
}

}  // namespace ugs
