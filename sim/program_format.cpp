// A Program as text and as JSON (`torus-sim program`), for people and for tools.
#include "sim/program.hpp"

#include <sstream>
#include <ostream>
#include <map>
#include <functional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace torus {

namespace {

std::string buffer_name(const Program& program, const NodeProgram& node, std::uint32_t buffer) {
  if (buffer == no_buffer) return "(dropped)";
  const std::uint16_t kind = node.buffers[buffer].kind;
  const std::string name = kind < program.tag_kinds.size() ? program.tag_kinds[kind].name : "b";
  return fmt::format("b{}:{}", buffer, name);
}

std::string route_text(std::span<const Direction> route) {
  std::vector<std::string> hops;
  for (const Direction d : route) hops.push_back(to_string(d));
  return fmt::format("{}", fmt::join(hops, " "));
}

// "fft fft2 8x4x1 forward x1: X(0,0,0) [b0:X] -> Y(0,0,0) [b1:Y] .. Y(0,0,1) [b2:Y] (2 outputs along 3)"
std::string fft_text(const Program& program, const NodeProgram& node, const Task& task) {
  const TaskDetail& d = node.detail(task);
  const FftSpec& f = program.ffts[d.kernel];
  const auto range = [&](const auto& buffer_of, const DataTag& tag, int cut, std::uint32_t count) {
    std::string text = fmt::format("{} [{}]", program.describe(tag), buffer_name(program, node, buffer_of(0)));
    if (count > 1)
      text += fmt::format(" .. {} [{}] ({} along axis {})", program.describe(slice_tag(tag, cut, count - 1)),
                          buffer_name(program, node, buffer_of(count - 1)), count, cut);
    return text;
  };
  const auto input = [&](std::uint32_t i) { return fft_input(node, task, i); };
  const auto output = [&](std::uint32_t i) { return fft_output(node, task, f, i); };
  return fmt::format("fft {}: axis {} {}x{}x{} {} x{}: {} -> {}", f.name, f.axis, f.whole[0], f.whole[1], f.whole[2],
                     f.inverse ? "inverse" : "forward", f.scale, range(input, d.operand_tag, f.input_cut, f.inputs),
                     range(output, d.tag, f.output_cut, f.outputs));
}

std::string task_text(const Program& program, const NodeProgram& node, const Task& task) {
  switch (task.kind) {
    case TaskKind::Load: {
      const TaskDetail& d = node.detail(task);
      return fmt::format("load {} <- {} block ({},{},{}) as {}", buffer_name(program, node, task.buffer),
                         program.host_arrays[d.source.array].name, d.source.index[0], d.source.index[1],
                         d.source.index[2], program.describe(d.tag));
    }
    case TaskKind::Compute: {
      const TaskDetail& d = node.detail(task);
      return fmt::format("compute {}: {} {}= {} x {}", program.kernels[d.kernel].name, program.describe(d.tag),
                         task.zero_accumulator ? "" : "+", program.describe(d.operand_tag),
                         program.describe(d.coefficient_tag)) +
             fmt::format(" [{} {} {}]", buffer_name(program, node, task.buffer), buffer_name(program, node, d.operand),
                         buffer_name(program, node, d.coefficient));
    }
    case TaskKind::Send: {
      const Message& m = program.messages[task.message];
      return fmt::format("send {} {} to {} via {} (message {}, {} words)", buffer_name(program, node, task.buffer),
                         program.describe(m.tag), program.describe_node(m.destination), route_text(program.route(m)), task.message,
                         m.words);
    }
    case TaskKind::Receive: {
      const Message& m = program.messages[task.message];
      return fmt::format("receive {} {} from {} (message {})", buffer_name(program, node, task.buffer), program.describe(m.tag),
                         program.describe_node(m.source), task.message);
    }
    case TaskKind::Fft: return fft_text(program, node, task);
  }
  return "";
}

}  // namespace

std::string format_text(const Program& program) {
  std::ostringstream out;
  write_text(out, program);
  return out.str();
}

