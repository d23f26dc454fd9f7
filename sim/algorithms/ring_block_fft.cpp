// The orbital-fair form of the ring transpose ("FFT for the APE Parallel Computer", Lippert et
// al.) on a P1 x P2 x P3 torus whose nodes hold the b1 x b2 x b3 blocks of seed 000's layout
// (block (q,r,s) on node (q,r,s), in and out, so it takes orbital's inputs and gives its
// layout back). For each axis a in seed 000's stage order (forward 3, 1, 2; the inverse the
// reverse): within each ring along a, an all-to-all transpose gives each ring node all N_a
// elements of its share of the ring's cross-section lines (sim/algorithms/ring_block_plan.hpp),
// the node transforms them locally (one FFT task, or dense mode products with
// `local_kernel: dense`), and the transpose back returns every piece to the node whose block
// holds it. At step j of each transpose a node sends to the ring node j places on (the ring
// partner rule of ring_partner), by the shortest route round the ring (sim/geometry.hpp).
//
// Messages carry one whole buffer and an FFT task reads and writes slices along one axis, so
// pieces are cut finely enough to nest (ring_block_plan.hpp): the local transform of axis a
// writes slices along a, each exactly one piece the next axis's transpose sends whole, and the
// first transpose's pieces are loaded as they are. Each node so ends with its block in several
// buffers; rather than add a copy task (a time the machine does not spend: a node addresses
// its pieces where they landed), the outputs list (node, buffer, tag) entries
// (ProgramOutput::node). The next transform of a round trip starts from those pieces.
//
// This file builds the Program; the registered algorithm and its check of the outputs are in
// sim/algorithms/ring_block_algorithm.cpp.

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "sim/algorithms/local_transform.hpp"
#include "sim/algorithms/ring_block_plan.hpp"

namespace torus {
namespace {

struct RingPiece {
  std::uint32_t buffer = no_buffer;
  DataTag tag;
};

class RingBlockBuilder {
 public:
  RingBlockBuilder(const RingBlockPlan& plan, const TransformProblem& problem) : plan_(plan), problem_(problem) {}

  Program build() {
    declare();
    for (std::size_t t = 0; t < problem_.directions.size(); ++t) emit_transform(t);
    // Every receive is posted once the inputs are loaded: each piece has a buffer of its own,
    // so nothing it lands in is still in use, and no message waits in a link's buffer for a
    // node still busy with an earlier phase (blocking the words behind it on that link).
    for (std::size_t node = 0; node < program_.nodes.size(); ++node) {
      auto& tasks = program_.nodes[node].tasks;
      tasks.insert(tasks.begin() + static_cast<std::ptrdiff_t>(loads_[node]), receives_[node].begin(), receives_[node].end());
    }
    return std::move(program_);
  }

 private:
  const TorusShape& shape() const { return problem_.shape; }
  Extents3 n() const { return problem_.grid.tensor_extents(); }
  bool forward(std::size_t t) const { return problem_.directions[t] == TransformDirection::Forward; }
  std::array<int, 3> axes(std::size_t t) const {
    const auto& o = plan_.order;
    return forward(t) ? o : std::array<int, 3>{o[2], o[1], o[0]};
  }
  const BlockGrid& cut_of(std::uint16_t kind) const { return *program_.tag_kinds[kind].cut; }
  // Coordinate x of a node, and the node of a ring along a at position `at`.
  static int coordinate(const NodeCoord& c, std::size_t x) { return x == 0 ? c.q : x == 1 ? c.r : c.s; }
  std::size_t ring_node(std::size_t node, std::size_t a, std::size_t at) const {
    NodeCoord c = shape().coord_of(node);
    (a == 0 ? c.q : a == 1 ? c.r : c.s) = static_cast<int>(at);
    return shape().index_of(c);
  }

  // A tensor kind cut as `cut`, shared by transforms that name the same pieces.
  std::uint16_t kind(const std::string& name, const BlockGrid& cut) {
    for (std::size_t k = 0; k < program_.tag_kinds.size(); ++k)
      if (program_.tag_kinds[k].name == name && program_.tag_kinds[k].cut == cut) return static_cast<std::uint16_t>(k);
    program_.tag_kinds.push_back({name, 3, 0, cut});
    return static_cast<std::uint16_t>(program_.tag_kinds.size() - 1);
  }

