#include "models/cycle/timing_collector.hpp"

#include <algorithm>

namespace torus {

StepRecords step_records(const TorusTop& top) {
  const std::size_t steps = top.program().global_steps(), count = top.nodes.size();
  StepRecords r;
  for (auto* table : {&r.start, &r.done, &r.first_send, &r.last_send}) table->assign(count, std::vector<Cycle>(steps, never));
  r.fma.assign(count, std::vector<std::uint32_t>(steps, 0));
  r.words_sent.assign(count, std::vector<std::uint32_t>(steps, 0));
  for (std::size_t n = 0; n < count; ++n) {
    const auto& records = top.nodes[n].step_records();
    for (std::size_t s = 0; s < records.size() && s < steps; ++s) {
      r.start[n][s] = records[s].start;
      r.done[n][s] = records[s].done;
      r.first_send[n][s] = records[s].first_send;
      r.last_send[n][s] = records[s].last_send;
      r.fma[n][s] = records[s].fma;
      r.words_sent[n][s] = records[s].words_sent;
    }
  }
  return r;
}

namespace {

void collect_steps(const TorusTop& top, const StepRecords& r, TimingReport& t) {
  const Program& program = top.program();
  const std::size_t steps = program.global_steps();
  std::size_t global = 0;
  for (const StageInfo& stage : program.stages) {
    StageTiming st{stage.transform, program.transforms[stage.transform], static_cast<int>(stage.stage), never, 0};
    for (std::uint32_t k = 0; k < stage.steps; ++k, ++global) {
      StepTiming step{global, static_cast<int>(stage.stage), k, never, 0};
      for (std::size_t n = 0; n < top.nodes.size(); ++n) {
        const Cycle start = r.start[n][global];
        const Cycle next = global + 1 < steps ? r.start[n][global + 1] : top.nodes[n].stats().finish_cycle;
        step.min_cycles = std::min<std::uint64_t>(step.min_cycles, next - start);
        step.max_cycles = std::max<std::uint64_t>(step.max_cycles, next - start);
        if (k == 0) st.start = std::min<std::uint64_t>(st.start, start);
      }
      t.steps.push_back(step);
    }
    for (std::size_t n = 0; n < top.nodes.size(); ++n)
      st.end = std::max<std::uint64_t>(st.end, global < steps ? r.start[n][global] : t.total_cycles);
    t.stages.push_back(st);
  }
}

void collect_links(const TorusTop& top, TimingReport& t) {
  for (Direction d : all_directions) {
    LinkTraffic& traffic = t.links[static_cast<std::size_t>(d)];
    traffic.direction = to_string(d);
    for (std::size_t i = 0; i < top.nodes.size(); ++i) {
      const LinkStats& ls = top.link(i, d).stats();
      traffic.words += ls.words_sent;
      traffic.active_cycles += ls.active_cycles;
      traffic.peak_occupancy = std::max(traffic.peak_occupancy, ls.peak_occupancy);
    }
  }
  if (top.nodes.size() <= 16 * 16 * 16)
    for (std::size_t i = 0; i < top.nodes.size(); ++i)
      for (Direction d : all_directions) t.link_active_cycles.push_back(top.link(i, d).stats().active_cycles);
}

}  // namespace

TimingReport collect_timing(const TorusTop& top, const StepRecords& steps, std::uint64_t fma_expected) {
  TimingReport t;
  t.total_cycles = top.completion_cycle();
  t.nodes = top.nodes.size();
  t.fma_per_cycle = top.nodes[0].pipeline().per_cycle();
  t.fma_expected = fma_expected;
  std::size_t allocated = 0;
  for (const Node& node : top.nodes) {
    const NodeStats& s = node.stats();
    t.fma_issued += node.pipeline().stats().issued;
    t.fast_forwarded_fma += s.fast_forwarded_fma;
    t.cycles.busy += s.busy_cycles;
    t.cycles.dependency += s.dependency_stalls;
    t.cycles.operand += s.operand_stalls;
    t.cycles.backpressure += s.backpressure_stalls;
    allocated = std::max(allocated, node.datapath().allocated_words());
    std::size_t engine = node.state_bytes() + node.datapath().allocated_words() * node.datapath().word_bytes();
    for (Direction d : all_directions) engine += top.link(node.index(), d).bytes();
    t.engine_bytes_per_node = std::max<std::uint64_t>(t.engine_bytes_per_node, engine);
  }
  t.program_bytes = bytes(top.program());
  t.cycles.idle = t.total_cycles * t.nodes - t.cycles.busy - t.cycles.dependency - t.cycles.operand - t.cycles.backpressure;
  t.fast_forward_note = top.nodes[0].fast_forward_refusal();
  if (t.fast_forward_note.empty() && t.fast_forwarded_fma == 0)
    t.fast_forward_note = top.program().block_size == 1 ? "with b = 1 every compute is a single fma: nothing to issue ahead"
                                                        : "no compute had its inputs early enough to issue ahead";
  collect_steps(top, steps, t);
  collect_links(top, t);
  const std::uint64_t b = top.program().block_size;
  t.words_paper = 4 * b * b * b + 3 * b * b;
  t.words_allocated = allocated;
  t.words_second_buffers = allocated > t.words_paper ? allocated - t.words_paper : 0;
  return t;
}

ExecutionCounts measured_counts(const TorusTop& top, const StepRecords& r, std::uint32_t transform,
                                std::size_t fma_per_multiply_add) {
  const Program& program = top.program();
  ExecutionCounts c;
  c.words_moved_per_node_step_min.fill(~std::size_t{0});
  std::uint64_t fma = 0;
  std::size_t global = 0;
  for (const StageInfo& stage : program.stages)
    for (std::uint32_t k = 0; k < stage.steps; ++k, ++global) {
      if (stage.transform != transform) continue;
      ++c.steps;
      const std::size_t st = stage.stage - 1;
      for (std::size_t n = 0; n < top.nodes.size(); ++n) {
        fma += r.fma[n][global];
        c.words_moved_per_node_step[st] = std::max<std::size_t>(c.words_moved_per_node_step[st], r.words_sent[n][global]);
        c.words_moved_per_node_step_min[st] = std::min<std::size_t>(c.words_moved_per_node_step_min[st], r.words_sent[n][global]);
      }
    }
  // A block multiply-add counts once its compute has issued every fma.
  for (std::size_t n = 0; n < top.nodes.size(); ++n)
    for (const ComputeFlow& compute : top.nodes[n].computes())
      if (program.nodes[n].tasks[compute.task].label.transform == transform && compute.done != never) ++c.block_multiply_adds;
  c.scalar_multiply_adds = fma / fma_per_multiply_add;
  for (const Node& node : top.nodes) c.words_held_per_node = std::max(c.words_held_per_node, node.datapath().allocated_words());
  return c;
}

}  // namespace torus
