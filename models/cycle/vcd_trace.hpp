#pragma once
// A VCD waveform of a small torus (open it in GTKWave): per node, fma busy and the class of
// each cycle; per link, the words sent so far and the words waiting in its receive buffer.
//
// The waveform is sampled once a cycle, on the clock's falling edge, when the rising edge's
// work has settled, and stamped with the cycle number (time unit: one clock period). SystemC's
// own VCD writer also stopped at the falling edge, half a unit in, and warned (W713) every
// cycle that it could not write that time; it also ignored write errors. This writer goes
// through AtomicFile: the file appears under its name only once complete, and a full disk is
// an error of the run.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/output_file.hpp"
#include "models/cycle/torus_top.hpp"

namespace torus {

class VcdTrace {
 public:
  // Throws std::runtime_error when the file cannot be created.
  VcdTrace(const std::string& path, const TorusTop& top);
  VcdTrace(const VcdTrace&) = delete;
  VcdTrace& operator=(const VcdTrace&) = delete;

  // After the simulation: records the last cycle and puts the file in place. Throws
  // std::runtime_error naming the file when any write failed. Without it, nothing is left.
  void finish();

 private:
  struct Probe {
    int width;
    std::function<std::uint64_t()> read;
    std::string id;
    std::uint64_t last;
  };
  void add(std::string name, int width, std::function<std::uint64_t()> read);
  void sample();
  void record(std::uint64_t cycle);
  void write_value(const Probe& probe, std::uint64_t value);
  void flush();

  AtomicFile file_;
  const TorusTop& top_;
  std::vector<Probe> probes_;
  std::string declarations_;  // the header, written with the first sample
  std::string pending_;       // written out at flush_bytes and at the end
  bool started_ = false;
  std::uint64_t last_stamp_ = 0;
  std::string error_;  // the first write failure; sampling stops there
};

}  // namespace torus
