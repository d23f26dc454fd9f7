#include "sim/algorithms/transpose_fft.hpp"

#include "sim/algorithms/local_transform.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace torus {
namespace {

constexpr int no_factor = -1;

// How a layout cuts the tensor: parts per axis and which process coordinate indexes each cut
// axis (0: i of Pr, 1: j of Pc, no_factor: the axis is whole).
struct Layout {
  std::array<std::size_t, 3> parts{1, 1, 1};
  std::array<int, 3> factor{no_factor, no_factor, no_factor};
};

// One transform's chain: L[k] the layout in which axis a[k] is whole, G[k] the pieces phase k
// produces (L[k] with a[k] cut as the next layout cuts it; G[2] = L[2]).
struct Chain {
  std::array<int, 3> a{};
  std::array<Layout, 3> L, G;
  std::size_t ax(std::size_t k) const { return static_cast<std::size_t>(a[k] - 1); }
  // The process coordinate whose cut moves in the exchange after phase k (no_factor: none).
  int moved(std::size_t k) const { return k < 2 ? L[k].factor[ax(k + 1)] : no_factor; }
};

Chain make_chain(const std::array<int, 3>& order, const Layout& first) {
  Chain c;
  c.a = order;
  c.L[0] = first;
  for (std::size_t k = 0; k < 2; ++k) {
    Layout next = c.L[k];
    next.parts[c.ax(k)] = c.L[k].parts[c.ax(k + 1)];
    next.factor[c.ax(k)] = c.L[k].factor[c.ax(k + 1)];
    next.parts[c.ax(k + 1)] = 1;
    next.factor[c.ax(k + 1)] = no_factor;
    c.L[k + 1] = next;
  }
  for (std::size_t k = 0; k < 3; ++k) {
    c.G[k] = c.L[k];
    if (k < 2) {
      c.G[k].parts[c.ax(k)] = c.L[k + 1].parts[c.ax(k)];
      c.G[k].factor[c.ax(k)] = c.L[k + 1].factor[c.ax(k)];
    }
  }
  return c;
}

struct SlabPiece {
  std::size_t process;   // where it is made (sources) or goes (destinations)
  std::uint32_t buffer;  // the buffer holding it on this node
  DataTag tag;
};

class TransposeBuilder {
 public:
  TransposeBuilder(const TransposePlan& plan, const TransformProblem& problem) : plan_(plan), problem_(problem) {}

  Program build() {
    validate_plan();
    declare();
    for (std::size_t t = 0; t < problem_.directions.size(); ++t) emit_transform(t);
    return std::move(program_);
  }

 private:
  std::size_t processes() const { return plan_.pr * plan_.pc; }
  std::array<std::size_t, 2> coords(std::size_t process) const { return {process / plan_.pc, process % plan_.pc}; }
  std::size_t process_of(std::array<std::size_t, 2> c) const { return c[0] * plan_.pc + c[1]; }
  NodeProgram& node(std::size_t process) { return program_.nodes[plan_.node_of[process]]; }
  Extents3 n() const { return problem_.grid.tensor_extents(); }

  BlockGrid grid_of(const Layout& layout) const {
    return BlockGrid::make(n(), {layout.parts[0], layout.parts[1], layout.parts[2]});
  }
  std::array<std::int32_t, 3> index_in(const Layout& layout, std::size_t process) const {
    const auto c = coords(process);
    std::array<std::int32_t, 3> index{0, 0, 0};
    for (std::size_t x = 0; x < 3; ++x)
      if (layout.factor[x] != no_factor) index[x] = static_cast<std::int32_t>(c[static_cast<std::size_t>(layout.factor[x])]);
    return index;
  }

