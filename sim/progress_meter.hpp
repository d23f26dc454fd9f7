#pragma once
// A status line for long runs: simulated cycles, the share of the estimated total, elapsed
// time and an estimate of the time left. Quiet for the first seconds (most runs end sooner)
// and then refreshed at most once a second, so it costs nothing the run would notice; the
// caller decides where the line goes (a terminal) and feeds it from a periodic process.

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace torus {

class ProgressMeter {
 public:
  using Clock = std::chrono::steady_clock;
  // `show` receives each new line (without a line break); `estimated_cycles` may be 0 when
  // no estimate exists.
  ProgressMeter(std::uint64_t estimated_cycles, std::function<void(const std::string&)> show,
                Clock::time_point start = Clock::now());

  void update(std::uint64_t cycle, Clock::time_point now = Clock::now());
  bool shown() const { return shown_; }

  static constexpr std::chrono::seconds quiet_for{3};
  static constexpr std::chrono::seconds refresh_every{1};

 private:
  std::string line(std::uint64_t cycle, double elapsed) const;

  std::uint64_t estimated_;
  std::function<void(const std::string&)> show_;
  Clock::time_point start_, last_shown_;
  bool shown_ = false;
};

}  // namespace torus
