#pragma once
// The points of a sweep, planned once: the scenario is read one time, each swept value is
// checked and spelt the way its parameter reads it back one time, and a point's parameters are
// put together only when asked for. Planning a million combinations takes seconds.
//
// Points are the combinations of the sweep lists, the first list varying slowest, less those
// whose P does not divide N (unless the scenario says `sweep_blocks: any`); they are numbered
// 0, 1, ... in that order.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace torus {

using Settings = std::vector<std::pair<std::string, std::string>>;

class SweepPlan {
 public:
  // Reads `scenario` and applies `overrides` (-p, applied to every point, after the swept
  // values). `warn` hears of overrides that hide a swept parameter. Throws
  // std::invalid_argument for a bad scenario or value, or a sweep with nothing left to run.
  SweepPlan(const std::string& scenario, const Settings& overrides, const std::function<void(const std::string&)>& warn);

  std::size_t size() const { return kept_.size(); }
  std::size_t dropped() const { return combinations_ - kept_.size(); }

  // What point `index` sets on top of the scenario: its swept values, then the overrides.
  Settings overrides(std::size_t index) const;
  // Every parameter's value at point `index`, in declaration order.
  Settings parameters(std::size_t index) const;
  // Identifies the point across runs: every parameter's value.
  std::string fingerprint(std::size_t index) const;

 private:
  struct Axis {
    std::size_t parameter;            // index into base_
    std::vector<std::string> values;  // as the parameter reads them back
    bool overridden;                  // -p sets it for every point
  };
  void keep_whole_blocks(bool keep_uneven);
  std::vector<std::size_t> digits(std::size_t index) const;

  Settings base_;  // every parameter after the scenario and the overrides
  Settings given_;  // the overrides, as given
  std::vector<Axis> axes_;
  std::size_t combinations_ = 1;
  std::vector<std::uint32_t> kept_;  // combination number of each point
};

}  // namespace torus
