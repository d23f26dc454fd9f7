#include "sim/run_config.hpp"

#include "sim/algorithm.hpp"
#include "sim/matmul.hpp"

#include <filesystem>
#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "kernels/npy.hpp"
#include "kernels/output_file.hpp"
#include "kernels/text.hpp"

namespace torus {

void RunConfig::declare(ParameterSet& set) {
  set.choice("task", task, {"transform", "matmul"},
             "transform: a 3D separable transform of an N1 x N2 x N3 tensor on a P1 x P2 x P3 torus; matmul: the matrix "
             "product C = A B (m, k, n, array, input_a, input_b) on an Nr x Nc plane of the torus");
  set.extents("N", n, 1, 65536, "elements",
              "tensor extents: N (N x N x N) or N1xN2xN3, a transform of length N_a along axis a; at most 4096^3 "
              "elements in all");
  set.extents("P", p, 1, 4096, "nodes",
              "torus extents: P (P x P x P nodes) or P1xP2xP3; node (Q,R,S) holds one block, N_a/P_a elements along "
              "axis a, the first N_a mod P_a blocks one element larger");
  set.text("boundary", boundary, "torus, mesh, one per axis such as torus,mesh,mesh, or torus_from:K",
           "links of each axis Q, R, S: torus (with the wrap-around link) or mesh (without it: a roll across the edge "
           "goes the long way, P_a - 1 hops through the routers); torus_from:K: a torus of K nodes or more, a mesh "
           "below (Blue Gene/P partitions: torus_from:512)",
           [](std::string_view text) { parse_boundary(text); });
  set.choice("process_grid", process_grid, {"explicit", "balanced"},
             "explicit: P gives the torus; balanced: P1xP2xP3 from `nodes` as MPI_Dims_create does (non-increasing "
             "extents, as equal as possible)");
  set.integer("nodes", nodes, 0, std::int64_t{1} << 36, "nodes",
              "the torus's node count for process_grid: balanced; 0 = not given (with explicit, P1 P2 P3 if given)");
  set.text("transform", transform, "one of dft, dct, dst, dht, wht, identity, user, or three separated by commas",
           "1D transform on every axis, or one per axis as 'axis1,axis2,axis3'",
           [](std::string_view text) { axis_transform_names(text); });
  set.choice("normalisation", normalisation, {"none", "ortho"},
             "scaling of dft, dht and wht: none = forward unscaled and inverse 1/N, ortho = both 1/sqrt(N)");
  set.path("user_matrix", user_matrix, "path of an N x N matrix (.npy, or text rows)",
           "matrix A of y = A x (row = output index) for transform 'user'");
  std::vector<std::string> algorithms = algorithm_names();
  for (const std::string& name : matmul_algorithm_names()) algorithms.push_back(name);
  set.choice("algorithm", algorithm, algorithms,
             "the Program generator that turns the problem and the torus into per-node task lists (sim/algorithms/); "
             "task transform: " + join(algorithm_names(), ", ") + "; task matmul: " + join(matmul_algorithm_names(), ", "));
  set.choice("local_kernel", local_kernel, {"auto", "fft", "dense"},
             "how slab_fft, pencil_fft, ring_transpose_fft and ring_block_fft transform a node's lines: fft = radix-2 FFT tasks "
             "(fma_per_butterfly fma per butterfly; a DFT axis of power-of-two length cut into equal pieces), dense = "
             "products with the coefficient matrix, auto = fft on every axis where it applies and dense elsewhere; the "
             "orbital algorithms always compute dense block products");
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
  set.choice("huge_pages", huge_pages, {"auto", "on", "off"},
             "back the heap with 2 MiB pages (transparent huge pages, where the kernel grants them): fewer page-table "
             "walks for the engine's scattered reads; auto = for a run of engine systemc estimated at 256 MiB or more; "
             "task transform only; changes where memory comes from, never a figure of the report but the host's");
  set.choice("values", values, {"on", "off"},
             "on: the nodes compute the values and every result is checked against the golden reference; off: time "
             "the run only (engines systemc and event): no tensor is allocated, no value computed or checked");
  matmul.declare(set);
  set.path("chrome_trace", chrome_trace, "path of a .json file, or empty (at most 4096 nodes)",
           "Chrome trace-event file (opens in Perfetto): per node, the compute and roll spans of every step");
  set.path("vcd_trace", vcd_trace, "path of a .vcd file, or empty (at most 64 nodes)",
           "waveform (GTKWave): per node fma-busy and stall cause, per link words sent and buffer occupancy; "
           "steps every cycle (fast_forward is off while tracing)");
}

Extents3 RunConfig::tensor_extents() const {
  return {static_cast<std::size_t>(n[0]), static_cast<std::size_t>(n[1]), static_cast<std::size_t>(n[2])};
}

std::array<std::int64_t, 3> balanced_grid(std::int64_t nodes) {
  std::vector<std::int64_t> divisors;
  for (std::int64_t d = 1; d * d <= nodes; ++d)
    if (nodes % d == 0) {
      divisors.push_back(d);
      if (d * d != nodes) divisors.push_back(nodes / d);
    }
  std::sort(divisors.begin(), divisors.end());
  for (const std::int64_t d1 : divisors) {  // the smallest largest extent first
    if (d1 * d1 * d1 < nodes) continue;
    const std::int64_t rest = nodes / d1;
    for (const std::int64_t d2 : divisors) {  // then the smallest middle one
      if (d2 > d1) break;
      if (d2 * d2 >= rest && rest % d2 == 0) return {d1, d2, rest / d2};
    }
  }
  return {nodes, 1, 1};  // not reached for nodes >= 1
}

std::array<std::int64_t, 3> RunConfig::torus_extents() const {
  return process_grid == "balanced" && nodes > 0 ? balanced_grid(nodes) : p;
}

TorusShape RunConfig::torus_shape() const {
  const std::array<std::int64_t, 3> e = torus_extents();
  const auto node_total = static_cast<std::size_t>(e[0] * e[1] * e[2]);
  return {static_cast<int>(e[0]), static_cast<int>(e[1]), static_cast<int>(e[2]), parse_boundary(boundary, node_total)};
}

std::size_t RunConfig::node_count() const { return torus_shape().node_count(); }

BlockGrid RunConfig::block_grid() const {
  const std::vector<std::string> transforms = algorithm_names();
  if (std::find(transforms.begin(), transforms.end(), algorithm) != transforms.end() && !make_algorithm(algorithm)->blocks_per_node())
    return BlockGrid::make(tensor_extents(), {1, 1, 1});  // the algorithm cuts the tensor its own way
  const std::array<std::int64_t, 3> e = torus_extents();
  return BlockGrid::make(tensor_extents(), {static_cast<std::size_t>(e[0]), static_cast<std::size_t>(e[1]), static_cast<std::size_t>(e[2])});
}

TransformOptions RunConfig::transform_options() const {
  TransformOptions options;
  options.normalisation = parse_normalisation(normalisation);
  options.user_matrix_path = user_matrix;
  options.size = n[0] == n[1] && n[1] == n[2] ? static_cast<std::size_t>(n[0]) : 0;
  for (std::size_t a = 0; a < 3; ++a) options.axis_sizes[a] = static_cast<std::size_t>(n[a]);
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

// nodes belongs to process_grid: balanced, and the grid it gives must fit P's range.
void check_process_grid(const RunConfig& config) {
  if (config.process_grid == "balanced") {
    if (config.nodes < 1)
      throw std::invalid_argument("nodes: 0 is not allowed with process_grid: balanced; allowed: the torus's node count, 1 "
                                  "or more");
    const std::array<std::int64_t, 3> e = balanced_grid(config.nodes);
    if (e[0] > 4096)
      throw std::invalid_argument("nodes: " + std::to_string(config.nodes) + " gives a balanced grid of " + extents_text(e) +
                                  "; allowed: a node count whose balanced grid has extents of at most 4096");
    return;
  }
  const std::int64_t given = config.p[0] * config.p[1] * config.p[2];
  if (config.nodes != 0 && config.nodes != given)
    throw std::invalid_argument("nodes: " + std::to_string(config.nodes) + " is not allowed with P = " + extents_text(config.p) +
                                " (" + std::to_string(given) + " nodes) and process_grid: explicit; allowed: 0, " +
                                std::to_string(given) + ", or process_grid: balanced to derive P from nodes");
}

}  // namespace

void check_files(const RunConfig& config, const std::vector<std::pair<const char*, std::string>>& inputs) {
  if (!config.computes_values()) {
    std::vector<std::pair<const char*, std::string>> files = inputs;
    files.emplace_back("output", config.output);
    for (const auto& [key, value] : files)
      if (!value.empty())
        throw std::invalid_argument(std::string(key) + ": '" + value + "' is not allowed with values: off, which computes no "
                                    "values; allowed: values on, or no " + key);
  }
  const std::vector<NamedPath> written = {{"output", config.output}, {"report_json", config.report_json},
                                          {"chrome_trace", config.chrome_trace}, {"vcd_trace", config.vcd_trace}};
  for (const NamedPath& out : written) check_writable(out.key, out.path);
  std::vector<NamedPath> read;
  for (const auto& [key, path] : inputs) read.push_back({key, path});
  read.push_back({"user_matrix", config.user_matrix});
  for (const std::string& file : config.scenario_files) read.push_back({"scenario", file});
  check_distinct_files(written, read);
}

ScalarType validate(const RunConfig& config) {
  if (config.is_matmul()) return validate_matmul(config);
  if (config.local_kernel == "fft" && config.algorithm.starts_with("orbital"))
    throw std::invalid_argument("local_kernel: 'fft' is not allowed with algorithm " + config.algorithm +
                                "; allowed: auto or dense (an orbital node's local work is a block of a dense product; the "
                                "transpose algorithms slab_fft, pencil_fft and ring_transpose_fft take fft)");
  const std::vector<std::string> transforms_algorithms = algorithm_names();
  if (std::find(transforms_algorithms.begin(), transforms_algorithms.end(), config.algorithm) == transforms_algorithms.end())
    throw std::invalid_argument("algorithm: '" + config.algorithm + "' is not allowed with task: transform; allowed: " +
                                join(transforms_algorithms, ", ") + " (or task: matmul)");
  // Files of the other task would be ignored, a missing one unnoticed.
  for (const auto& [key, path] : {std::pair{"input_a", config.matmul.input_a}, std::pair{"input_b", config.matmul.input_b}})
    if (!path.empty())
      throw std::invalid_argument(std::string(key) + ": '" + path + "' is not allowed with task: transform; allowed: task: matmul, "
                                  "or no " + key + " (a transform's input is input)");
  check_process_grid(config);
  // Counts such as N1 N2 N3 (N1 + N2 + N3) multiply-adds stay well inside 64 bits.
  constexpr std::int64_t most_elements = std::int64_t{1} << 36;
  if (config.n[0] * config.n[1] * config.n[2] > most_elements)
    throw std::invalid_argument("N: '" + extents_text(config.n) + "' has " + std::to_string(config.n[0] * config.n[1] * config.n[2]) +
                                " elements; allowed: at most 4096^3 = " + std::to_string(most_elements) +
                                " (a 2D transform such as 8192x8192x1 is fine)");
  const BlockGrid grid = config.block_grid();  // at least one element per node along every axis (orbital algorithms)
  // A buffer's words are indexed by 32-bit numbers in Programs and engines.
  constexpr std::size_t most_block_words = 0xFFFFFFFFu;
  if (grid.largest_words() > most_block_words)
    throw std::invalid_argument("N: blocks of b = " + grid.describe_blocks() + " (the largest " + std::to_string(grid.largest_words()) +
                                " words) are more than a node's buffer can hold; allowed: at most " +
                                std::to_string(most_block_words) + " words per block (a larger P or a smaller N)");
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
  check_files(config, {{"input", config.input}});
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
