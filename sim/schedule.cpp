#include "sim/schedule.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace torus {

std::string to_string(BlockKind kind) {
  static const std::array<const char*, block_kind_count> names = {"X", "X'", "X''", "Y", "C1", "C2", "C3"};
  return names[static_cast<std::size_t>(kind)];
}

bool is_coefficient(BlockKind kind) { return kind >= BlockKind::Coef1; }

BlockKind coefficient_kind(int axis) {
  return static_cast<BlockKind>(static_cast<int>(BlockKind::Coef1) + axis - 1);
}

int axis_of(BlockKind kind) {
  return is_coefficient(kind) ? static_cast<int>(kind) - static_cast<int>(BlockKind::Coef1) + 1 : 0;
}

std::size_t words_in(const BlockId& block, const BlockGrid& grid) {
  if (!is_coefficient(block.kind)) return grid.words({block.index[0], block.index[1], block.index[2]});
  const AxisSplit& split = grid.axis[static_cast<std::size_t>(axis_of(block.kind) - 1)];
  return split.size(static_cast<std::size_t>(block.index[0])) * split.size(static_cast<std::size_t>(block.index[1]));
}

std::size_t largest_words_in(BlockKind kind, const BlockGrid& grid) {
  if (!is_coefficient(kind)) return grid.largest_words();
  const std::size_t edge = grid.axis[static_cast<std::size_t>(axis_of(kind) - 1)].largest();
  return edge * edge;
}

std::string to_string(const BlockId& block) {
  if (is_coefficient(block.kind)) return fmt::format("{}({},{})", to_string(block.kind), block.index[0], block.index[1]);
  return fmt::format("{}({},{},{})", to_string(block.kind), block.index[0], block.index[1], block.index[2]);
}

std::string to_string(TransformDirection direction) {
  return direction == TransformDirection::Forward ? "forward" : "inverse";
}

std::vector<Placement> final_layout(const Schedule& schedule) {
  std::vector<Placement> out;
  for (const Placement& p : schedule.stages.back().created) out.push_back(p);
  return out;
}

ScheduleCounts count(const Schedule& schedule) {
  ScheduleCounts c;
  const BlockGrid& grid = schedule.grid;
  for (const ScheduleStage& stage : schedule.stages) {
    c.steps += stage.steps.size();
    std::size_t& moved = c.stage[static_cast<std::size_t>(stage.number - 1)].words_moved_per_node_step;
    for (const ScheduleStep& step : stage.steps)
      for (const BlockMultiplyAdd& op : step.ops) {
        ++c.block_multiply_adds;
        const auto m = static_cast<std::size_t>(op.mode - 1);
        c.scalar_multiply_adds += words_in(op.accumulator, grid) * grid.axis[m].size(static_cast<std::size_t>(op.operand.index[m]));
        // The kinds that roll are among the blocks the step works on: those are what leave.
        std::size_t words = 0;
        for (const Roll& roll : step.rolls)
          for (const BlockId* block : {&op.accumulator, &op.operand, &op.coefficient})
            if (block->kind == roll.kind) words += words_in(*block, grid);
        moved = std::max(moved, words);
      }
  }
  // Nothing is freed during a transform, so a node's peak is everything placed on it.
  std::vector<std::size_t> held(schedule.shape.node_count(), 0);
  auto add = [&](const std::vector<Placement>& placements) {
    for (const Placement& p : placements) held[schedule.shape.index_of(p.node)] += words_in(p.block, grid);
  };
  add(schedule.initial);
  for (const ScheduleStage& stage : schedule.stages) add(stage.created);
  c.words_held_per_node = held.empty() ? 0 : *std::max_element(held.begin(), held.end());
  return c;
}

std::string format_text(const Schedule& schedule) {
  static const std::array<const char*, 3> roman = {"I", "II", "III"};
  std::ostringstream out;
  out << to_string(schedule.direction) << " schedule: N=" << extents_text(schedule.grid.tensor_extents())
      << " P=" << schedule.p() << " b=" << schedule.grid.describe_blocks() << " alpha=" << schedule.alpha.to_string()
      << " (T = " << schedule.alpha.to_string()[0] << "Q " << schedule.alpha.to_string()[1] << "R "
      << schedule.alpha.to_string()[2] << "S mod " << schedule.p() << ")\n";
  for (const ScheduleStage& stage : schedule.stages) {
    out << "stage " << roman[static_cast<std::size_t>(stage.number - 1)] << ": " << stage.summary << "; rolls";
    if (!stage.steps.empty())
      for (const Roll& roll : stage.steps.front().rolls) out << ' ' << to_string(roll.kind) << ' ' << to_string(roll.direction);
    out << '\n';
    for (std::size_t t = 0; t < stage.steps.size(); ++t) {
      out << "  step " << t << '\n';
      for (const BlockMultiplyAdd& op : stage.steps[t].ops)
        out << "    " << to_string(op.node) << ' ' << to_string(op.accumulator) << " += " << to_string(op.operand)
            << " x" << op.mode << ' ' << to_string(op.coefficient) << '\n';
    }
  }
  return out.str();
}

namespace {

nlohmann::json coord_json(const NodeCoord& n) { return {n.q, n.r, n.s}; }
nlohmann::json block_json(const BlockId& b) {
  return {{"kind", to_string(b.kind)},
          {"index", is_coefficient(b.kind) ? nlohmann::json{b.index[0], b.index[1]}
                                           : nlohmann::json{b.index[0], b.index[1], b.index[2]}}};
}
nlohmann::json placements_json(const std::vector<Placement>& placements) {
  nlohmann::json out = nlohmann::json::array();
  for (const Placement& p : placements) out.push_back({{"node", coord_json(p.node)}, {"block", block_json(p.block)}});
  return out;
}

}  // namespace

nlohmann::json to_json(const Schedule& schedule) {
  nlohmann::json j;
  j["direction"] = to_string(schedule.direction);
  const Extents3 n = schedule.grid.tensor_extents();
  if (n[0] == n[1] && n[1] == n[2]) j["N"] = n[0];
  else j["N"] = n;
  j["P"] = schedule.p();
  if (schedule.grid.uniform_cube()) j["b"] = schedule.grid.axis[0].largest();
  else j["b"] = schedule.grid.describe_blocks();
  j["alpha"] = schedule.alpha.to_string();
  j["initial"] = placements_json(schedule.initial);
  j["stages"] = nlohmann::json::array();
  for (const ScheduleStage& stage : schedule.stages) {
    nlohmann::json s{{"number", stage.number}, {"mode", stage.mode}, {"summary", stage.summary},
                     {"created", placements_json(stage.created)}, {"steps", nlohmann::json::array()}};
    for (const ScheduleStep& step : stage.steps) {
      nlohmann::json st{{"ops", nlohmann::json::array()}, {"rolls", nlohmann::json::array()}};
      for (const BlockMultiplyAdd& op : step.ops)
        st["ops"].push_back({{"node", coord_json(op.node)}, {"accumulator", block_json(op.accumulator)},
                             {"operand", block_json(op.operand)}, {"coefficient", block_json(op.coefficient)},
                             {"mode", op.mode}});
      for (const Roll& roll : step.rolls)
        st["rolls"].push_back({{"kind", to_string(roll.kind)}, {"direction", to_string(roll.direction)}});
      s["steps"].push_back(std::move(st));
    }
    j["stages"].push_back(std::move(s));
  }
  return j;
}

}  // namespace torus
