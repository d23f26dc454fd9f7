#pragma once
// The Program: the contract between algorithms and engines. For every node, an ordered list
// of tasks over the node's own buffers:
//   load     the host places a block of one of its arrays in a buffer (no time, no links);
//   compute  a named block kernel: accumulator (+)= operand x coefficient (b^4 fma for b x b x b blocks);
//   send     a buffer to another node by a route of one or more hops (a message);
//   receive  which buffer a message fills (or none: the words are taken and dropped);
//   fft      a local radix-2 FFT of lines from input buffers into output buffers (FftSpec).
// Stages and steps are labels for reports; no engine knows what they mean. An algorithm
// builds a Program once per run (sim/algorithms/), the generic verifier checks it
// (sim/program_verifier.hpp) and any engine runs it. The meaning of the task order, and so
// what an engine may overlap, is defined in docs/timing-model.md ("Programs").

#include <array>
#include <iosfwd>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "sim/block_grid.hpp"
#include "sim/geometry.hpp"

namespace torus {

// What a buffer holds, for checks and diagnostics: a kind declared by the Program (its name,
// e.g. "X'" or "C3", and how many indices it prints) and up to three block indices.
struct DataTag {
  std::uint16_t kind = 0;
  std::array<std::int32_t, 3> index{0, 0, 0};
  friend bool operator==(const DataTag&, const DataTag&) = default;
  friend auto operator<=>(const DataTag&, const DataTag&) = default;
};

struct TagKind {
  std::string name;
  int dimensions = 3;  // indices printed: 3 for tensor blocks, 2 for coefficient blocks
  int axis = 0;        // coefficient blocks: the axis (1..3) whose matrix they cut; 0 for tensor blocks
  // Blocks of an array cut its own way (the operands of a matrix product), not by Program::grid.
  std::optional<BlockGrid> cut;
};

inline constexpr std::uint32_t no_buffer = std::numeric_limits<std::uint32_t>::max();

// A named block kernel, a mode product: acc += operand x_mode coef, where acc and operand agree
// on the two axes the mode does not contract and coef is operand[m] x acc[m] (m = mode - 1,
// stored input + operand[m] * output). Every accumulator word is updated operand[m] times.
// With b x b x b blocks: b^4 multiply-adds, b updates per word.
struct KernelSpec {
  std::string name;  // "mode1", "mode2", "mode3"; with blocks of several sizes the extents too
  int mode = 1;      // 1..3
  Extents3 accumulator{1, 1, 1};
  Extents3 operand{1, 1, 1};
  std::size_t reduction() const { return operand[static_cast<std::size_t>(mode - 1)]; }
  std::size_t accumulator_words() const { return accumulator[0] * accumulator[1] * accumulator[2]; }
  std::size_t operand_words() const { return operand[0] * operand[1] * operand[2]; }
  std::size_t coefficient_words() const { return reduction() * accumulator[static_cast<std::size_t>(mode - 1)]; }
  std::size_t multiply_adds() const { return accumulator_words() * reduction(); }
  friend bool operator==(const KernelSpec&, const KernelSpec&) = default;
};
// The b x b x b kernel of mode `mode`, named "mode1" .. "mode3".
KernelSpec cube_kernel(int mode, std::size_t b);

// A local fast Fourier transform (task kind Fft): every line along `axis` of a working array
// of extents `whole` is transformed by a radix-2 FFT (length a power of two). The array's
// words come from `inputs` consecutive buffers, the array cut into equal slices along
// `input_cut`, and go to `outputs` consecutive buffers cut along `output_cut`, so a node can
// transform lines whose pieces arrived in several messages and hand the result out in pieces
// for several destinations. One input and one output may be the same buffer (in place).
// Timing (passes, fma per butterfly) is in docs/timing-model.md ("FFT tasks").
struct FftSpec {
  std::string name;            // e.g. "fft3 64x8x64"
  int axis = 1;                // 1..3
  Extents3 whole{1, 1, 1};
  int input_cut = 1;           // 1..3
  std::uint32_t inputs = 1;    // divides whole[input_cut - 1]
  int output_cut = 1;          // 1..3
  std::uint32_t outputs = 1;   // divides whole[output_cut - 1]
  bool inverse = false;        // sign +i (the inverse DFT) instead of -i
  double scale = 1;            // every output word is multiplied by it (the transform's normalisation)
  std::size_t length() const { return whole[static_cast<std::size_t>(axis - 1)]; }
  std::size_t words() const { return whole[0] * whole[1] * whole[2]; }
  std::size_t lines() const { return words() / length(); }
  std::size_t passes() const;        // log2(length)
  std::size_t butterflies() const;   // lines * length / 2 * passes
  Extents3 input_extents() const;    // one input buffer's block
  Extents3 output_extents() const;   // one output buffer's block
  friend bool operator==(const FftSpec&, const FftSpec&) = default;
};

// A block of one of the host's arrays: array index into Program::host_arrays, block coordinates.
struct HostBlock {
  std::uint16_t array = 0;
  std::array<std::int32_t, 3> index{0, 0, 0};
};

// A host array: the input tensor or a coefficient matrix, named for diagnostics. Engines get
// the values from the run (sim/run_inputs.hpp); the Program only says which block goes where.
struct HostArray {
  std::string name;       // "input", "forward C1", ...
  bool matrix = false;    // a block of an N_a x N_a matrix (cut like axis a), else a block of the tensor
  int axis = 0;           // matrices: 1..3
  std::size_t transform = 0;  // matrices: which transform of the run they serve
  // Set: a block of the host's operand `operand` (HostData::operands), cut this way (the
  // factors of a matrix product); `matrix` and `axis` are then unused. For a matrix: its rows
  // are cut as cut->axis[0] and its columns as cut->axis[1] instead of like axis `axis`.
  std::optional<BlockGrid> cut;
  std::size_t operand = 0;
  // With `cut` and not `matrix`: a block of the input tensor cut this way (an algorithm that
  // loads pieces finer than the nodes' blocks, Program::grid), instead of an operand.
  bool input_pieces = false;
};

// Report labels carried by every task, narrow so that a task list stays small (a Program with
// 65,536 transforms or stages would be refused by the constructor, naming the limit).
struct TaskLabel {
  std::uint16_t transform = 0;
  std::uint16_t stage = 1;        // 1..3
  std::uint32_t step = 0;         // step within the stage
  std::uint32_t global_step = 0;  // steps of all transforms counted in order
  TaskLabel() = default;
  TaskLabel(std::size_t transform, std::size_t stage, std::size_t step, std::size_t global_step);
};

enum class TaskKind : std::uint8_t { Load, Compute, Send, Receive, Fft };
std::string to_string(TaskKind kind);

inline constexpr std::uint32_t no_detail = std::numeric_limits<std::uint32_t>::max();

// What only load, compute and FFT tasks use, kept beside the task list (NodeProgram::details)
// so that sends and receives, most of a Program's tasks, stay small.
struct TaskDetail {
  DataTag tag;                            // load: what is loaded; compute: the accumulator's block;
                                          // fft: the first output's (output i: index[output_cut - 1] + i)
  DataTag operand_tag, coefficient_tag;   // compute: the blocks it reads; fft: operand_tag is the
                                          // first input's (input i: index[input_cut - 1] + i)
  HostBlock source;                       // load
  std::uint32_t operand = no_buffer;      // compute; fft: first input (fft_input)
  std::uint32_t coefficient = no_buffer;  // compute
  std::uint32_t kernel = 0;               // compute: index into Program::kernels; fft: into Program::ffts
  // fft: where its input buffers, then its output buffers, are listed in
  // NodeProgram::buffer_lists; no_buffer: they are consecutive from `operand` and `buffer`.
  std::uint32_t list = no_buffer;
};

// One task of a node's list (28 bytes): its kind, labels and buffer, and where the rest is: a
// send's or receive's message, or a load's, compute's or FFT's detail record.
struct Task {
  TaskLabel label;
  TaskKind kind = TaskKind::Compute;
  bool zero_accumulator = false;          // compute: the accumulator starts at zero (and gets `tag`)
  std::uint32_t buffer = no_buffer;  // load/send/receive: the buffer; compute: the accumulator; fft: first output (fft_output)
  std::uint32_t message = 0;         // send/receive: index into Program::messages
  std::uint32_t detail = no_detail;  // load/compute/fft: index into NodeProgram::details
};
// An FFT task's i-th input (or output) tag: the first one's, index moved by i along the cut.
inline DataTag slice_tag(DataTag first, int cut, std::uint32_t i) {
  first.index[static_cast<std::size_t>(cut - 1)] += static_cast<std::int32_t>(i);
  return first;
}
inline Task make_task(TaskKind kind, const TaskLabel& label) {
  Task task;
  task.kind = kind;
  task.label = label;
  return task;
}

// One message: the words of a buffer from `source` to `destination`, hop by hop along its route
// (a chain of neighbouring nodes; one hop for a roll), `hops` directions from `route_begin` in
// Program::routes (Program::route gives them).
struct Message {
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  std::uint32_t route_begin = 0;
  std::uint32_t hops = 0;
  std::uint32_t words = 0;
  DataTag tag;  // the block it carries
};

struct BufferSpec {
  std::uint32_t words = 0;
  std::uint16_t kind = 0;  // the tag kind it is meant for (memory accounting, diagnostics)
};

struct NodeProgram {
  std::vector<BufferSpec> buffers;
  std::vector<Task> tasks;
  std::vector<TaskDetail> details;          // of load, compute and fft tasks (Task::detail)
  std::vector<std::uint32_t> buffer_lists;  // the buffers of FFT tasks that list theirs (TaskDetail::list)
  const TaskDetail& detail(const Task& task) const { return details[task.detail]; }
  TaskDetail& detail(const Task& task) { return details[task.detail]; }
  // Appends a task; a load, compute or fft task with its detail (which a send or receive ignores).
  void add(const Task& task) { tasks.push_back(task); }
  void add(Task task, const TaskDetail& detail);
  void shrink_to_fit();  // after generation: lists grew by doubling
};

// The buffer of an FFT task's input i and output i (FftSpec `f` its spec).
inline std::uint32_t fft_input(const NodeProgram& node, const Task& task, std::uint32_t i) {
  const TaskDetail& d = node.detail(task);
  return d.list == no_buffer ? d.operand + i : node.buffer_lists[d.list + i];
}
inline std::uint32_t fft_output(const NodeProgram& node, const Task& task, const FftSpec& f, std::uint32_t i) {
  const TaskDetail& d = node.detail(task);
  return d.list == no_buffer ? task.buffer + i : node.buffer_lists[d.list + f.inputs + i];
}

// A named set of blocks the Program promises at its end: entries (buffer[i], tag[i]), by
// default one per node (entry i on node i). A Program whose nodes end with their share of the
// result in several buffers (a block whose pieces came back from several nodes, no copy task
// to join them) lists the node of each entry in `node` instead, as many entries as it needs.
struct ProgramOutput {
  std::string name;            // "forward", "forward stage I", ...
  std::uint32_t transform = 0;
  std::uint32_t stage = 3;     // the stage that produced it
  std::vector<std::uint32_t> buffer;  // per entry
  std::vector<DataTag> tag;           // per entry
  std::vector<std::uint32_t> node;    // per entry, or empty: entry i is node i's
  std::size_t entries() const { return buffer.size(); }
  std::size_t node_of(std::size_t entry) const { return node.empty() ? entry : node[entry]; }
};

// What a stage label means, for reports.
struct StageInfo {
  std::uint32_t transform = 0;
  std::uint32_t stage = 1;
  int mode = 1;
  std::string summary;  // e.g. "n3 -> k3: X'(Q,R,k) += X(Q,R,S) x3 C3(S,k)"
  std::uint32_t steps = 0;
};

// What tells one node of a translation quotient from another when values are computed: the
// host blocks its loads take (in the order of the quotient's load tasks) and the blocks its
// outputs hold (in Program::outputs order). The quotient itself carries block kinds only.
struct QuotientNodeBlocks {
  std::vector<HostBlock> loads;
  std::vector<DataTag> outputs;
};

struct Program {
  std::string algorithm;      // the generator's registered name
  std::string description;    // one line: problem and parameters
  TorusShape shape;
  BlockGrid grid;  // how the tensor (and each axis's matrix) is cut into blocks
  std::vector<TagKind> tag_kinds;
  std::vector<KernelSpec> kernels;
  std::vector<FftSpec> ffts;
  std::vector<HostArray> host_arrays;
  std::vector<Message> messages;
  std::vector<Direction> routes;   // the messages' routes, one after another (Message::route_begin)
  std::vector<NodeProgram> nodes;  // indexed like TorusShape::index_of
  std::vector<ProgramOutput> outputs;
  std::vector<StageInfo> stages;   // in order; global steps run through them
  std::vector<std::string> transforms;  // per transform: "forward" or "inverse"
  // A translation quotient stands for a Program in which every node of `shape` runs the same
  // task list with the same messages in the same directions (only block indices differ):
  // `nodes` holds that one list, every message goes from node 0 to node 0 (its route is the one
  // each node's copy takes to its neighbour, whose copy arrives here in turn) and tags carry
  // block kinds only. On a uniform machine every node then sees the same cycles, so an engine
  // may time the one node and count it shape.node_count() times. It carries no values.
  bool translation_quotient = false;
  // Each node generates the coefficient blocks it needs from a table of its own (its loads of
  // coefficient blocks stand for that generation: no links, no time), so none is ever sent.
  bool coefficients_local = false;
  // While the Program is built: refuse to grow past this many bytes (bytes() below; 0: no
  // limit), so that a problem whose Program would not fit is refused while it is built rather
  // than by the system running out of memory. Looked at every few thousand messages.
  std::size_t byte_budget = 0;

