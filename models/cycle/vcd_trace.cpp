#include "models/cycle/vcd_trace.hpp"

#include <filesystem>

#include <fmt/format.h>

namespace torus {

VcdTrace::VcdTrace(const std::string& path, const TorusTop& top)
    : path_(path), partial_base_(path.substr(0, path.size() - 4) + ".partial") {
  file_ = sc_core::sc_create_vcd_trace_file(partial_base_.c_str());
  file_->set_time_unit(1, sc_core::SC_NS);
  const TorusShape& shape = top.program().shape;
  for (const Node& node : top.nodes) {
    const NodeCoord c = shape.coord_of(node.index());
    const std::string name = fmt::format("node_{}_{}_{}", c.q, c.r, c.s);
    sc_core::sc_trace(file_, node.trace_busy(), name + ".fma_busy");
    sc_core::sc_trace(file_, node.trace_state(), name + ".cycle_class", 3);
    for (Direction d : all_directions) {
      const LinkChannel& link = top.link(node.index(), d);
      const std::string link_name = fmt::format("{}.link_{}{}", name, sign_of(d) > 0 ? "plus" : "minus", to_string(axis_of(d)));
      sc_core::sc_trace(file_, link.stats().words_sent, link_name + ".words_sent", 32);
      sc_core::sc_trace(file_, link.occupancy(), link_name + ".buffered", 16);
    }
  }
}

VcdTrace::~VcdTrace() {
  sc_core::sc_close_vcd_trace_file(file_);
  std::error_code ignored;
  std::filesystem::rename(partial_base_ + ".vcd", path_, ignored);
}

}  // namespace torus
