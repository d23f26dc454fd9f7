#include "sim/analytic_model.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <string>

namespace torus {
namespace {

struct Shape {
  std::uint64_t rounds;       // R: updates per dependency target per step
  std::uint64_t round_width;  // G: independent targets (b^3, or 2 b^3 when split)
};

Shape program_shape(std::uint64_t reduction, std::uint64_t words, bool split) {
  const std::uint64_t k = split ? 2 : 1;
  return {k * reduction, k * words};
}

Shape program_shape(std::size_t b, bool split) { return program_shape(b, static_cast<std::uint64_t>(b) * b * b, split); }

std::uint64_t floor_div(std::uint64_t a, std::uint64_t b) { return a / b; }

// Last issue cycle (from 0) of `rounds` rounds of `width` fma where each fma depends on the one
// `width` positions earlier, issued in order, `f` per cycle, latency L.
std::uint64_t interleaved_last_issue(std::uint64_t rounds, std::uint64_t width, std::uint64_t f, std::uint64_t L) {
  if (width >= L * f) return floor_div(rounds * width - 1, f);
  return (rounds - 1) * L + floor_div(width - 1, f);
}

// Last issue cycle of `chains` chains of `length` fma, each fma depending on the one before.
std::uint64_t chained_last_issue(std::uint64_t chains, std::uint64_t length, std::uint64_t f, std::uint64_t L) {
  if (f == 1) return chains * ((length - 1) * L + 1) - 1;
  return chains * (length - 1) * L;  // the next chain starts in the cycle the previous one ends
}

std::uint64_t last_issue(const MachineConfig& m, std::uint64_t steps, const Shape& s) {
  const auto f = static_cast<std::uint64_t>(m.fma_per_cycle);
  const auto L = static_cast<std::uint64_t>(m.fma_latency);
  // A chained program with one update per target is the interleaved one (and consecutive
  // steps then chain through the same targets, which the interleaved form captures).
  if (m.micro_schedule == "chained" && s.rounds > 1) return chained_last_issue(steps * s.round_width, s.rounds, f, L);
  return interleaved_last_issue(steps * s.rounds, s.round_width, f, L);
}

AnalyticPrediction serial(const MachineConfig& m, const AnalyticInputs& in) {
  // P = 1: nothing rolls, so the 3 x transforms steps form one instruction stream.
  const std::uint64_t steps = 3 * in.transforms;
  AnalyticPrediction a;
  a.cycles = last_issue(m, steps, program_shape(in.b, in.split_complex)) + static_cast<std::uint64_t>(m.fma_latency);
  a.exact = !in.split_complex;
  a.regime = a.exact ? "P = 1: one unbroken fma stream of 3N^4 per transform"
                     : "P = 1 with complex data on a real fma unit: stage boundaries add dependency stalls not modelled";
  return a;
}

AnalyticPrediction after_compute(const MachineConfig& m, const AnalyticInputs& in, std::uint64_t span) {
  const Rational w = m.link_rate();
  const std::uint64_t block = in.b * in.b * in.b;
  const auto d = static_cast<std::uint64_t>(m.link_latency), startup = static_cast<std::uint64_t>(m.message_startup_cycles);
  const std::uint64_t roll =
      startup + floor_div((block - 1) * static_cast<std::uint64_t>(w.den), static_cast<std::uint64_t>(w.num)) + d;
  const std::uint64_t steps = 3 * in.p * in.transforms;
  AnalyticPrediction a;
  a.cycles = steps * (span + roll);
  const bool credits_ample = static_cast<std::uint64_t>(m.link_buffer(block)) >= 2 * block;
  const bool link_idle = (span + roll) * static_cast<std::uint64_t>(w.num) >= block * static_cast<std::uint64_t>(w.den);
  a.exact = credits_ample && link_idle;
  a.regime = "after_compute: 3P steps x (compute " + std::to_string(span) + " + roll " + std::to_string(roll) + ")";
  if (!credits_ample) a.regime += "; link_buffer_words < 2 b^3, so credit stalls are not modelled";
  if (!link_idle) a.regime += "; a link is still busy when the next roll starts, not modelled";
  return a;
}

AnalyticPrediction overlapped(const MachineConfig& m, const AnalyticInputs& in) {
  const Shape s = program_shape(in.b, in.split_complex);
  const std::uint64_t R = s.rounds, G = s.round_width, work = R * G;
  const auto L = static_cast<std::uint64_t>(m.fma_latency);
  // A message's first word leaves `startup` after it is released; a word arrives d later.
  const auto d = static_cast<std::uint64_t>(m.link_latency), startup = static_cast<std::uint64_t>(m.message_startup_cycles);
  const Rational w = m.link_rate();
  const std::uint64_t block = in.b * in.b * in.b;
  // A step that waits on accumulator words a neighbour finishes in its last round.
  const std::uint64_t forwarded = (R - 1) * G + std::max(G, L + startup + d);
  // Inverse stage III: only unmodified blocks move; the unit's own issue rate bounds the step.
  const std::uint64_t unmodified = std::max(work, startup + d);
  // A step lasts until the next one starts, so count transitions between consecutive steps:
  // the p - 1 inside a final inverse stage III move only unmodified blocks; every other one
  // waits for forwarded accumulator words. The last step ends with its own tail.
  const std::uint64_t steps = 3 * in.p * in.transforms;
  const std::uint64_t unmodified_transitions = in.inverse_last ? in.p - 1 : 0;
  const std::uint64_t forwarded_transitions = steps - 1 - unmodified_transitions;
  const std::uint64_t tail = in.inverse_last ? std::max(work - 1 + L, startup + block - 1 + d) : work - 1 + L + startup + d;
  const std::uint64_t cycles = forwarded_transitions * forwarded + unmodified_transitions * unmodified + tail;
  AnalyticPrediction a;
  a.cycles = cycles;
  const bool ample = w.num >= w.den && static_cast<std::uint64_t>(m.link_buffer(block)) >= 2 * block;
  const bool simple_issue = m.fma_per_cycle == 1 && m.micro_schedule == "interleaved" && !in.split_complex && G >= L;
  a.exact = ample && simple_issue;
  a.regime = "overlapped: step period (R-1)G + max(G, L + s + d) = " + std::to_string(forwarded) +
             " when accumulator words are forwarded, max(RG, s + d) = " + std::to_string(unmodified) + " otherwise";
  if (!ample) a.regime += "; exact only with w >= 1 and link_buffer_words >= 2 b^3";
  if (!simple_issue) a.regime += "; exact only for interleaved, 1 fma/cycle, real or complex-unit data, b^3 >= L";
  return a;
}


std::uint64_t roll_cycles(const MachineConfig& m, std::uint64_t words) {
  if (words == 0) return 0;
  const Rational w = m.link_rate();
  return floor_div((words - 1) * static_cast<std::uint64_t>(w.den), static_cast<std::uint64_t>(w.num)) +
         static_cast<std::uint64_t>(m.link_latency);
}

// Any Program: every step computes its stage's largest kernel, then rolls its largest block.
AnalyticPrediction by_stages(const MachineConfig& m, const AnalyticInputs& in) {
  AnalyticPrediction a;
  for (const StageShape& stage : in.stages) {
    const std::uint64_t span = last_issue(m, 1, program_shape(stage.reduction, stage.words, in.split_complex)) +
                               static_cast<std::uint64_t>(m.fma_latency);
    const std::uint64_t extra_hops = stage.rolled > 0 && stage.hops > 1 ? (stage.hops - 1) * static_cast<std::uint64_t>(m.link_latency) : 0;
    a.cycles += stage.steps * (span + roll_cycles(m, stage.rolled) + extra_hops);
  }
  a.exact = false;
  a.regime = "per stage: steps x (compute of its largest block + roll of its largest block); " + in.approximate_because;
  return a;
}

}  // namespace

AnalyticInputs analytic_inputs(const Program& program, bool inverse_last, bool split_complex) {
  AnalyticInputs in;
  in.p = static_cast<std::size_t>(program.shape.p1);
  in.b = program.grid.axis[0].largest();
  in.transforms = program.transforms.size();
  in.inverse_last = inverse_last;
  in.split_complex = split_complex;
  if (program.algorithm == "orbital" && program.shape.is_cube() && program.grid.uniform_cube() && program.shape.torus()) return in;
  in.approximate_because = program.algorithm != "orbital" ? "the closed forms are derived for the orbital schedule"
                           : !program.shape.torus()        ? "a mesh axis: rolls across its edge take P_a - 1 hops"
                           : !program.grid.even()          ? "blocks differ in size: nodes with larger blocks take longer"
                                                            : "blocks are not b x b x b";
  // (transform, stage): the largest message and the longest route
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> rolled;
  for (const NodeProgram& node : program.nodes)
    for (const Task& task : node.tasks)
      if (task.kind == TaskKind::Send) {
        auto& [words, hops] = rolled[{task.label.transform, task.label.stage}];
        words = std::max<std::uint64_t>(words, program.messages[task.message].words);
        hops = std::max<std::uint64_t>(hops, program.messages[task.message].hops);
      }
  for (const StageInfo& info : program.stages) {
    StageShape stage{info.steps, 1, 1, 0, 1};
    for (const KernelSpec& k : program.kernels)
      if (k.mode == info.mode && k.multiply_adds() >= stage.reduction * stage.words) {
        stage.reduction = k.reduction();
        stage.words = k.accumulator_words();
      }
    std::tie(stage.rolled, stage.hops) = rolled[{info.transform, info.stage}];
    in.stages.push_back(stage);
  }
  return in;
}

std::uint64_t compute_span(const MachineConfig& machine, std::size_t b, bool split_complex) {
  return last_issue(machine, 1, program_shape(b, split_complex)) + static_cast<std::uint64_t>(machine.fma_latency);
}

AnalyticPrediction predict_cycles(const MachineConfig& machine, const AnalyticInputs& inputs) {
  if (!inputs.stages.empty()) return by_stages(machine, inputs);
  if (inputs.p == 1) return serial(machine, inputs);
  if (machine.roll_policy == "overlapped") return overlapped(machine, inputs);
  return after_compute(machine, inputs, compute_span(machine, inputs.b, inputs.split_complex));
}

}  // namespace torus
