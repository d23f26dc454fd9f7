#include "sim/progress_meter.hpp"

#include <fmt/format.h>

namespace torus {
namespace {

std::string duration_text(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace

ProgressMeter::ProgressMeter(std::uint64_t estimated_cycles, std::function<void(const std::string&)> show,
                             Clock::time_point start)
    : estimated_(estimated_cycles), show_(std::move(show)), start_(start) {}

void ProgressMeter::update(std::uint64_t cycle, Clock::time_point now) {
  if (now - start_ < quiet_for || (shown_ && now - last_shown_ < refresh_every)) return;
  show_(line(cycle, std::chrono::duration<double>(now - start_).count()));
  shown_ = true;
  last_shown_ = now;
}

std::string ProgressMeter::line(std::uint64_t cycle, double elapsed) const {
  std::string text = fmt::format("simulated {} cycles", cycle);
  if (estimated_ == 0) return text + fmt::format(", {} elapsed", duration_text(elapsed));
  if (cycle >= estimated_)
    return text + fmt::format(", past the estimated {} (analytic model), {} elapsed", estimated_, duration_text(elapsed));
  const double share = static_cast<double>(cycle) / static_cast<double>(estimated_);
  text += fmt::format(" of about {} ({:.1f}%), {} elapsed", estimated_, 100 * share, duration_text(elapsed));
  if (cycle > 0) text += ", ETA " + duration_text(elapsed * (1 - share) / share);
  return text;
}

}  // namespace torus