  void validate_plan() {
    if (problem_.directions.empty()) throw std::invalid_argument("direction: at least one transform is needed");
    if (plan_.node_of.size() != processes() || processes() != problem_.shape.node_count())
      throw std::logic_error(plan_.algorithm + ": the process grid does not cover the torus");
    const Extents3 e = n();
    const auto check = [&](int axis, std::size_t parts, const char* what) {
      if (e[static_cast<std::size_t>(axis - 1)] < parts)
        throw std::invalid_argument(fmt::format("N: '{}' is not allowed with algorithm {} on {} nodes; allowed: at least {} "
                                                "elements along axis {} ({} = {}), or fewer nodes",
                                                extents_text(e), plan_.algorithm, processes(), parts, axis, what, parts));
    };
    Layout first;
    first.parts[static_cast<std::size_t>(plan_.axis_r - 1)] = plan_.pr;
    first.factor[static_cast<std::size_t>(plan_.axis_r - 1)] = 0;
    first.parts[static_cast<std::size_t>(plan_.axis_c - 1)] = plan_.pc;
    first.factor[static_cast<std::size_t>(plan_.axis_c - 1)] = 1;
    forward_ = make_chain(plan_.order, first);
    inverse_ = make_chain({plan_.order[2], plan_.order[1], plan_.order[0]}, forward_.L[2]);
    for (const Chain* c : {&forward_, &inverse_})
      for (std::size_t k = 0; k < 3; ++k)
        for (std::size_t x = 0; x < 3; ++x) {
          const int f = c->G[k].factor[x];
          if (f != no_factor) check(static_cast<int>(x + 1), c->G[k].parts[x], f == 0 ? "Pr" : "Pc");
        }
  }

  const Chain& chain(std::size_t t) const {
    return problem_.directions[t] == TransformDirection::Forward ? forward_ : inverse_;
  }

  std::uint16_t add_kind(const std::string& name, int dimensions, int axis, const BlockGrid& cut) {
    program_.tag_kinds.push_back({name, dimensions, axis, cut});
    return static_cast<std::uint16_t>(program_.tag_kinds.size() - 1);
  }

  void declare() {
    program_.algorithm = plan_.algorithm;
    program_.byte_budget = problem_.max_program_bytes;
    program_.shape = problem_.shape;
    program_.coefficients_local = true;
    std::string dirs;
    for (const TransformDirection d : problem_.directions) {
      program_.transforms.push_back(to_string(d));
      if (!dirs.empty()) dirs += '+';
      dirs += to_string(d);
    }
    program_.grid = grid_of(chain(0).L[0]);
    program_.description = fmt::format("{}, N={} on {} nodes, {}", plan_.description, extents_text(n()), processes(), dirs);
    program_.nodes.assign(processes(), NodeProgram{});
    input_kind_ = add_kind(problem_.directions[0] == TransformDirection::Forward ? "X" : "Y", 3, 0, program_.grid);
    program_.host_arrays.push_back({"input", false, 0, 0, {}, 0, false});
    coefficient_buffer_.assign(processes(), no_buffer);
  }

  std::uint32_t add_buffer(std::size_t process, std::size_t words, std::uint16_t kind) {
    NodeProgram& p = node(process);
    p.buffers.push_back({static_cast<std::uint32_t>(words), kind});
    return static_cast<std::uint32_t>(p.buffers.size() - 1);
  }

  // One coefficient buffer per node, as large as the largest block any of its computes loads.
  std::uint32_t coefficient_buffer(std::size_t process, std::size_t words, std::uint16_t kind) {
    std::uint32_t& b = coefficient_buffer_[process];
    if (b == no_buffer) b = add_buffer(process, words, kind);
    NodeProgram& p = node(process);
    p.buffers[b].words = std::max<std::uint32_t>(p.buffers[b].words, static_cast<std::uint32_t>(words));
    return b;
  }

