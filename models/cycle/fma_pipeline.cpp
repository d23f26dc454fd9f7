#include "models/cycle/fma_pipeline.hpp"

#include <stdexcept>

namespace torus {

FmaPipeline::FmaPipeline(Cycle latency, unsigned per_cycle) : latency_(latency), per_cycle_(per_cycle) {
  if (latency < 1) throw std::invalid_argument("fma_latency must be at least 1 cycle");
  if (per_cycle < 1) throw std::invalid_argument("fma_per_cycle must be at least 1");
}

Cycle FmaPipeline::issue(Cycle cycle) {
  if (!has_slot(cycle)) throw std::logic_error("fma unit: more fma issued in one cycle than the unit accepts");
  if (cycle != current_cycle_) {
    current_cycle_ = cycle;
    issued_this_cycle_ = 0;
    ++stats_.busy_cycles;
  }
  ++issued_this_cycle_;
  ++stats_.issued;
  return cycle + latency_;
}

void FmaPipeline::issue_run(std::size_t count, Cycle last) {
  if (count == 0) return;
  if (per_cycle_ != 1 || (current_cycle_ != never && last < current_cycle_ + count))
    throw std::logic_error("fma unit: a run of fma overlaps earlier issues");
  current_cycle_ = last;
  issued_this_cycle_ = 1;
  stats_.issued += count;
  stats_.busy_cycles += count;
}

}  // namespace torus
