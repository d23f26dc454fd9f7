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
  set.integer("N", n, 1, 4096, "elements", "tensor edge: the transform is N x N x N");
  set.integer("P", p, 1, 4096, "nodes", "torus edge: P x P x P nodes, each holding one b x b x b block (b = N/P)");
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

TransformOptions RunConfig::transform_options() const {
  TransformOptions options;
  options.normalisation = parse_normalisation(normalisation);
  options.user_matrix_path = user_matrix;
  options.size = static_cast<std::size_t>(n);
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
  const auto n = static_cast<std::size_t>(config.n);
  if (header.shape != std::vector<std::size_t>{n, n, n})
    throw std::invalid_argument("input: '" + config.input + "' is not " + std::to_string(n) + " x " + std::to_string(n) +
                                " x " + std::to_string(n) + " (N = " + std::to_string(n) + ") but " +
                                header.shape_text());
  return header.complex_valued();
}

}  // namespace

ScalarType validate(const RunConfig& config) {
  if (config.n % config.p != 0)
    throw std::invalid_argument("P: " + std::to_string(config.p) + " does not divide N = " + std::to_string(config.n) +
                                "; allowed: a divisor of N, so that b = N/P is whole");
  const AxisTransforms transforms = parse_axis_transforms(config.transform, config.transform_options());
  for (const auto& t : transforms.axis) t->check_size(static_cast<std::size_t>(config.n));
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
  const std::int64_t nodes = config.p * config.p * config.p;
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
