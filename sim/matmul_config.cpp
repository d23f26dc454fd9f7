#include "sim/matmul_config.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "kernels/npy.hpp"
#include "kernels/text.hpp"
#include "sim/matmul.hpp"
#include "sim/run_config.hpp"

namespace torus {

void MatmulConfig::declare(ParameterSet& set) {
  const char* size = "task matmul: C = A B with A m x k and B k x n; ";
  set.integer("m", m, 1, 1 << 20, "elements", std::string(size) + "rows of A and C");
  set.integer("k", k, 1, 1 << 20, "elements", std::string(size) + "columns of A, rows of B (the inner, contracted axis)");
  set.integer("n", n, 1, 1 << 20, "elements", std::string(size) + "columns of B and C");
  set.text("array", array, "Nr x Nc such as 4x8, each from 1 to 4096",
           "task matmul: the processor array, laid on one Q x R plane of the torus (node (l,m) of the array is torus node "
           "(l,m,0); the torus is Nr x Nc x 1 and P is not used); C is cut into Nr x Nc blocks (systolic_ring and "
           "hypersystolic: into p = Nr Nc column blocks), the first m mod Nr rows (n mod Nc columns) one element larger",
           [](std::string_view text) { parse_array(text); });
  set.path("input_a", input_a, "path of an m x k .npy matrix, or empty",
           "task matmul: A instead of the random one (uniform in [-1, 1) from seed; B follows A in the same stream)");
  set.path("input_b", input_b, "path of a k x n .npy matrix, or empty", "task matmul: B instead of the random one");
  set.integer("hypersystolic_k", hypersystolic_k, 0, 4096, "nodes",
              "algorithm hypersystolic: K, the stride of the shifts of A (K K~ = p, the array's node count; K must divide p); "
              "0 takes the largest divisor of p not above sqrt(p), the paper's choice, and with hypersystolic_mapping: plane Nr");
  set.choice("hypersystolic_mapping", hypersystolic_mapping, {"ring", "plane"},
             "algorithm hypersystolic: ring lays the p positions along a Hamiltonian ring of the array (a stride-K shift of A "
             "is a message of K hops through the routers); plane takes the array as K x K~ (Nr = K), where every shift is one "
             "hop (stride K along R, stride 1 along Q within a column of the plane)");
}

std::array<int, 2> parse_array(std::string_view text) {
  std::string compact;
  for (const char c : text)
    if (c != ' ') compact += c;
  const std::invalid_argument bad("array: '" + std::string(text) + "' is not allowed; allowed: Nr x Nc such as 4x8, each from 1 to 4096");
  if (compact.find('x') == std::string::npos && compact.find("\xC3\x97") == std::string::npos) throw bad;
  try {
    const std::array<std::int64_t, 3> e = parse_extents("array", compact + "x1", 1, 4096);
    return {static_cast<int>(e[0]), static_cast<int>(e[1])};
  } catch (const std::invalid_argument&) {
    throw bad;
  }
}

std::array<int, 2> MatmulConfig::array_extents() const { return parse_array(array); }

MatmulProblem matmul_problem_of(const RunConfig& run) {
  const std::array<int, 2> a = run.matmul.array_extents();
  // torus_from:K reads the node count: the array's, Nr Nc (the torus is Nr x Nc x 1).
  const std::array<Topology, 3> boundary = parse_boundary(run.boundary, static_cast<std::size_t>(a[0]) * static_cast<std::size_t>(a[1]));
  return {{a[0], a[1], 1, boundary},
          static_cast<std::size_t>(run.matmul.m),
          static_cast<std::size_t>(run.matmul.k),
          static_cast<std::size_t>(run.matmul.n),
          static_cast<std::size_t>(run.matmul.hypersystolic_k),
          run.matmul.hypersystolic_mapping};
}

namespace {

// An input matrix's header against the size it must have; returns whether it is complex.
bool check_matrix_file(const char* key, const std::string& path, std::int64_t rows, std::int64_t columns) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw std::invalid_argument(std::string(key) + ": '" + path + "' is not a readable file");
  const NpyHeader header = with_parameter(key, [&] { return read_npy_header(path); });
  const std::vector<std::size_t> want{static_cast<std::size_t>(rows), static_cast<std::size_t>(columns)};
  if (header.shape != want)
    throw std::invalid_argument(std::string(key) + ": '" + path + "' is " + header.shape_text() + "; allowed: a " +
                                std::to_string(rows) + " x " + std::to_string(columns) + " matrix");
  return header.complex_valued();
}

}  // namespace

ScalarType validate_matmul(const RunConfig& run) {
  const std::vector<std::string> names = matmul_algorithm_names();
  if (std::find(names.begin(), names.end(), run.algorithm) == names.end())
    throw std::invalid_argument("algorithm: '" + run.algorithm + "' is not allowed with task: matmul" +
                                (run.algorithm == RunConfig::default_algorithm
                                     ? " (it is the default, for task: transform; task: matmul needs an algorithm given)"
                                     : "") +
                                "; allowed: " + join(names, ", "));
  const MatmulConfig& c = run.matmul;
  bool complex = run.domain == "complex";
  if (!run.matmul.input_a.empty()) complex = check_matrix_file("input_a", c.input_a, c.m, c.k) || complex;
  if (!run.matmul.input_b.empty()) complex = check_matrix_file("input_b", c.input_b, c.k, c.n) || complex;
  if (run.domain == "real" && complex)
    throw std::invalid_argument("domain: 'real' is not allowed with a complex input_a or input_b; allowed: auto or complex");
  if (!run.input.empty())
    throw std::invalid_argument("input: '" + run.input + "' is not allowed with task: matmul; allowed: input_a and input_b");
  if (!run.user_matrix.empty())
    throw std::invalid_argument("user_matrix: '" + run.user_matrix + "' is not allowed with task: matmul, which multiplies "
                                "input_a by input_b; allowed: task: transform, or no user_matrix");
  check_files(run, {{"input_a", c.input_a}, {"input_b", c.input_b}});
  const MatmulProblem problem = matmul_problem_of(run);
  if (!run.chrome_trace.empty() && problem.shape.node_count() > 4096)
    throw std::invalid_argument("chrome_trace: the array has " + std::to_string(problem.shape.node_count()) +
                                " nodes; traces are written for at most 4096");
  if (!run.vcd_trace.empty() && (problem.shape.node_count() > 64 || !run.vcd_trace.ends_with(".vcd")))
    throw std::invalid_argument("vcd_trace: '" + run.vcd_trace + "' is not allowed; allowed: a path ending in .vcd, for at most 64 nodes");
  make_matmul_algorithm(run.algorithm)->require(problem);
  return {parse_precision(run.precision), complex ? Domain::Complex : Domain::Real};
}

}  // namespace torus