  void emit_transform(std::size_t t) {
    const Chain& c = chain(t);
    const bool forward = problem_.directions[t] == TransformDirection::Forward;
    const std::string from = forward ? "X" : "Y", to = forward ? "Y" : "X";
    piece_kinds_.emplace_back();
    coefficient_kinds_.emplace_back();
    matrices_.emplace_back();
    auto& coefficient_kind = coefficient_kinds_.back();
    auto& matrix = matrices_.back();
    for (std::size_t k = 0; k < 3; ++k) {
      piece_kinds_[t][k] = add_kind(k == 2 ? to : from + std::string(k + 1, '\''), 3, 0, grid_of(c.G[k]));
      const BlockGrid rows_cols = coefficient_cut(c, k);
      const std::string name = fmt::format("{}{}", forward ? 'C' : 'D', c.a[k]);
      coefficient_kind[k] = add_kind(name, 2, c.a[k], rows_cols);
      matrix[k] = static_cast<std::uint16_t>(program_.host_arrays.size());
      program_.host_arrays.push_back({to_string(problem_.directions[t]) + " " + name, true, c.a[k], t, rows_cols, 0, false});
      const bool exchange = k < 2 && c.moved(k) != no_factor;
      program_.stages.push_back({static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(k + 1), c.a[k],
                                 fmt::format("axis {} local: {}({}) {} = sum over pieces x{} {}{}{}", c.a[k], to,
                                             k == 2 ? "out" : "piece", exchange ? "for each destination" : "",
                                             c.a[k], forward ? "C" : "D", c.a[k], exchange ? ", then the transpose" : ""),
                                 0});
    }
    if (t == 0) load_inputs(c);
    program_.stages[3 * t].steps = 1;
    for (std::size_t k = 0; k < 2; ++k) program_.stages[3 * t + k + 1].steps = static_cast<std::uint32_t>(group(c, k));
    std::vector<std::vector<SlabPiece>> pieces(processes());
    const bool fft = fft_phase(t, 0);
    for (std::size_t p = 0; p < processes(); ++p) {
      pieces[p] = accumulators(t, 0, p);
      if (fft) fft_task(t, 0, p, current_[p], pieces[p]);
      else accumulate(t, 0, p, current_[p].front(), pieces[p], true, 0);
    }
    for (std::size_t k = 0; k < 2; ++k) pieces = exchange(t, k, pieces);
    current_ = std::move(pieces);
    ProgramOutput output{to_string(problem_.directions[t]), static_cast<std::uint32_t>(t), 3,
                         std::vector<std::uint32_t>(processes()), std::vector<DataTag>(processes()), {}};
    for (std::size_t p = 0; p < processes(); ++p) {
      output.buffer[plan_.node_of[p]] = current_[p].front().buffer;
      output.tag[plan_.node_of[p]] = current_[p].front().tag;
    }
    program_.outputs.push_back(std::move(output));
  }

  void load_inputs(const Chain& c) {
    current_.assign(processes(), {});
    for (std::size_t p = 0; p < processes(); ++p) {
      const DataTag tag{input_kind_, index_in(c.L[0], p)};
      const std::uint32_t buffer = add_buffer(p, program_.words_of(tag), input_kind_);
      Task load = make_task(TaskKind::Load, label(0, 0, 0));
      load.buffer = buffer;
      TaskDetail d;
      d.tag = tag;
      d.source = {0, tag.index};
      node(p).add(load, d);
      current_[p] = {{p, buffer, tag}};
    }
  }

  // Phase k's coefficient blocks: rows cut as the pieces its lines arrive in, columns as the
  // pieces it hands on.
  BlockGrid coefficient_cut(const Chain& c, std::size_t k) const {
    const std::size_t x = c.ax(k), length = n()[x];
    const AxisSplit rows{length, k == 0 ? 1 : c.G[k - 1].parts[x]}, cols{length, c.G[k].parts[x]};
    return {{rows, cols, AxisSplit{1, 1}}};
  }

  TaskLabel label(std::size_t t, std::size_t k, std::uint32_t step) const {
    std::uint32_t global = 0;
    for (std::size_t i = 0; i < 3 * t + k; ++i) global += program_.stages[i].steps;
    return {static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(k + 1), step, global + step};
  }

  std::size_t group(const Chain& c, std::size_t k) const {
    const int f = c.moved(k);
    return f == no_factor ? 1 : (f == 0 ? plan_.pr : plan_.pc);
  }

  // Phase k's pieces on process p, one accumulator per destination in the order they are sent
  // (its own last).
  std::vector<SlabPiece> accumulators(std::size_t t, std::size_t k, std::size_t p) {
    const Chain& c = chain(t);
    std::vector<std::size_t> to;
    for (std::size_t j = 1; j < group(c, k); ++j) to.push_back(plan_.partner(plan_, p, c.moved(k), j, +1));
    to.push_back(p);
    std::vector<SlabPiece> out;
    for (const std::size_t d : to) {
      const DataTag tag = piece_for(c, k, piece_kinds_[t][k], p, d);
      out.push_back({d, add_buffer(p, program_.words_of(tag), piece_kinds_[t][k]), tag});
    }
    return out;
  }