  std::uint32_t add_buffer(std::size_t node, std::size_t words, std::uint16_t kind) {
    auto& buffers = program_.nodes[node].buffers;
    buffers.push_back({static_cast<std::uint32_t>(words), kind});
    return static_cast<std::uint32_t>(buffers.size() - 1);
  }

  void declare() {
    program_.algorithm = "ring_block_fft";
    program_.byte_budget = problem_.max_program_bytes;
    program_.shape = shape();
    program_.coefficients_local = true;
    std::string dirs, shares;
    // Joined with fmt, not a literal + std::string: with the builder inlined into its one caller,
    // GCC 12 warns falsely on the latter (-Wrestrict); so also the coefficient names in dense().
    for (const TransformDirection d : problem_.directions) {
      program_.transforms.push_back(to_string(d));
      dirs += fmt::format("{}{}", dirs.empty() ? "" : "+", to_string(d));
    }
    for (std::size_t a = 0; a < 3; ++a)
      shares += fmt::format("{}{}x{}x{}", a == 0 ? "" : ", ", plan_.split[a][0], plan_.split[a][1], plan_.split[a][2]);
    program_.grid = problem_.grid;  // the nodes' blocks (what `link_buffer_words: auto` doubles, as for orbital)
    program_.description = fmt::format(
        "ring transpose per axis on b^3 blocks (Lippert et al., FFT for the APE Parallel Computer; seed 000's layout), "
        "N={} on {}x{}x{} nodes, b={}, ring shares {}, {}",
        extents_text(n()), shape().p1, shape().p2, shape().p3, problem_.grid.describe_blocks(), shares, dirs);
    program_.nodes.assign(shape().node_count(), NodeProgram{});
    program_.host_arrays.push_back({"input", false, 0, 0, plan_.pieces(axes(0), 0, n()), 0, true});  // loaded as the first pieces
    held_.assign(shape().node_count(), {});
    receives_.assign(shape().node_count(), {});
    lines_.assign(shape().node_count(), {});
    loads_.assign(shape().node_count(), 0);
    coefficient_buffer_.assign(shape().node_count(), no_buffer);
  }

  // One step per stage (phase): its sends, local transform and sends back.
  static TaskLabel label(std::size_t t, std::size_t k) {
    return {static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(k + 1), 0, static_cast<std::uint32_t>(3 * t + k)};
  }

  void emit_transform(std::size_t t) {
    const std::array<int, 3> ax = axes(t);
    const std::string from = forward(t) ? "X" : "Y", to = forward(t) ? "Y" : "X";
    std::array<std::uint16_t, 4> kinds{};
    for (std::size_t k = 0; k < 4; ++k)
      kinds[k] = kind(k == 0 ? from : k == 3 ? to : from + std::string(k, '\''), plan_.pieces(ax, k, n()));
    for (std::size_t k = 0; k < 3; ++k)
      program_.stages.push_back({static_cast<std::uint32_t>(t), static_cast<std::uint32_t>(k + 1), ax[k],
                                 fmt::format("axis {0}: transpose within the rings along {0}, local transforms, transpose back", ax[k]),
                                 1});
    if (t == 0) load_inputs(kinds[0]);
    for (std::size_t k = 0; k < 3; ++k) {
      next_.assign(shape().node_count(), {});
      for (std::size_t node = 0; node < shape().node_count(); ++node) emit_phase(t, k, kinds[k], kinds[k + 1], node);
      held_ = std::move(next_);
    }
    ProgramOutput output{to_string(problem_.directions[t]), static_cast<std::uint32_t>(t), 3, {}, {}, {}};
    for (std::size_t node = 0; node < held_.size(); ++node)
      for (const RingPiece& piece : held_[node]) {
        output.buffer.push_back(piece.buffer);
        output.tag.push_back(piece.tag);
        output.node.push_back(static_cast<std::uint32_t>(node));
      }
    program_.outputs.push_back(std::move(output));
  }

