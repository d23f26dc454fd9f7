#pragma once
// The built-in micro-schedules, one per file; micro_schedule.cpp maps names to these.

#include <memory>

#include "sim/micro_schedule.hpp"

namespace torus {

std::unique_ptr<MicroSchedule> make_interleaved();
std::unique_ptr<MicroSchedule> make_chained();

}  // namespace torus
