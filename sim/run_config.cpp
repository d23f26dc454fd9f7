#include "sim/run_config.hpp"

#include "sim/algorithm.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "kernels/npy.hpp"
#include "kernels/output_file.hpp"
#include "kernels/text.hpp"

namespace torus {

void RunConfig::declare(ParameterSet& set) {
  set.extents("N", n, 1, 4096, "elements",
              "tensor extents: N (N x N x N) or N1xN2xN3, a transform of length N_a along axis a");
  set.extents("P", p, 1, 4096, "nodes",
              "torus extents: P (P x P x P nodes) or P1xP2xP3; node (Q,R,S) holds one block, N_a/P_a elements along "
              "axis a, the first N_a mod P_a blocks one element larger");
  set.text("transform", transform, "one of dft, dct, dst, dht, wht, identity, user, or three separated by commas",
           "1D transform on every axis, or one per axis as 'axis1,axis2,axis3'",
           [](std::string_view text) { axis_transform_names(text); });
  set.choice("normalisation", normalisation, {"none", "ortho"},
             "scaling of dft, dht and wht: none = forward unscaled and inverse 1/N, ortho = both 1/sqrt(N)");
  set.path("user_matrix", user_matrix, "path of an N x N matrix (.npy, or text rows)",
           "matrix A of y = A x (row = output index) for transform 'user'");
  set.choice("algorithm", algorithm, algorithm_names(),
             "the Program generator that turns the problem and the torus into per-node task lists (sim/algorithms/)");
  set.text("alpha", alpha, "three signs such as +++ or +-+",
           "scheduling vector (aQ, aR, aS): T = (aQ Q + aR R + aS S) mod P",
           [](std::string_view text) { SchedulingVector::parse(text); });
  set.choice("direction", direction, {"forward", "inverse", "both"},
             "forward transform, inverse transform, or both as a round trip (forward then inverse)");
  set.choice("precision", precision, {"float", "double"}, "floating-point precision of data and coefficients");
  set.choice("domain", domain, {"auto", "real", "complex"},
             "element domain; auto = complex when a transform or the input file is complex");
  set.unsigned_integer("seed", seed, "", "seed of the default random input (uniform in [-1, 1))");
  set.path("input", input, "path of an N x N x N .npy file, or empty", "input tensor instead of the random one");
  set.path("output", output, "path of a .npy file, or empty",
           "where to write the final result in canonical order (for 'both', the round trip)");
  set.path("report_json", report_json, "path of a .json file, or empty", "where to write the run report as JSON");
  set.integer("max_memory", max_memory, 0, std::int64_t{1} << 50, "bytes",
              "refuse a run whose estimated memory exceeds this; 0 = the memory the system reports available");
  set.choice("values", values, {"on", "off"},
             "on: the nodes compute the values and every result is checked against the golden reference; off: time "
             "the run only (engines systemc and event): no tensor is allocated, no value computed or checked");
  set.path("chrome_trace", chrome_trace, "path of a .json file, or empty (at most 4096 nodes)",
           "Chrome trace-event file (opens in Perfetto): per node, the compute and roll spans of every step");
  set.path("vcd_trace", vcd_trace, "path of a .vcd file, or empty (at most 64 nodes)",
           "waveform (GTKWave): per node fma-busy and stall cause, per link words sent and buffer occupancy; "
           "steps every cycle (fast_forward is off while tracing)");
}

Extents3 RunConfig::tensor_extents() const {
  return {static_cast<std::size_t>(n[0]), static_cast<std::size_t>(n[1]), static_cast<std::size_t>(n[2])};
}

TorusShape RunConfig::torus_shape() const {
  return {static_cast<int>(p[0]), static_cast<int>(p[1]), static_cast<int>(p[2])};
}

std::size_t RunConfig::node_count() const { return torus_shape().node_count(); }

BlockGrid RunConfig::block_grid() const {
  return BlockGrid::make(tensor_extents(), {static_cast<std::size_t>(p[0]), static_cast<std::size_t>(p[1]), static_cast<std::size_t>(p[2])});
}

TransformOptions RunConfig::transform_options() const {
  TransformOptions options;
  options.normalisation = parse_normalisation(normalisation);
  options.user_matrix_path = user_matrix;
  options.size = n[0] == n[1] && n[1] == n[2] ? static_cast<std::size_t>(n[0]) : 0;
  options.unit_roundoff = parse_precision(precision) == Precision::Single ? unit_roundoff<float>() : unit_roundoff<double>();
  return options;
}

namespace {

// Refuses, before any work, an output path that cannot be written (a missing or read-only
// folder, a device, a directory): found out after a long simulation, it would waste the run.
void check_writable(std::string_view key, const std::string& path) { check_output_path(key, path); }

// Reads only the header, so that the size is checked before the data is read (and before the
// memory check, which counts the data): returns whether the file holds complex values.
bool check_input_header(const RunConfig& config) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(config.input, error))
    throw std::invalid_argument("input: '" + config.input + "' is not a readable file");
  const NpyHeader header = with_parameter("input", [&] { return read_npy_header(config.input); });
  const Extents3 n = config.tensor_extents();
  if (header.shape != std::vector<std::size_t>{n[0], n[1], n[2]})
    throw std::invalid_argument("input: '" + config.input + "' is not " + std::to_string(n[0]) + " x " + std::to_string(n[1]) +
                                " x " + std::to_string(n[2]) + " (N = " + extents_text(config.n) + ") but " +
                                header.shape_text());
  return header.complex_valued();
}

}  // namespace