  // acc (+)= in x_a C(in's rows, acc's columns) for every accumulator of phase k.
  void accumulate(std::size_t t, std::size_t k, std::size_t p, const SlabPiece& in, const std::vector<SlabPiece>& accs, bool first,
                  std::uint32_t step) {
    const Chain& c = chain(t);
    const std::size_t x = c.ax(k);
    for (const SlabPiece& acc : accs) {
      const DataTag coefficient{coefficient_kinds_[t][k], {in.tag.index[x], acc.tag.index[x], 0}};
      add_mode_product(program_, node(p), label(t, k, step),
                       {c.a[k], acc.buffer, in.buffer, coefficient_buffer(p, program_.words_of(coefficient), coefficient.kind),
                        acc.tag, in.tag, coefficient, matrices_[t][k], first});
    }
  }

  // Whether phase k of transform t is one FFT task (local_kernel fft or auto): its axis is a DFT
  // of power-of-two length, which the pieces it reads and the pieces it makes cut evenly.
  bool fft_phase(std::size_t t, std::size_t k) const {
    if (problem_.local_kernel == "dense") return false;
    const Chain& c = chain(t);
    const std::size_t x = c.ax(k), length = n()[x];
    const std::size_t in = k == 0 ? 1 : c.G[k - 1].parts[x], out = c.G[k].parts[x];
    const bool fits = problem_.axes[x].fft && length % in == 0 && length % out == 0;
    if (!fits && problem_.local_kernel == "fft")
      throw std::invalid_argument(fmt::format("local_kernel: 'fft' is not allowed for axis {} here (N = {}, transform {}, "
                                              "pieces of {} and {}); allowed: auto or dense, or a DFT of power-of-two length "
                                              "that the process grid cuts evenly",
                                              c.a[k], length, problem_.axes[x].fft ? "dft" : "not a dft of power-of-two length",
                                              length / in, length / out));
    return fits;
  }

  // Phase k on process p as one FFT task: the lines along the axis, gathered from the pieces
  // `in` (slices along the axis) and handed out as the pieces `out`, listed in axis order.
  void fft_task(std::size_t t, std::size_t k, std::size_t p, std::vector<SlabPiece> in, std::vector<SlabPiece> out) {
    const Chain& c = chain(t);
    const std::size_t x = c.ax(k);
    const auto along = [x](const SlabPiece& a, const SlabPiece& b) { return a.tag.index[x] < b.tag.index[x]; };
    std::sort(in.begin(), in.end(), along);
    std::sort(out.begin(), out.end(), along);
    const bool inverse = problem_.directions[t] == TransformDirection::Inverse;
    FftSpec spec;
    spec.axis = c.a[k];
    spec.whole = program_.extents_of(in.front().tag);
    spec.whole[x] = n()[x];
    spec.input_cut = spec.output_cut = c.a[k];
    spec.inverse = inverse;
    spec.scale = inverse ? problem_.axes[x].inverse_scale : problem_.axes[x].forward_scale;
    std::vector<std::uint32_t> inputs, outputs;
    for (const SlabPiece& piece : in) inputs.push_back(piece.buffer);
    for (const SlabPiece& piece : out) outputs.push_back(piece.buffer);
    add_fft_task(program_, node(p), label(t, k, 0), spec, inputs, in.front().tag, outputs, out.front().tag);
  }