  // The pieces of `cut` inside node's block, in index order (axis 1 fastest).
  std::vector<DataTag> pieces_of(std::size_t node, std::uint16_t kind) const {
    const BlockGrid& cut = cut_of(kind);
    const NodeCoord c = shape().coord_of(node);
    std::array<std::size_t, 3> per{};
    for (std::size_t x = 0; x < 3; ++x) per[x] = cut.axis[x].parts / plan_.p[x];
    std::vector<DataTag> out;
    for (std::size_t k = 0; k < per[2]; ++k)
      for (std::size_t j = 0; j < per[1]; ++j)
        for (std::size_t i = 0; i < per[0]; ++i) {
          const std::array<std::size_t, 3> sub{i, j, k};
          DataTag tag{kind, {}};
          for (std::size_t x = 0; x < 3; ++x)
            tag.index[x] = static_cast<std::int32_t>(static_cast<std::size_t>(coordinate(c, x)) * per[x] + sub[x]);
          out.push_back(tag);
        }
    return out;
  }

  void load_inputs(std::uint16_t kind) {
    for (std::size_t node = 0; node < shape().node_count(); ++node)
      for (const DataTag& tag : pieces_of(node, kind)) {
        Task load = make_task(TaskKind::Load, label(0, 0));
        load.buffer = add_buffer(node, program_.words_of(tag), kind);
        TaskDetail d;
        d.tag = tag;
        d.source = {0, tag.index};
        program_.nodes[node].add(load, d);
        held_[node].push_back({load.buffer, tag});
        ++loads_[node];
      }
  }

  // The ring position whose share of the cross-section (of the rings along a) holds this piece.
  std::size_t share_of(const DataTag& tag, std::size_t a) const {
    std::size_t position = 0;
    for (std::size_t x = 0; x < 3; ++x)
      if (x != a) position = position * plan_.split[a][x] + static_cast<std::size_t>(tag.index[x]) % plan_.split[a][x];
    return position;
  }

  // The pieces of kind `kind` that ring position `at` (of node's ring along a) transforms: its
  // share of the cross-section (pieces cut the other axes as the ring shares them, so one piece
  // across), every slice along a in order.
  std::vector<DataTag> lines_of(std::size_t node, std::size_t a, std::size_t at, std::uint16_t kind) const {
    const BlockGrid& cut = cut_of(kind);
    const NodeCoord c = shape().coord_of(node);
    DataTag share{kind, {}};
    std::size_t rest = at;
    for (std::size_t x = 3; x-- > 0;) {  // share_of's position, last axis fastest
      if (x == a) continue;
      const std::size_t count = plan_.split[a][x];
      share.index[x] = static_cast<std::int32_t>(static_cast<std::size_t>(coordinate(c, x)) * count + rest % count);
      rest /= count;
    }
    std::vector<DataTag> out;
    for (std::size_t i = 0; i < cut.axis[a].parts; ++i) {
      share.index[a] = static_cast<std::int32_t>(i);
      out.push_back(share);
    }
    return out;
  }

  // The owner (ring position) of a piece: the node whose block holds its slice along a.
  std::size_t owner_of(const DataTag& tag, std::size_t a) const {
    return static_cast<std::size_t>(tag.index[a]) / (cut_of(tag.kind).axis[a].parts / plan_.p[a]);
  }

