#pragma once
// Chrome trace-event JSON of a finished run (opens in Perfetto or chrome://tracing): one track
// per node, with a compute span (first fma to last result usable) and a send span (first word
// sent to last word sent) for every step label of the Program. Times are in microseconds at
// the run's clock.

#include <string>

#include "models/engine_records.hpp"

namespace torus {

void write_chrome_trace(const std::string& path, const Program& program, const StepRecords& steps, double clock_hz);

}  // namespace torus
