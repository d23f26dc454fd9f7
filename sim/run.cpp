#include "sim/run.hpp"

#include <chrono>

#include <nlohmann/json.hpp>

#include "sim/memory_estimate.hpp"
#include "sim/report.hpp"
#include "sim/run_inputs.hpp"
#include "sim/verifier.hpp"

namespace torus {

bool RunReport::passed() const {
  for (const auto& t : transforms)
    if (t.schedule_violations != 0 || !t.error.within_tolerance()) return false;
  if (timing && timing->fma_issued != timing->fma_expected) return false;
  return !round_trip || round_trip->within_tolerance();
}

RunReport describe_run(const RunConfig& config, ScalarType scalar) {
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
  report.fma_per_multiply_add = scalar.domain == Domain::Complex ? 4 : 1;
  return report;
}

template <class T>
void write_run_outputs(const RunConfig& config, const RunReport& report, const Tensor3<T>& result) {
  if (!config.output.empty()) write_npy(config.output, result);
  if (!config.report_json.empty()) write_file_atomically(config.report_json, to_json(report).dump(2) + "\n");
}

template void write_run_outputs(const RunConfig&, const RunReport&, const Tensor3<float>&);
template void write_run_outputs(const RunConfig&, const RunReport&, const Tensor3<double>&);
template void write_run_outputs(const RunConfig&, const RunReport&, const Tensor3<std::complex<float>>&);
template void write_run_outputs(const RunConfig&, const RunReport&, const Tensor3<std::complex<double>>&);

namespace {

template <class T>
Tensor3<T> run_typed(const RunConfig& config, RunReport& report) {
  const CoefficientSet<T> c = make_coefficients<T>(config);
  report.inverse_defects = c.defects;
  const Tensor3<T> x = make_input<T>(config);
  Tensor3<T> current = x, y_hat;
  for (const TransformDirection direction : {TransformDirection::Forward, TransformDirection::Inverse}) {
    if ((direction == TransformDirection::Forward && !config.runs_forward()) ||
        (direction == TransformDirection::Inverse && !config.runs_inverse()))
      continue;
    const Schedule schedule = generate_schedule(TorusShape::cube(static_cast<int>(config.p)), config.block_size(),
                                                config.scheduling_vector(), direction);
    const auto& matrices = direction == TransformDirection::Forward ? c.forward : c.inverse;
    TransformOutcome outcome;
    outcome.direction = direction;
    outcome.expected = count(schedule);
    const VerificationReport verification = verify_schedule(schedule, 1);
    outcome.schedule_violations = verification.violation_count;
    if (!verification.ok()) outcome.first_violation = to_string(verification.violations.front());
    const ExecutionResult<T> result = execute_schedule(schedule, current, matrices);
    outcome.measured = result.counts;
    check_against_golden(outcome, current, result.canonical, result.layout, matrices, config.block_size());
    report.transforms.push_back(outcome);
    if (direction == TransformDirection::Forward) y_hat = result.canonical;
    current = result.canonical;
  }
  if (config.runs_forward() && config.runs_inverse()) report.round_trip = round_trip_error(current, x, y_hat, c);
  return current;
}

}  // namespace

RunReport run_functional(const RunConfig& config) {
  const auto start = std::chrono::steady_clock::now();
  const ScalarType scalar = validate(config);
  if (!config.chrome_trace.empty() || !config.vcd_trace.empty())
    throw std::invalid_argument("chrome_trace and vcd_trace need engine: systemc (the functional engine keeps no time)");
  MachineConfig functional;
  functional.engine = "functional";
  check_memory(config, functional, scalar.domain == Domain::Complex);
  RunReport report = describe_run(config, scalar);
  dispatch_scalar(scalar, [&]<class T>() {
    const Tensor3<T> result = run_typed<T>(config, report);
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    write_run_outputs(config, report, result);
  });
  return report;
}

}  // namespace torus