void write_text(std::ostream& out, const Program& program) {
  out << "program: " << program.description << "\n";
  out << "torus " << program.shape.p1 << "x" << program.shape.p2 << "x" << program.shape.p3 << ", blocks "
      << program.grid.describe_blocks() << ", "
      << program.node_count() << " nodes, " << program.messages.size() << " messages\n";
  for (const StageInfo& s : program.stages)
    out << "transform " << s.transform << " (" << program.transforms[s.transform] << ") stage " << s.stage << ": "
        << s.summary << ", " << s.steps << " steps\n";
  for (std::size_t n = 0; n < program.nodes.size(); ++n) {
    const NodeProgram& node = program.nodes[n];
    out << "node " << program.describe_node(n) << ": " << node.buffers.size() << " buffers, " << node.tasks.size()
        << " tasks\n";
    std::uint32_t step = ~0u;
    for (const Task& task : node.tasks) {
      if (task.label.global_step != step) {
        step = task.label.global_step;
        out << "  transform " << task.label.transform << " stage " << task.label.stage << " step " << task.label.step << "\n";
      }
      out << "    " << task_text(program, node, task) << "\n";
    }
  }
}

namespace {

nlohmann::json tag_json(const Program& program, const DataTag& tag) { return program.describe(tag); }

nlohmann::json task_json(const Program& program, const NodeProgram& node, const Task& task) {
  nlohmann::json j{{"kind", to_string(task.kind)},
                   {"transform", task.label.transform},
                   {"stage", task.label.stage},
                   {"step", task.label.step}};
  switch (task.kind) {
    case TaskKind::Load: {
      const TaskDetail& d = node.detail(task);
      j["buffer"] = task.buffer;
      j["block"] = tag_json(program, d.tag);
      j["source"] = {{"array", program.host_arrays[d.source.array].name},
                     {"index", {d.source.index[0], d.source.index[1], d.source.index[2]}}};
      break;
    }
    case TaskKind::Compute: {
      const TaskDetail& d = node.detail(task);
      j["kernel"] = program.kernels[d.kernel].name;
      j["accumulator"] = {{"buffer", task.buffer}, {"block", tag_json(program, d.tag)}, {"zero", task.zero_accumulator}};
      j["operand"] = {{"buffer", d.operand}, {"block", tag_json(program, d.operand_tag)}};
      j["coefficient"] = {{"buffer", d.coefficient}, {"block", tag_json(program, d.coefficient_tag)}};
      break;
    }
    case TaskKind::Send:
    case TaskKind::Receive:
      j["buffer"] = task.buffer == no_buffer ? nlohmann::json(nullptr) : nlohmann::json(task.buffer);
      j["message"] = task.message;
      break;
    case TaskKind::Fft: {
      const TaskDetail& d = node.detail(task);
      const FftSpec& f = program.ffts[d.kernel];
      j["fft"] = {{"name", f.name}, {"axis", f.axis}, {"whole", {f.whole[0], f.whole[1], f.whole[2]}},
                  {"inverse", f.inverse}, {"scale", f.scale}, {"butterflies", f.butterflies()}};
      nlohmann::json in = nlohmann::json::array(), out = nlohmann::json::array();
      for (std::uint32_t i = 0; i < f.inputs; ++i) in.push_back(fft_input(node, task, i));
      for (std::uint32_t i = 0; i < f.outputs; ++i) out.push_back(fft_output(node, task, f, i));
      j["inputs"] = {{"buffers", in}, {"count", f.inputs}, {"cut", f.input_cut}, {"first_block", tag_json(program, d.operand_tag)}};
      j["outputs"] = {{"buffers", out}, {"count", f.outputs}, {"cut", f.output_cut}, {"first_block", tag_json(program, d.tag)}};
      break;
    }
  }
  return j;
}

}  // namespace

