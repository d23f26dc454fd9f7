#include "sim/coefficient_tables.hpp"

#include <set>

#include <fmt/format.h>

#include "kernels/transform.hpp"

namespace torus {

CoefficientTables coefficient_tables(const RunConfig& run, const BlockGrid& grid, bool complex_data) {
  const AxisTransforms transforms = parse_axis_transforms(run.transform, run.transform_options());
  const std::size_t directions = run.runs_forward() && run.runs_inverse() ? 2 : 1;
  CoefficientTables out;
  std::set<std::pair<std::string, std::size_t>> seen;  // one table serves every axis of that transform and length
  for (std::size_t a = 0; a < 3; ++a) {
    const Transform& t = *transforms.axis[a];
    const std::size_t n = grid.axis[a].n;
    const std::optional<std::size_t> table = t.table_values(n);
    std::string part;
    if (table) {
      if (!seen.insert({t.name(), n}).second) continue;
      out.values += *table;
      part = fmt::format("{} table {} (N = {})", t.name(), *table, n);
    } else {
      // The node's block column or row of the matrix (C, and D for a round trip).
      const std::size_t held = n * grid.axis[a].largest() * directions * (complex_data ? 2 : 1);
      out.values += held;
      part = fmt::format("{} blocks {} (N_{} x b_{} = {} x {}{}{})", t.name(), held, a + 1, a + 1, n, grid.axis[a].largest(),
                         directions == 2 ? ", C and D" : "", complex_data ? ", complex" : "");
    }
    out.description += (out.description.empty() ? "" : ", ") + part;
  }
  return out;
}

}  // namespace torus
