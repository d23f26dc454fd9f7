#include "sim/phase_times.hpp"

#include <stdexcept>
#include <string>

namespace torus {

std::string_view name_of(Phase phase) { return phase_names.at(static_cast<std::size_t>(phase)); }

void PhaseTimes::add(Phase phase, Clock::duration time) {
  std::optional<Clock::duration>& spent = spent_[index(phase)];
  spent = spent.value_or(Clock::duration::zero()) + time;
}

double PhaseTimes::seconds(Phase phase) const {
  return std::chrono::duration<double>(spent_[index(phase)].value_or(Clock::duration::zero())).count();
}

double PhaseTimes::total_seconds() const {
  Clock::duration total = Clock::duration::zero();
  for (const auto& spent : spent_) total += spent.value_or(Clock::duration::zero());
  return std::chrono::duration<double>(total).count();
}

std::vector<std::pair<std::string_view, double>> PhaseTimes::ran_phases() const {
  std::vector<std::pair<std::string_view, double>> out;
  for (std::size_t i = 0; i < phase_count; ++i)
    if (spent_[i]) out.emplace_back(phase_names[i], seconds(static_cast<Phase>(i)));
  return out;
}

PhaseTimer::PhaseTimer(PhaseTimes& times, Phase phase) : times_(&times), phase_(phase) {
  if (times.running_)
    throw std::logic_error("phase '" + std::string(name_of(phase)) + "' started while phase '" +
                           std::string(name_of(*times.running_)) + "' runs: phases may not overlap");
  times.running_ = phase;
  start_ = PhaseTimes::Clock::now();
}

PhaseTimes::Clock::duration PhaseTimer::stop() {
  if (!times_) return PhaseTimes::Clock::duration::zero();
  const PhaseTimes::Clock::duration took = PhaseTimes::Clock::now() - start_;
  times_->add(phase_, took);
  times_->running_.reset();
  times_ = nullptr;
  return took;
}

}  // namespace torus
