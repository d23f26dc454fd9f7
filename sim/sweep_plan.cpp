#include "sim/sweep_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/parameter_bundle.hpp"
#include "sim/scenario.hpp"

namespace torus {
namespace {

std::size_t setting_index(const Settings& values, const std::string& key) {
  const auto at = std::find_if(values.begin(), values.end(), [&](const auto& kv) { return kv.first == key; });
  if (at == values.end()) throw std::logic_error("sweep: no parameter '" + key + "'");
  return static_cast<std::size_t>(at - values.begin());
}

// How the parameter reads each value back ("08" is 8): the value a point's run will report.
std::vector<std::string> as_read_back(const SweepAxis& axis) {
  ParameterBundle scratch;
  const ParameterSpec& spec = *scratch.set.find(axis.key);
  std::vector<std::string> values;
  for (const std::string& value : axis.values) {
    spec.assign(value);
    values.push_back(spec.current());
  }
  return values;
}

}  // namespace

SweepPlan::SweepPlan(const std::string& scenario_path, const Settings& overrides,
                     const std::function<void(const std::string&)>& warn)
    : given_(overrides) {
  ParameterBundle bundle;
  const Scenario scenario = load_scenario(scenario_path, bundle.set);
  combinations_ = sweep_size(scenario);
  for (const auto& [key, value] : overrides) {
    try {
      bundle.set.set(key, value);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("-p: ") + e.what());
    }
  }
  for (const auto& spec : bundle.set.specs()) base_.emplace_back(spec.key, spec.current());
  for (const SweepAxis& axis : scenario.sweep) {
    const bool overridden = std::any_of(overrides.begin(), overrides.end(), [&](const auto& kv) { return kv.first == axis.key; });
    if (overridden)
      warn("-p " + axis.key + "=" + base_[setting_index(base_, axis.key)].second + " overrides the swept parameter " + axis.key +
           ": its " + std::to_string(axis.values.size()) + " values in the scenario are not used");
    axes_.push_back({setting_index(base_, axis.key), as_read_back(axis), overridden});
  }
  keep_whole_blocks(scenario.sweep_uneven);
  if (kept_.empty())
    throw std::invalid_argument(scenario_path + ": sweep: all " + std::to_string(combinations_) +
                                " combinations are dropped (P does not divide N in any of them); nothing to run");
}

// A product of N and P lists holds pairs with no whole block size; a sweep keeps to even blocks
// (a single run with uneven blocks is fine: the first N mod P blocks are one element larger).
// The torus is what the run will use: P, or the balanced grid of `nodes`.
void SweepPlan::keep_whole_blocks(bool keep_uneven) {
  std::vector<std::size_t> digit(axes_.size(), 0);
  const auto value = [&](const char* key) {
    const std::size_t parameter = setting_index(base_, key);
    for (std::size_t a = 0; a < axes_.size(); ++a)
      if (axes_[a].parameter == parameter && !axes_[a].overridden) return axes_[a].values[digit[a]];
    return base_[parameter].second;
  };
  for (std::size_t combination = 0; combination < combinations_; ++combination) {
    RunConfig run;
    ParameterSet scratch;
    run.declare(scratch);
    for (const char* key : {"N", "P", "process_grid", "nodes"}) scratch.set(key, value(key));
    const Extents3 n = run.tensor_extents();
    const std::array<std::int64_t, 3> p = run.torus_extents();
    bool whole = true;
    for (std::size_t a = 0; a < 3; ++a) whole = whole && n[a] % static_cast<std::size_t>(p[a]) == 0;
    if (whole || keep_uneven) kept_.push_back(static_cast<std::uint32_t>(combination));
    for (std::size_t a = axes_.size(); a-- > 0;) {  // the last axis varies fastest
      if (++digit[a] < axes_[a].values.size()) break;
      digit[a] = 0;
    }
  }
}

std::vector<std::size_t> SweepPlan::digits(std::size_t index) const {
  std::size_t rest = kept_.at(index);
  std::vector<std::size_t> digit(axes_.size(), 0);
  for (std::size_t a = axes_.size(); a-- > 0;) {
    digit[a] = rest % axes_[a].values.size();
    rest /= axes_[a].values.size();
  }
  return digit;
}

Settings SweepPlan::overrides(std::size_t index) const {
  const std::vector<std::size_t> digit = digits(index);
  Settings out;
  // An overridden axis is left out: its -p value follows, and a point's command names each key once.
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (!axes_[a].overridden) out.emplace_back(base_[axes_[a].parameter].first, axes_[a].values[digit[a]]);
  out.insert(out.end(), given_.begin(), given_.end());
  return out;
}

Settings SweepPlan::parameters(std::size_t index) const {
  const std::vector<std::size_t> digit = digits(index);
  Settings values = base_;
  for (std::size_t a = 0; a < axes_.size(); ++a)
    if (!axes_[a].overridden) values[axes_[a].parameter].second = axes_[a].values[digit[a]];
  return values;
}

std::string SweepPlan::fingerprint(std::size_t index) const {
  std::string text;
  for (const auto& [key, value] : parameters(index)) text.append(key).append("=").append(value).append(";");
  return text;
}

}  // namespace torus
