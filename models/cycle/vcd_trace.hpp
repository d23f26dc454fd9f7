#pragma once
// A VCD waveform of a small torus (open it in GTKWave): per node, fma busy and the class of
// each cycle; per link, the words sent so far and the words waiting in its receive buffer.
// The file appears under its name only once complete (written as NAME.partial.vcd, renamed
// when the trace closes).

#include <string>

#include "models/cycle/torus_top.hpp"

namespace torus {

class VcdTrace {
 public:
  VcdTrace(const std::string& path, const TorusTop& top);
  ~VcdTrace();
  VcdTrace(const VcdTrace&) = delete;
  VcdTrace& operator=(const VcdTrace&) = delete;

 private:
  std::string path_;
  std::string partial_base_;
  sc_core::sc_trace_file* file_ = nullptr;
};

}  // namespace torus
