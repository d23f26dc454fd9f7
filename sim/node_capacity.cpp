#include "sim/node_capacity.hpp"

#include <fmt/format.h>

namespace torus {

NodeMemoryFit node_memory_fit(std::uint64_t buffer_words, const ScalarType& scalar, const CoefficientTables* tables,
                              std::int64_t capacity_bytes) {
  NodeMemoryFit fit;
  fit.buffer_words = buffer_words;
  fit.real_bytes = scalar.precision == Precision::Single ? 4 : 8;
  fit.word_bytes = fit.real_bytes * (scalar.domain == Domain::Complex ? 2 : 1);
  fit.table_values = tables ? tables->values : 0;
  fit.capacity_bytes = static_cast<std::uint64_t>(capacity_bytes);
  return fit;
}

std::string NodeMemoryFit::describe() const {
  std::string need = fmt::format("{} bytes per node ({} buffer words x {} bytes", required_bytes(), buffer_words, word_bytes);
  if (table_values > 0) need += fmt::format(" + {} table values x {} bytes", table_values, real_bytes);
  need += ")";
  if (capacity_bytes == 0) return need + ", node_memory_bytes not limited";
  if (fits()) return need + fmt::format(", fits in node_memory_bytes = {}", capacity_bytes);
  return need + fmt::format(": DOES NOT FIT in node_memory_bytes = {} ({} bytes over); not simulated", capacity_bytes,
                            required_bytes() - capacity_bytes);
}

nlohmann::json NodeMemoryFit::to_json() const {
  return {{"buffer_words", buffer_words},     {"word_bytes", word_bytes},
          {"table_values", table_values},     {"real_bytes", real_bytes},
          {"required_bytes", required_bytes()}, {"capacity_bytes", capacity_bytes},
          {"fits", fits()}};
}

}  // namespace torus