ScalarType validate(const RunConfig& config) {
  config.block_grid();  // at least one element per node along every axis
  const AxisTransforms transforms = parse_axis_transforms(config.transform, config.transform_options());
  for (std::size_t a = 0; a < 3; ++a) transforms.axis[a]->check_size(static_cast<std::size_t>(config.n[a]));
  bool complex = transforms.complex_valued() || config.domain == "complex";
  std::error_code error;  // the non-throwing queries: an unreadable name is a bad value, not a failure
  if (!config.user_matrix.empty() && !std::filesystem::is_regular_file(config.user_matrix, error))
    throw std::invalid_argument("user_matrix: '" + config.user_matrix + "' is not a regular file");
  if (!config.input.empty()) complex = check_input_header(config) || complex;
  if (config.domain == "real" && complex)
    throw std::invalid_argument("domain: 'real' is not allowed with transform '" + config.transform +
                                "' or this input; the data must be complex (domain: auto or complex)");
  if (!config.computes_values())
    for (const auto& [key, value] : {std::pair{"input", config.input}, std::pair{"output", config.output}})
      if (!value.empty())
        throw std::invalid_argument(std::string(key) + ": '" + value + "' is not allowed with values: off, which computes no "
                                    "values; allowed: values on, or no " + key);
  for (const auto& [key, path] : {std::pair{"output", config.output}, std::pair{"report_json", config.report_json},
                                   std::pair{"chrome_trace", config.chrome_trace}, std::pair{"vcd_trace", config.vcd_trace}})
    check_writable(key, path);
  const std::size_t nodes = config.node_count();
  if (!config.chrome_trace.empty() && nodes > 4096)
    throw std::invalid_argument("chrome_trace: the torus has " + std::to_string(nodes) +
                                " nodes; traces are written for at most 4096 (P <= 16)");
  if (!config.vcd_trace.empty() && nodes > 64)
    throw std::invalid_argument("vcd_trace: the torus has " + std::to_string(nodes) +
                                " nodes; waveforms are written for at most 64 (P <= 4)");
  if (!config.vcd_trace.empty() && !config.vcd_trace.ends_with(".vcd"))
    throw std::invalid_argument("vcd_trace: '" + config.vcd_trace + "' must end in .vcd");
  return {parse_precision(config.precision), complex ? Domain::Complex : Domain::Real};
}

}  // namespace torus
