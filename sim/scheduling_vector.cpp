#include "sim/scheduling_vector.hpp"

#include <stdexcept>

#include "kernels/text.hpp"

namespace torus {

std::string SchedulingVector::to_string() const {
  std::string out;
  for (int s : sign) out += s > 0 ? '+' : '-';
  return out;
}

SchedulingVector SchedulingVector::parse(std::string_view text) {
  const auto fail = [&]() -> SchedulingVector {
    throw std::invalid_argument("alpha: '" + std::string(text) +
                                "' is not a scheduling vector; allowed: three signs such as "
                                "+++ or +-+, or 1,-1,1");
  };
  SchedulingVector v;
  if (text.size() == 3 && text.find_first_not_of("+-") == std::string_view::npos) {
    for (std::size_t i = 0; i < 3; ++i) v.sign[i] = text[i] == '+' ? 1 : -1;
    return v;
  }
  const std::vector<std::string> parts = split(text, ',');
  if (parts.size() != 3) return fail();
  for (std::size_t i = 0; i < 3; ++i) {
    if (parts[i] == "1" || parts[i] == "+1") v.sign[i] = 1;
    else if (parts[i] == "-1") v.sign[i] = -1;
    else return fail();
  }
  return v;
}

const std::array<SchedulingVector, 8>& all_scheduling_vectors() {
  static const std::array<SchedulingVector, 8> vectors = [] {
    std::array<SchedulingVector, 8> out;
    for (int i = 0; i < 8; ++i)
      out[static_cast<std::size_t>(i)].sign = {i & 4 ? -1 : 1, i & 2 ? -1 : 1, i & 1 ? -1 : 1};
    return out;
  }();
  return vectors;
}

}  // namespace torus
