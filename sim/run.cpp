#include "sim/run.hpp"

#include <chrono>
#include <complex>
#include <random>

#include <nlohmann/json.hpp>

#include "kernels/mode_product.hpp"
#include "kernels/npy.hpp"
#include "sim/report.hpp"
#include "sim/verifier.hpp"

namespace torus {

bool RunReport::passed() const {
  for (const auto& t : transforms)
    if (t.schedule_violations != 0 || !t.error.within_tolerance()) return false;
  return !round_trip || round_trip->within_tolerance();
}

namespace {

// Uniform in [-1, 1) from the top 53 bits, so the input is the same on every platform.
double uniform_pm1(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; }

template <class T>
Tensor3<T> random_tensor(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor3<T> x(n, n, n);
  for (T& v : x.values()) {
    if constexpr (is_complex_v<T>) {
      const double re = uniform_pm1(rng);
      v = T(static_cast<real_t<T>>(re), static_cast<real_t<T>>(uniform_pm1(rng)));
    } else {
      v = static_cast<T>(uniform_pm1(rng));
    }
  }
  return x;
}

template <class T>
std::string locate_mismatch(const ErrorReport& error, const ExecutionResult<T>& result, std::size_t b) {
  if (error.within_tolerance()) return "";
  const std::array<int, 3> block{static_cast<int>(error.first_failure[0] / b), static_cast<int>(error.first_failure[1] / b),
                                 static_cast<int>(error.first_failure[2] / b)};
  for (const Placement& p : result.layout)
    if (p.block.index == block)
      return "first mismatching output block " + to_string(p.block) + " at node " + to_string(p.node) + ", element (" +
             std::to_string(error.first_failure[0]) + "," + std::to_string(error.first_failure[1]) + "," +
             std::to_string(error.first_failure[2]) + ")";
  return "mismatch at element outside every output block";
}

template <class T>
class TypedRun {
 public:
  TypedRun(const RunConfig& config, RunReport& report) : config_(config), report_(report) {
    const AxisTransforms transforms = parse_axis_transforms(config.transform, config.transform_options());
    const auto n = static_cast<std::size_t>(config.n);
    for (std::size_t a = 0; a < 3; ++a) {
      const CoefficientMatrices wide = transforms.axis[a]->matrices(n);
      forward_[a] = round_coefficients<T>(wide.forward);
      inverse_[a] = round_coefficients<T>(wide.inverse);
      report_.inverse_defects.push_back(inverse_defect(forward_[a], inverse_[a]));
    }
  }

  Tensor3<T> run() {
    const auto n = static_cast<std::size_t>(config_.n);
    const Tensor3<T> x = config_.input.empty() ? random_tensor<T>(n, config_.seed) : read_npy_tensor<T>(config_.input);
    if (x.extents() != Extents3{n, n, n})
      throw std::invalid_argument("input: '" + config_.input + "' is not " + std::to_string(n) + " x " + std::to_string(n) +
                                  " x " + std::to_string(n) + " (N = " + std::to_string(n) + ")");
    Tensor3<T> current = x;
    if (config_.runs_forward()) current = transform(TransformDirection::Forward, current, forward_);
    if (config_.runs_inverse()) current = transform(TransformDirection::Inverse, current, inverse_);
    if (config_.runs_forward() && config_.runs_inverse()) report_.round_trip = round_trip_error(current, x);
    return current;
  }

 private:
  Tensor3<T> transform(TransformDirection direction, const Tensor3<T>& input, const std::array<Matrix<T>, 3>& matrices) {
    const Schedule schedule = generate_schedule(TorusShape::cube(static_cast<int>(config_.p)), config_.block_size(),
                                                config_.scheduling_vector(), direction);
    TransformOutcome outcome;
    outcome.direction = direction;
    outcome.expected = count(schedule);
    const VerificationReport verification = verify_schedule(schedule, 1);
    outcome.schedule_violations = verification.violation_count;
    if (!verification.ok()) outcome.first_violation = to_string(verification.violations.front());
    const ExecutionResult<T> result = execute_schedule(schedule, input, matrices);
    outcome.measured = result.counts;
    outcome.error = compare_to_golden(result.canonical, golden_transform(input, matrices), absolute_transform(input, matrices));
    outcome.mismatch = locate_mismatch(outcome.error, result, config_.block_size());
    report_.transforms.push_back(outcome);
    if (direction == TransformDirection::Forward) y_hat_ = result.canonical;
    return result.canonical;
  }

  ErrorReport round_trip_error(const Tensor3<T>& x_hat, const Tensor3<T>& x) const {
    double defect = 1.0;
    for (double d : report_.inverse_defects) defect *= 1.0 + d;
    const Tensor3<double> through_x = absolute_transform_of_magnitude(absolute_transform(x, forward_), inverse_);
    return compare_round_trip(x_hat, x, absolute_transform(y_hat_, inverse_), through_x, defect - 1.0);
  }

  const RunConfig& config_;
  RunReport& report_;
  std::array<Matrix<T>, 3> forward_;
  std::array<Matrix<T>, 3> inverse_;
  Tensor3<T> y_hat_;
};

}  // namespace

RunReport run_functional(const RunConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  const ScalarType scalar = validate(config);
  RunReport report;
  report.n = static_cast<std::size_t>(config.n);
  report.p = static_cast<int>(config.p);
  report.b = config.block_size();
  report.transform = parse_axis_transforms(config.transform, config.transform_options()).describe();
  report.alpha = config.scheduling_vector().to_string();
  report.normalisation = config.normalisation;
  report.scalar = scalar;
  report.seed = config.seed;
  report.input = config.input.empty() ? "random (seed " + std::to_string(config.seed) + ")" : config.input;
  dispatch_scalar(scalar, [&]<class T>() {
    const Tensor3<T> result = TypedRun<T>(config, report).run();
    if (!config.output.empty()) write_npy(config.output, result);
  });
  report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!config.report_json.empty()) write_file_atomically(config.report_json, to_json(report).dump(2) + "\n");
  return report;
}

}  // namespace torus
