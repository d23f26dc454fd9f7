#include "models/engine_records.hpp"

#include <algorithm>
#include <stdexcept>

namespace torus {

void StepRecords::resize(std::size_t nodes, std::size_t steps) {
  for (auto* table : {&start, &done, &first_send, &last_send}) table->assign(nodes, std::vector<Cycle>(steps, never));
  fma.assign(nodes, std::vector<std::uint32_t>(steps, 0));
  words_sent.assign(nodes, std::vector<std::uint32_t>(steps, 0));
}

void StepTotals::resize(std::size_t steps) {
  start_min.assign(steps, never);
  start_max.assign(steps, 0);
  length_min.assign(steps, never);
  length_max.assign(steps, 0);
  fma.assign(steps, 0);
  words_min.assign(steps, ~std::uint32_t{0});
  words_max.assign(steps, 0);
}

void StepTotals::merge(const StepTotals& other) {
  if (other.fma.size() != fma.size()) throw std::logic_error("step totals: merging totals of different step counts");
  for (std::size_t g = 0; g < fma.size(); ++g) {
    start_min[g] = std::min(start_min[g], other.start_min[g]);
    start_max[g] = std::max(start_max[g], other.start_max[g]);
    length_min[g] = std::min(length_min[g], other.length_min[g]);
    length_max[g] = std::max(length_max[g], other.length_max[g]);
    fma[g] += other.fma[g];
    words_min[g] = std::min(words_min[g], other.words_min[g]);
    words_max[g] = std::max(words_max[g], other.words_max[g]);
  }
}

std::size_t StepTotals::bytes() const {
  return (start_min.capacity() + start_max.capacity() + length_min.capacity() + length_max.capacity()) * sizeof(Cycle) +
         fma.capacity() * sizeof(std::uint64_t) + (words_min.capacity() + words_max.capacity()) * sizeof(std::uint32_t);
}

StepTotals total_steps(const StepRecords& steps, const std::vector<NodeRecord>& nodes, std::size_t global_steps) {
  StepTotals totals;
  totals.resize(global_steps);
  std::vector<Cycle> begins(global_steps + 1);
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    // Each step begins at the earliest first fma of itself and the steps after it.
    begins[global_steps] = nodes[n].finish_cycle;
    for (std::size_t g = global_steps; g-- > 0;) begins[g] = std::min(steps.start[n][g], begins[g + 1]);
    for (std::size_t g = 0; g < global_steps; ++g) {
      totals.note_begin(g, begins[g], g > 0 ? begins[g - 1] : 0);
      totals.fma[g] += steps.fma[n][g];
    }
    if (global_steps > 0) totals.note_length(global_steps - 1, begins[global_steps] - begins[global_steps - 1]);
    totals.note_words(steps.words_sent[n]);
  }
  return totals;
}

namespace {

void collect_steps(const Program& program, const EngineRecords& records, TimingReport& t) {
  const std::size_t steps = program.global_steps();
  const StepTotals& totals = records.step_totals;
  std::size_t global = 0;
  for (const StageInfo& stage : program.stages) {
    StageTiming st{stage.transform, program.transforms[stage.transform], static_cast<int>(stage.stage), never, 0};
    for (std::uint32_t k = 0; k < stage.steps; ++k, ++global) {
      t.steps.push_back({global, static_cast<int>(stage.stage), k, totals.length_min[global], totals.length_max[global]});
      if (k == 0) st.start = std::min<std::uint64_t>(st.start, totals.start_min[global]);
    }
    st.end = std::max<std::uint64_t>(st.end, global < steps ? totals.start_max[global] : t.total_cycles);
    t.stages.push_back(st);
  }
}

void collect_links(const EngineRecords& records, TimingReport& t) {
  const std::size_t count = records.nodes.size();
  for (Direction d : all_directions) {
    LinkTraffic& traffic = t.links[static_cast<std::size_t>(d)];
    traffic.direction = to_string(d);
    for (std::size_t i = 0; i < count; ++i) {
      const LinkRecord& link = records.links[i * direction_count + static_cast<std::size_t>(d)];
      traffic.words += link.words * records.copies;
      traffic.active_cycles += link.active_cycles * records.copies;
      traffic.wait_cycles += link.wait_cycles * records.copies;
      traffic.peak_occupancy = std::max(traffic.peak_occupancy, link.peak_occupancy);
    }
  }
  if (count * records.copies <= 16 * 16 * 16)
    for (std::uint64_t copy = 0; copy < records.copies; ++copy)
      for (const LinkRecord& link : records.links) t.link_active_cycles.push_back(link.active_cycles);
}

}  // namespace