namespace {

// `value` as dump(1) prints it when it stands at nesting depth `depth` of a larger document:
// every line after the first indented by `depth` more spaces.
void write_at_depth(std::ostream& out, const nlohmann::json& value, std::size_t depth) {
  const std::string text = value.dump(1);
  const std::string indent(depth, ' ');
  for (const char c : text) {
    out << c;
    if (c == '\n') out << indent;
  }
}

// A JSON array of `count` elements made one at a time, as dump(1) prints it at `depth`.
void write_array(std::ostream& out, std::size_t count, const std::function<nlohmann::json(std::size_t)>& element, std::size_t depth) {
  if (count == 0) {
    out << "[]";
    return;
  }
  out << "[\n";
  for (std::size_t i = 0; i < count; ++i) {
    out << std::string(depth + 1, ' ');
    write_at_depth(out, element(i), depth + 1);
    out << (i + 1 < count ? ",\n" : "\n");
  }
  out << std::string(depth, ' ') << ']';
}

nlohmann::json message_json(const Program& program, const Message& m) {
  nlohmann::json route = nlohmann::json::array();
  for (const Direction d : program.route(m)) route.push_back(to_string(d));
  return {{"source", program.describe_node(m.source)}, {"destination", program.describe_node(m.destination)},
          {"route", route}, {"words", m.words}, {"block", tag_json(program, m.tag)}};
}

nlohmann::json node_json(const Program& program, std::size_t n) {
  nlohmann::json buffers = nlohmann::json::array(), tasks = nlohmann::json::array();
  for (const BufferSpec& b : program.nodes[n].buffers) buffers.push_back({{"words", b.words}, {"kind", program.tag_kinds[b.kind].name}});
  for (const Task& t : program.nodes[n].tasks) tasks.push_back(task_json(program, program.nodes[n], t));
  return {{"node", program.describe_node(n)}, {"buffers", buffers}, {"tasks", tasks}};
}

// Everything but the messages and the nodes (small: no more than a line per stage or output).
nlohmann::json header_json(const Program& program) {
  nlohmann::json j;
  j["algorithm"] = program.algorithm;
  j["description"] = program.description;
  j["shape"] = {program.shape.p1, program.shape.p2, program.shape.p3};
  j["N"] = {program.grid.axis[0].n, program.grid.axis[1].n, program.grid.axis[2].n};
  j["b"] = program.grid.describe_blocks();
  j["transforms"] = program.transforms;
  j["stages"] = nlohmann::json::array();
  for (const StageInfo& s : program.stages)
    j["stages"].push_back({{"transform", s.transform}, {"stage", s.stage}, {"mode", s.mode}, {"summary", s.summary}, {"steps", s.steps}});
  j["outputs"] = nlohmann::json::array();
  for (const ProgramOutput& o : program.outputs) j["outputs"].push_back({{"name", o.name}, {"transform", o.transform}, {"stage", o.stage}});
  return j;
}

}  // namespace

nlohmann::json to_json(const Program& program) {
  nlohmann::json j = header_json(program);
  j["messages"] = nlohmann::json::array();
  for (const Message& m : program.messages) j["messages"].push_back(message_json(program, m));
  j["nodes"] = nlohmann::json::array();
  for (std::size_t n = 0; n < program.nodes.size(); ++n) j["nodes"].push_back(node_json(program, n));
  return j;
}

// The document to_json(program).dump(1) prints, its keys in the same (sorted) order, with the
// messages and the nodes made and written one at a time instead of as one tree.
void write_json(std::ostream& out, const Program& program) {
  const nlohmann::json header = header_json(program);
  std::map<std::string, std::function<void()>> members;
  for (auto it = header.begin(); it != header.end(); ++it) {
    const nlohmann::json* value = &it.value();  // a pointer: clang 14 captures no structured binding
    members[it.key()] = [&out, value] { write_at_depth(out, *value, 1); };
  }
  members["messages"] = [&] {
    write_array(out, program.messages.size(), [&](std::size_t i) { return message_json(program, program.messages[i]); }, 1);
  };
  members["nodes"] = [&] { write_array(out, program.nodes.size(), [&](std::size_t n) { return node_json(program, n); }, 1); };
  out << "{\n";
  std::size_t written = 0;
  for (const auto& [key, write] : members) {
    out << ' ' << nlohmann::json(key).dump() << ": ";
    write();
    out << (++written < members.size() ? ",\n" : "\n");
  }
  out << '}';
}

}  // namespace torus
