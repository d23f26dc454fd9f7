#include "sim/memory_estimate.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/program.hpp"

namespace torus {
namespace {

std::string human(double bytes) {
  if (bytes >= 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024.0));
}

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
double available_memory() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024.0;
  return 0;
}

}  // namespace

std::string MemoryEstimate::describe() const {
  return fmt::format("{} (nodes {}, schedules {}, tensors {})", human(total()), human(nodes_bytes), human(schedule_bytes),
                     human(tensors_bytes));
}

MemoryEstimate estimate_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data) {
  // In double: N and P may be up to 4096, whose powers overflow any integer check.
  const double n = static_cast<double>(run.n), p = static_cast<double>(run.p);
  const double b = n / p, nodes = p * p * p;
  const double transforms = run.direction == "both" ? 2.0 : 1.0;
  const double value_bytes = complex_data ? 16.0 : 8.0;
  MemoryEstimate e;
  const double steps = transforms * 3 * p;  // per node: 3P steps per transform
  if (machine.engine == "systemc") {
    const double words = 4 * b * b * b + 3 * b * b;  // one block of every kind
    const double per_word = 24 + 8 * (complex_data ? 2 : 1) + 2 + value_bytes;
    // Node module, links and ports; per step: task counters, the compute's flow, the step record.
    e.nodes_bytes = nodes * (40.0 * 1024 + 2 * words * per_word + steps * (5 * 8 + 48 + 40));
  } else {
    e.nodes_bytes = nodes * (1024.0 + 2 * (4 * b * b * b + 3 * b * b) * value_bytes);
  }
  // The orbital schedule (3P steps of P^3 block multiply-adds) and the Program: per node and
  // step a compute, two sends and two receives, and per send a message with its route.
  const double program = nodes * steps * (5 * static_cast<double>(sizeof(Task)) + 2 * (sizeof(Message) + 32.0));
  e.schedule_bytes = steps * nodes * 100.0 + program;
  e.tensors_bytes = 12 * n * n * n * value_bytes;
  return e;
}

void check_memory(const RunConfig& run, const MachineConfig& machine, bool complex_data) {
  const MemoryEstimate e = estimate_memory(run, machine, complex_data);
  const bool set = run.max_memory > 0;
  const double limit = set ? static_cast<double>(run.max_memory) : available_memory();
  if (limit > 0 && e.total() > limit)
    throw std::invalid_argument(fmt::format("memory: this run needs about {} but {} allows {}; allowed: a smaller N or P, "
                                            "or a larger max_memory",
                                            e.describe(), set ? "max_memory" : "the available memory", human(limit)));
}

}  // namespace torus