  // The transpose after phase k, woven into phase k + 1: every receive is posted first; the
  // sends leave in order, the next one posted before the node sums the piece of the step before
  // (so at most two of its messages are ahead of what it has taken in), and each piece is summed
  // into every phase k + 1 accumulator as it arrives, the node's own piece last.
  std::vector<std::vector<SlabPiece>> exchange(std::size_t t, std::size_t k, const std::vector<std::vector<SlabPiece>>& pieces) {
    const Chain& c = chain(t);
    const std::size_t g = group(c, k);
    std::vector<std::vector<SlabPiece>> next(processes());
    for (std::size_t p = 0; p < processes(); ++p) {
      std::vector<SlabPiece> received;
      for (std::size_t j = 1; j < g; ++j) {
        const std::size_t from = plan_.partner(plan_, p, c.moved(k), j, -1);
        const DataTag tag = piece_for(c, k, piece_kinds_[t][k], from, p);
        received.push_back({from, add_buffer(p, program_.words_of(tag), piece_kinds_[t][k]), tag});
        Task receive = make_task(TaskKind::Receive, label(t, k + 1, 0));
        receive.buffer = received.back().buffer;
        receive.message = message_index(from, p, t, k);
        node(p).tasks.push_back(receive);
      }
      next[p] = accumulators(t, k + 1, p);
      const auto send = [&](std::size_t j) {
        if (j + 1 >= g) return;
        Task task = make_task(TaskKind::Send, label(t, k + 1, static_cast<std::uint32_t>(j)));
        task.buffer = pieces[p][j].buffer;
        task.message = message_index(p, pieces[p][j].process, t, k);
        node(p).tasks.push_back(task);
      };
      send(0);
      if (fft_phase(t, k + 1)) {  // one task reads every piece: all sends first
        for (std::size_t j = 1; j < g; ++j) send(j);
        received.push_back(pieces[p].back());
        fft_task(t, k + 1, p, received, next[p]);
        continue;
      }
      for (std::size_t j = 1; j < g; ++j) {
        send(j);
        accumulate(t, k + 1, p, received[j - 1], next[p], j == 1, static_cast<std::uint32_t>(j - 1));
      }
      accumulate(t, k + 1, p, pieces[p].back(), next[p], g == 1, static_cast<std::uint32_t>(g - 1));
    }
    return next;
  }

  // The piece of G[k] that process `from` makes for process `to`.
  DataTag piece_for(const Chain& c, std::size_t k, std::uint16_t kind, std::size_t from, std::size_t to) const {
    std::array<std::int32_t, 3> index = index_in(c.L[k], from);
    const int f = c.moved(k);
    if (f != no_factor) index[c.ax(k)] = static_cast<std::int32_t>(coords(to)[static_cast<std::size_t>(f)]);
    return {kind, index};
  }

  // Messages are created when first named (by a receive or a send) and looked up by their ends.
  std::uint32_t message_index(std::size_t from, std::size_t to, std::size_t t, std::size_t k) {
    const auto key = std::array<std::size_t, 4>{from, to, t, k};
    const auto it = messages_.find(key);
    if (it != messages_.end()) return it->second;
    const Chain& c = chain(t);
    const DataTag tag = piece_for(c, k, piece_kinds_[t][k], from, to);
    const std::size_t a = plan_.node_of[from], b = plan_.node_of[to];
    const std::uint32_t id = program_.add_message(a, b, plan_.route(a, b), program_.words_of(tag), tag);
    messages_.emplace(key, id);
    return id;
  }
  const TransposePlan& plan_;
  const TransformProblem& problem_;
  Program program_;
  Chain forward_, inverse_;
  std::uint16_t input_kind_ = 0;
  std::vector<std::uint32_t> coefficient_buffer_;
  std::vector<std::vector<SlabPiece>> current_;  // per process: the pieces the next phase reads, in order
  std::vector<std::array<std::uint16_t, 3>> piece_kinds_;  // per transform and phase
  std::vector<std::array<std::uint16_t, 3>> coefficient_kinds_, matrices_;
  std::map<std::array<std::size_t, 4>, std::uint32_t> messages_;
};

}  // namespace

std::size_t ring_partner(const TransposePlan& plan, std::size_t process, int factor, std::size_t j, int toward) {
  const std::size_t group = factor == 0 ? plan.pr : plan.pc;
  std::array<std::size_t, 2> c{process / plan.pc, process % plan.pc};
  auto& coordinate = c[static_cast<std::size_t>(factor)];
  coordinate = toward > 0 ? (coordinate + j) % group : (coordinate + group - j % group) % group;
  return c[0] * plan.pc + c[1];
}

Program build_transpose_program(const TransposePlan& plan, const TransformProblem& problem) {
  return TransposeBuilder(plan, problem).build();
}

}  // namespace torus
