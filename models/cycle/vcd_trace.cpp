#include "models/cycle/vcd_trace.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace torus {
namespace {

// Identifiers are short strings over VCD's printable range, '!' to '~'.
std::string identifier(std::size_t index) {
  constexpr std::size_t radix = '~' - '!' + 1;
  std::string id;
  do {
    id.push_back(static_cast<char>('!' + index % radix));
    index /= radix;
  } while (index != 0);
  return id;
}

// Written out in pieces this large: few system calls, little memory.
constexpr std::size_t flush_bytes = std::size_t{1} << 20;

}  // namespace

VcdTrace::VcdTrace(const std::string& path, const TorusTop& top) : file_(path), top_(top) {
  declarations_ = "$version\n torus-sim\n$end\n$timescale\n 1 ns\n$end\n"
                  "$comment\n one time unit is one clock cycle\n$end\n$scope module torus $end\n";
  const TorusShape& shape = top.program().shape;
  for (const Node& node : top.nodes) {
    const NodeCoord c = shape.coord_of(node.index());
    declarations_ += fmt::format("$scope module node_{}_{}_{} $end\n", c.q, c.r, c.s);
    add("fma_busy", 1, [&node] { return node.trace_busy() ? 1u : 0u; });
    add("cycle_class", 3, [&node] { return node.trace_state(); });
    for (Direction d : all_directions) {
      const LinkChannel& link = top.link(node.index(), d);
      declarations_ += fmt::format("$scope module link_{}{} $end\n", sign_of(d) > 0 ? "plus" : "minus", to_string(axis_of(d)));
      add("words_sent", 32, [&link] { return link.stats().words_sent; });
      add("buffered", 16, [&link] { return link.occupancy(); });
      declarations_ += "$upscope $end\n";
    }
    declarations_ += "$upscope $end\n";
  }
  declarations_ += "$upscope $end\n$enddefinitions $end\n";
  sc_core::sc_spawn_options options;
  options.spawn_method();
  options.dont_initialize();
  if (!top.clock) throw std::logic_error("vcd_trace: the torus has no clock (a waveform needs every node to step every cycle)");
  options.set_sensitivity(&top.clock->negedge_event());
  sc_core::sc_spawn([this] { sample(); }, "vcd_trace", &options);
}

void VcdTrace::add(std::string name, int width, std::function<std::uint64_t()> read) {
  Probe probe{width, std::move(read), identifier(probes_.size()), 0};
  declarations_ += fmt::format("$var wire {} {} {} $end\n", width, probe.id, name);
  probes_.push_back(std::move(probe));
}

// VCD writes a bit as "1id" and a vector in binary without leading zeros, "b101 id"; a value
// too wide for its vector is unknown ("x").
void VcdTrace::write_value(const Probe& probe, std::uint64_t value) {
  if (probe.width == 1) {
    pending_ += value != 0 ? '1' : '0';
  } else if (probe.width < 64 && value >> probe.width != 0) {
    pending_ += 'b';
    pending_.append(static_cast<std::size_t>(probe.width), 'x');
    pending_ += ' ';
  } else {
    pending_ += fmt::format("b{:b} ", value);
  }
  pending_ += probe.id;
  pending_ += '\n';
}

// The values after the rising edge of `cycle`: everything at its first sample, then changes.
void VcdTrace::record(std::uint64_t cycle) {
  if (!started_) {
    pending_ += declarations_ + "#0\n$dumpvars\n";
    for (Probe& p : probes_) write_value(p, p.last = p.read());
    pending_ += "$end\n";
    started_ = true;
    last_stamp_ = 0;
    return;
  }
  bool stamped = false;
  for (Probe& p : probes_) {
    const std::uint64_t value = p.read();
    if (value == p.last) continue;
    if (!stamped) pending_ += fmt::format("#{}\n", cycle);
    stamped = true;
    write_value(p, p.last = value);
  }
  if (stamped) last_stamp_ = cycle;
}

void VcdTrace::sample() {
  if (!error_.empty()) return;
  record(sc_core::sc_time_stamp().value() / top_.period_ticks());
  if (pending_.size() >= flush_bytes) flush();
}

void VcdTrace::flush() {
  try {
    file_.write(pending_);
  } catch (const std::runtime_error& e) {
    // No exception may leave a SystemC process: stop the run, report it in finish().
    error_ = e.what();
    sc_core::sc_stop();
  }
  pending_.clear();
}

void VcdTrace::finish() {
  if (error_.empty()) {
    const std::uint64_t end = sc_core::sc_time_stamp().value() / top_.period_ticks();
    record(end);
    if (last_stamp_ != end) pending_ += fmt::format("#{}\n", end);  // where the waveform ends
    flush();
  }
  if (!error_.empty()) throw std::runtime_error("vcd_trace: " + error_);
  file_.commit();
}

}  // namespace torus