  std::size_t node_count() const { return nodes.size(); }
  // A message's route, and a new message (its index) with its route appended to `routes`.
  std::span<const Direction> route(const Message& m) const { return {routes.data() + m.route_begin, m.hops}; }
  std::span<Direction> route(const Message& m) { return {routes.data() + m.route_begin, m.hops}; }
  // Throws std::invalid_argument when the Program has grown past byte_budget.
  std::uint32_t add_message(std::size_t source, std::size_t destination, std::span<const Direction> route,
                            std::size_t words, const DataTag& tag);
  void shrink_to_fit();  // after generation: messages, routes and every node's lists
  std::size_t nodes_represented() const { return translation_quotient ? shape.node_count() : nodes.size(); }
  std::string describe(const DataTag& tag) const;  // "X'(0,1,2)", "C3(2,1)"
  // The extents of the block a tag names (a coefficient block: rows x columns x 1) and its words.
  Extents3 extents_of(const DataTag& tag) const;
  std::size_t words_of(const DataTag& tag) const;
  // The first element of the block a tag names, in its array (tensor or matrix).
  Extents3 origin_of(const DataTag& tag) const;
  // How a matrix array's rows and columns are cut into blocks.
  std::pair<AxisSplit, AxisSplit> matrix_splits(const HostArray& array) const;
  // Words of the largest block of any kind the Program cuts its own way, or of the tensor
  // (what `link_buffer_words: auto` doubles).
  std::size_t largest_block_words() const;
  // The extents of a block of a host array (a load's source).
  Extents3 host_block_extents(const HostBlock& block) const;
  // The index of the mode product with these extents, added (and named) when new.
  std::uint32_t kernel_for(int mode, const Extents3& accumulator, const Extents3& operand);
  std::string describe_node(std::size_t node) const;  // "(q,r,s)"
  std::size_t global_steps() const;
  const ProgramOutput* output(const std::string& name) const;  // nullptr when absent

