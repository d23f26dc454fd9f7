#include "models/cycle/fma_pipeline.hpp"

#include <stdexcept>
#include <string>

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

void FmaPipeline::issue_run(std::size_t count, std::size_t cycles, Cycle last) {
  if (count == 0) return;
  if (cycles == 0 || cycles > count || count > cycles * per_cycle_ || last + 1 < cycles)
    throw std::logic_error("fma unit: a run of " + std::to_string(count) + " fma cannot take " + std::to_string(cycles) +
                           " cycles at " + std::to_string(per_cycle_) + " a cycle");
  if (current_cycle_ != never && last + 1 - cycles <= current_cycle_)
    throw std::logic_error("fma unit: a run of fma overlaps earlier issues");
  current_cycle_ = last;
  issued_this_cycle_ = per_cycle_;
  stats_.issued += count;
  stats_.busy_cycles += cycles;
}

}  // namespace torus