TimingReport assemble_timing(const Program& program, const EngineRecords& records, std::uint64_t fma_expected) {
  TimingReport t;
  t.nodes = records.nodes.size() * records.copies;
  t.nodes_timed = records.nodes.size();
  t.fma_per_cycle = records.fma_per_cycle;
  t.fma_expected = fma_expected;
  std::size_t allocated = 0;
  for (const NodeRecord& node : records.nodes) {
    t.total_cycles = std::max(t.total_cycles, node.finish_cycle);
    t.fma_issued += node.fma_issued * records.copies;
    t.fast_forwarded_fma += node.fast_forwarded_fma * records.copies;
    t.node_activations += node.activations * records.copies;
    t.cycles.busy += node.busy * records.copies;
    t.cycles.dependency += node.dependency * records.copies;
    t.cycles.operand += node.operand * records.copies;
    t.cycles.backpressure += node.backpressure * records.copies;
    allocated = std::max(allocated, node.allocated_words);
    t.engine_bytes_per_node = std::max<std::uint64_t>(t.engine_bytes_per_node, node.engine_bytes);
  }
  t.program_bytes = bytes(program);
  t.cycles.idle = t.total_cycles * t.nodes - t.cycles.busy - t.cycles.dependency - t.cycles.operand - t.cycles.backpressure;
  t.fast_forward_note = records.fast_forward_note;
  t.stepping_threads = records.stepping_threads;
  collect_steps(program, records, t);
  collect_links(records, t);
  t.words_paper = words_one_per_kind(program);
  t.words_allocated = allocated;
  t.words_second_buffers = allocated > t.words_paper ? allocated - t.words_paper : 0;
  return t;
}

ExecutionCounts measured_counts(const Program& program, const EngineRecords& records, std::uint32_t transform,
                                std::size_t fma_per_multiply_add) {
  const StepTotals& r = records.step_totals;
  ExecutionCounts c;
  c.words_moved_per_node_step_min.fill(~std::size_t{0});
  std::uint64_t fma = 0;
  std::size_t global = 0;
  for (const StageInfo& stage : program.stages)
    for (std::uint32_t k = 0; k < stage.steps; ++k, ++global) {
      if (stage.transform != transform) continue;
      ++c.steps;
      const std::size_t st = stage.stage - 1;
      fma += r.fma[global] * records.copies;
      c.words_moved_per_node_step[st] = std::max<std::size_t>(c.words_moved_per_node_step[st], r.words_max[global]);
      c.words_moved_per_node_step_min[st] = std::min<std::size_t>(c.words_moved_per_node_step_min[st], r.words_min[global]);
    }
  for (const NodeRecord& node : records.nodes) {
    if (transform < node.computes_done.size()) c.block_multiply_adds += node.computes_done[transform] * records.copies;
    c.words_held_per_node = std::max(c.words_held_per_node, node.allocated_words);
  }
  std::uint64_t fft_fma = 0;
  for (const NodeRecord& node : records.nodes)
    if (transform < node.fft_fma.size()) {
      fft_fma += node.fft_fma[transform] * records.copies;
      c.fft_butterflies += node.fft_butterflies[transform] * records.copies;
    }
  c.scalar_multiply_adds = (fma - fft_fma) / fma_per_multiply_add;  // mode products only
  return c;
}

}  // namespace torus
