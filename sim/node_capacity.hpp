#pragma once
// Whether a run fits in the simulated nodes' memory (`node_memory_bytes`). A node holds every
// buffer of its task list (data blocks, coefficient blocks, second buffers of rolled blocks),
// each sized for the largest block it holds, at the run's word size, plus the coefficient tables
// of an algorithm that generates its coefficient blocks itself. A run that needs more than the
// capacity on its fullest node "does not fit": it is reported with these figures and not
// simulated, as on the real machine it could not be run.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/scalar.hpp"
#include "sim/coefficient_tables.hpp"

namespace torus {

struct NodeMemoryFit {
  std::uint64_t buffer_words = 0;   // the fullest node's buffers, in words
  std::uint64_t word_bytes = 8;     // a word at the run's precision (complex: two reals)
  std::uint64_t table_values = 0;   // real numbers in its coefficient tables
  std::uint64_t real_bytes = 8;     // a real number at the run's precision
  std::uint64_t capacity_bytes = 0; // node_memory_bytes; 0: not limited
  std::uint64_t required_bytes() const { return buffer_words * word_bytes + table_values * real_bytes; }
  bool fits() const { return capacity_bytes == 0 || required_bytes() <= capacity_bytes; }
  // One line for the text report: the figures and the verdict.
  std::string describe() const;
  nlohmann::json to_json() const;
};

NodeMemoryFit node_memory_fit(std::uint64_t buffer_words, const ScalarType& scalar, const CoefficientTables* tables,
                              std::int64_t capacity_bytes);

}  // namespace torus