  // Phase k on one node: receives for its lines' pieces and for its own pieces coming back,
  // its pieces out to the ring nodes that transform them (step j: j places on), the local
  // transform, and the results out to their owners, again j places on at step j.
  // A round trip's inverse starts from the lines each node transformed last: its first
  // transpose would bring back to every ring node exactly those, which it still holds. (Also
  // what keeps the run live: a node forwards a piece it has not yet received whole, and such a
  // message, once it holds a link, waits for words on the same links - the last transpose back
  // and the next transpose along one axis would wait on each other.)
  void emit_phase(std::size_t t, std::size_t k, std::uint16_t in_kind, std::uint16_t out_kind, std::size_t node) {
    const auto a = static_cast<std::size_t>(axes(t)[k] - 1);
    const std::size_t p = plan_.p[a], at = static_cast<std::size_t>(coordinate(shape().coord_of(node), a));
    const bool chained = t > 0 && k == 0;
    std::vector<RingPiece> inputs = chained ? lines_[node] : std::vector<RingPiece>{}, outputs;
    for (const DataTag& tag : chained ? std::vector<DataTag>{} : lines_of(node, a, at, in_kind)) {
      if (owner_of(tag, a) == at) continue;
      inputs.push_back({add_buffer(node, program_.words_of(tag), in_kind), tag});
      receive(t, k, false, ring_node(node, a, owner_of(tag, a)), node, inputs.back());
    }
    for (std::size_t j = 1; j < p; ++j)  // my pieces of the ring node j places back, after its transform
      for (DataTag tag : lines_of(node, a, (at + p - j) % p, out_kind))
        if (owner_of(tag, a) == at) {
          next_[node].push_back({add_buffer(node, program_.words_of(tag), out_kind), tag});
          receive(t, k, true, ring_node(node, a, (at + p - j) % p), node, next_[node].back());
        }
    for (std::size_t j = 1; j < p && !chained; ++j)
      for (const RingPiece& piece : held_[node])
        if (share_of(piece.tag, a) == (at + j) % p)
          send(t, k, false, node, ring_node(node, a, (at + j) % p), piece, label(t, k));
    for (const RingPiece& piece : held_[node])
      if (share_of(piece.tag, a) == at && !chained) inputs.push_back(piece);
    for (const DataTag& tag : lines_of(node, a, at, out_kind)) outputs.push_back({add_buffer(node, program_.words_of(tag), out_kind), tag});
    const auto along = [a](const RingPiece& x, const RingPiece& y) { return x.tag.index[a] < y.tag.index[a]; };
    std::sort(inputs.begin(), inputs.end(), along);
    if (fft_phase(t, a)) fft(t, k, a, node, inputs, outputs);
    else dense(t, k, a, node, inputs, outputs, at);
    for (std::size_t j = 1; j < p; ++j)
      for (const RingPiece& piece : outputs)
        if (owner_of(piece.tag, a) == (at + j) % p) send(t, k, true, node, ring_node(node, a, (at + j) % p), piece, label(t, k));
    for (const RingPiece& piece : outputs)
      if (owner_of(piece.tag, a) == at) next_[node].push_back(piece);
    lines_[node] = std::move(outputs);
  }

  // Whether axis a's local transform is an FFT task: local_kernel fft or auto and the axis a
  // DFT of power-of-two length (the pieces cut it evenly: blocks are of one size).
  bool fft_phase(std::size_t t, std::size_t a) const {
    if (problem_.local_kernel == "dense") return false;
    if (!problem_.axes[a].fft && problem_.local_kernel == "fft")
      throw std::invalid_argument(fmt::format("local_kernel: 'fft' is not allowed for axis {} here (N = {}, transform {}); "
                                              "allowed: auto or dense, or a DFT of power-of-two length",
                                              a + 1, n()[a], to_string(problem_.directions[t])));
    return problem_.axes[a].fft;
  }

  void fft(std::size_t t, std::size_t k, std::size_t a, std::size_t node, const std::vector<RingPiece>& in,
           const std::vector<RingPiece>& out) {
    FftSpec spec;
    spec.axis = static_cast<int>(a + 1);
    spec.whole = program_.extents_of(in.front().tag);
    spec.whole[a] = n()[a];
    spec.input_cut = spec.output_cut = spec.axis;
    spec.inverse = !forward(t);
    spec.scale = forward(t) ? problem_.axes[a].forward_scale : problem_.axes[a].inverse_scale;
    std::vector<std::uint32_t> inputs, outputs;
    for (const RingPiece& piece : in) inputs.push_back(piece.buffer);
    for (const RingPiece& piece : out) outputs.push_back(piece.buffer);
    add_fft_task(program_, program_.nodes[node], label(t, k), spec, inputs,
                 in.front().tag, outputs, out.front().tag);
  }