 private:
  void check_budget() const;
  std::uint32_t unchecked_messages_ = 0;  // added since the budget was last looked at
};

// Counts read off a Program (no arithmetic), per transform: what the paper's complexity
// analysis derives for the orbital schedule, and what any algorithm can be asked.
struct ProgramCounts {
  std::size_t steps = 0;                // distinct step labels
  std::size_t compute_tasks = 0;        // block multiply-adds
  std::size_t scalar_multiply_adds = 0; // per mode product its kernel's (b^4 for b x b x b blocks)
  std::size_t fft_tasks = 0;
  std::size_t fft_butterflies = 0;      // per FFT task lines x length/2 x passes
  std::array<std::size_t, 3> words_sent_per_node_step{};  // per stage, max over nodes and steps
  std::size_t words_held_per_node = 0;  // buffers declared, max over nodes
  std::size_t messages = 0;
  std::size_t hops = 0;                 // summed over messages
  std::size_t max_hops = 0;             // of one message (P_a - 1 for a roll the long way round a mesh axis)
};
ProgramCounts count(const Program& program, std::uint32_t transform);

// Words of one buffer of every kind a node declares (the largest of each kind), the most over
// nodes: the paper's 4b^3 + 3b^2 for the orbital schedule; the rest are second buffers.
std::size_t words_one_per_kind(const Program& program);

// Bytes the Program allocates (for the memory report).
std::size_t bytes(const Program& program);

std::string format_text(const Program& program);  // one line per task
nlohmann::json to_json(const Program& program);
// The same texts written as they are made (format_text, and to_json(program).dump(1) without
// its final newline), so that printing a large Program holds no second copy of it.
void write_text(std::ostream& out, const Program& program);
void write_json(std::ostream& out, const Program& program);

}  // namespace torus