  // The local transform as mode products: every output piece sums every input piece times the
  // coefficient block of their rows and columns, the node's own pieces first (they need no
  // message), then the others by the order they were sent in.
  void dense(std::size_t t, std::size_t k, std::size_t a, std::size_t node, std::vector<RingPiece> in, const std::vector<RingPiece>& out,
             std::size_t at) {
    const std::size_t p = plan_.p[a];
    const auto order = [&](const RingPiece& x) { return (owner_of(x.tag, a) + p - at) % p; };
    std::stable_sort(in.begin(), in.end(), [&](const RingPiece& x, const RingPiece& y) { return order(x) < order(y); });
    const std::string name = fmt::format("{}{}", forward(t) ? "C" : "D", a + 1);
    const AxisSplit rows{n()[a], cut_of(in.front().tag.kind).axis[a].parts}, cols{n()[a], cut_of(out.front().tag.kind).axis[a].parts};
    const BlockGrid rows_cols{{rows, cols, AxisSplit{1, 1}}};
    auto [it, fresh] = matrices_.try_emplace({t, k}, std::pair<std::uint16_t, std::uint16_t>{});
    if (fresh) {
      program_.tag_kinds.push_back({name, 2, static_cast<int>(a + 1), rows_cols});
      it->second = {static_cast<std::uint16_t>(program_.tag_kinds.size() - 1), static_cast<std::uint16_t>(program_.host_arrays.size())};
      program_.host_arrays.push_back({to_string(problem_.directions[t]) + " " + name, true, static_cast<int>(a + 1), t, rows_cols, 0, false});
    }
    for (std::size_t i = 0; i < in.size(); ++i)
      for (const RingPiece& acc : out) {
        const DataTag coefficient{it->second.first, {in[i].tag.index[a], acc.tag.index[a], 0}};
        add_mode_product(program_, program_.nodes[node], label(t, k),
                         {static_cast<int>(a + 1), acc.buffer, in[i].buffer, coefficient_buffer(node, coefficient),
                          acc.tag, in[i].tag, coefficient, it->second.second, i == 0});
      }
  }

  // One coefficient buffer per node, as large as the largest block any of its products loads.
  std::uint32_t coefficient_buffer(std::size_t node, const DataTag& coefficient) {
    const std::size_t words = program_.words_of(coefficient);
    std::uint32_t& b = coefficient_buffer_[node];
    if (b == no_buffer) b = add_buffer(node, words, coefficient.kind);
    auto& spec = program_.nodes[node].buffers[b];
    spec.words = std::max<std::uint32_t>(spec.words, static_cast<std::uint32_t>(words));
    return b;
  }

  // Messages are made when first named (by the receive or the send) and found by their piece.
  std::uint32_t message(std::size_t t, std::size_t k, bool back, std::size_t from, std::size_t to, const DataTag& tag) {
    const auto key = std::make_tuple(t, k, back, tag);
    const auto found = messages_.find(key);
    if (found != messages_.end()) return found->second;
    const std::uint32_t id = program_.add_message(
        from, to, shortest_route(shape(), shape().coord_of(from), shape().coord_of(to)), program_.words_of(tag), tag);
    messages_.emplace(key, id);
    return id;
  }
  void receive(std::size_t t, std::size_t k, bool back, std::size_t from, std::size_t to, const RingPiece& piece) {
    Task task = make_task(TaskKind::Receive, label(0, 0));  // posted at the start (build())
    task.buffer = piece.buffer;
    task.message = message(t, k, back, from, to, piece.tag);
    receives_[to].push_back(task);
  }
  void send(std::size_t t, std::size_t k, bool back, std::size_t from, std::size_t to, const RingPiece& piece, const TaskLabel& l) {
    Task task = make_task(TaskKind::Send, l);
    task.buffer = piece.buffer;
    task.message = message(t, k, back, from, to, piece.tag);
    program_.nodes[from].tasks.push_back(task);
  }

  const RingBlockPlan& plan_;
  const TransformProblem& problem_;
  Program program_;
  std::vector<std::vector<RingPiece>> held_, next_;  // per node: the pieces the phase reads / the next one will
  std::vector<std::vector<RingPiece>> lines_;        // per node: what its last local transform wrote
  std::vector<std::uint32_t> coefficient_buffer_;
  std::vector<std::vector<Task>> receives_;  // per node, every receive of the Program
  std::vector<std::size_t> loads_;           // per node, the input loads before them
  std::map<std::pair<std::size_t, std::size_t>, std::pair<std::uint16_t, std::uint16_t>> matrices_;  // (t, k): kind, host array
  std::map<std::tuple<std::size_t, std::size_t, bool, DataTag>, std::uint32_t> messages_;
};

}  // namespace

Program build_ring_block_program(const RingBlockPlan& plan, const TransformProblem& problem) {
  return RingBlockBuilder(plan, problem).build();
}

}  // namespace torus
