#include "sim/sweep_table.hpp"

#include <algorithm>
#include <filesystem>

#include "kernels/output_file.hpp"

namespace torus {

nlohmann::ordered_json sweep_row(std::size_t point, const Settings& parameters, const nlohmann::json& record) {
  nlohmann::ordered_json row;
  row["point"] = point;
  row["status"] = record.value("status", "failed");
  row["exit_code"] = record.value("exit_code", -1);
  for (const auto& [key, value] : parameters) row[key] = value;
  const nlohmann::json& report = record.contains("report") ? record["report"] : nlohmann::json::object();
  const nlohmann::json& t = report.contains("timing") ? report["timing"] : nlohmann::json::object();
  const auto get = [](const nlohmann::json& j, const char* key) { return j.contains(key) ? j[key] : nlohmann::json(nullptr); };
  // A run the simulated nodes cannot hold is an answer, not a failure: its row says so.
  if (report.value("fits", true) == false && row["status"] == "ok") row["status"] = "does not fit";
  row["passed"] = get(report, "passed");
  // A point the algorithm cannot run (exit 2) is refused, with its reason, not failed.
  row["refusal"] = record.contains("refusal") ? record["refusal"] : nlohmann::json(nullptr);
  row["torus"] = get(report, "P");        // the torus the run used (process_grid: balanced derives it)
  row["node_count"] = get(report, "nodes");
  row["node_memory_required_bytes"] = report.contains("node_memory") ? report["node_memory"]["required_bytes"] : nlohmann::json(nullptr);
  row["total_cycles"] = get(t, "total_cycles");
  row["seconds"] = get(t, "seconds");
  row["analytic_cycles"] = t.contains("analytic") ? t["analytic"]["cycles"] : nlohmann::json(nullptr);
  row["analytic_exact"] = t.contains("analytic") ? t["analytic"]["exact"] : nlohmann::json(nullptr);
  row["utilisation"] = get(t, "utilisation");
  for (const char* cls : {"busy", "dependency", "operand", "backpressure", "idle"})
    row[std::string("cycles_") + cls] = t.contains("node_cycles") ? t["node_cycles"][cls] : nlohmann::json(nullptr);
  row["fma_issued"] = get(t, "fma_issued");
  std::uint64_t words = 0;
  if (t.contains("links"))
    for (const auto& link : t["links"]) words += link["words"].get<std::uint64_t>();
  row["words_sent"] = t.contains("links") ? nlohmann::json(words) : nlohmann::json(nullptr);
  for (const char* part : {"allocated", "paper", "second_buffers", "link_buffers"})
    row[std::string("words_per_node_") + part] = t.contains("words_per_node") ? t["words_per_node"][part] : nlohmann::json(nullptr);
  double max_rel = 0;
  bool any = false;
  if (report.contains("transforms"))
    for (const auto& tr : report["transforms"]) {
      if (!tr.contains("golden") || tr["golden"].is_null()) continue;  // values off: nothing was checked
      max_rel = std::max(max_rel, tr["golden"]["max_rel_error"].get<double>());
      any = true;
    }
  if (report.contains("round_trip")) max_rel = std::max(max_rel, report["round_trip"]["max_rel_error"].get<double>());
  if (report.contains("matmul") && !report["matmul"]["golden"].is_null()) {
    max_rel = std::max(max_rel, report["matmul"]["golden"]["max_rel_error"].get<double>());
    any = true;
  }
  row["max_rel_error"] = any ? nlohmann::json(max_rel) : nlohmann::json(nullptr);
  // A matmul point's own columns (every row of a matmul sweep has them, a failed point empty).
  const bool matmul = std::any_of(parameters.begin(), parameters.end(), [](const auto& kv) { return kv.first == "task" && kv.second == "matmul"; });
  if (matmul) {
    const nlohmann::json& m = report.contains("matmul") ? report["matmul"] : nlohmann::json::object();
    row["matmul_algorithm"] = get(m, "chosen_algorithm");  // auto: the one the library rule chose
    row["matmul_words_sent"] = get(m, "words_sent");
    row["matmul_words_sent_per_node"] = get(m, "words_sent_per_node");
    row["matmul_compute_steps"] = get(m, "compute_steps");
  }
  row["peak_memory_bytes"] = get(t, "peak_memory_bytes");
  row["wall_seconds"] = record.value("wall_seconds", 0.0);
  return row;
}

namespace {

// A CSV field: strings quoted when they hold a comma, a quote or a line break.
std::string csv_field(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted(1, '"');
    for (char c : s) {
      if (c == '"') quoted.push_back('"');
      quoted.push_back(c);
    }
    quoted.push_back('"');
    return quoted;
  }
  return v.dump();
}

}  // namespace

void SweepTable::add(std::size_t point, const nlohmann::ordered_json& row) {
  Row text;
  std::string header;
  for (const auto& item : row.items()) {
    header.append(header.empty() ? "" : ",").append(item.key());
    text.csv.append(text.csv.empty() ? "" : ",").append(csv_field(item.value()));
  }
  if (header_.empty()) header_ = header + "\n";
  text.csv += "\n";
  text.json = row.dump() + "\n";
  rows_[point] = std::move(text);
}

void SweepTable::write() {
  std::string csv = rows_.empty() ? "" : header_, jsonl;
  for (const auto& [point, row] : rows_) {
    csv += row.csv;
    jsonl += row.json;
  }
  write_file_atomically((std::filesystem::path(dir_) / "results.csv").string(), csv);
  write_file_atomically((std::filesystem::path(dir_) / "results.jsonl").string(), jsonl);
  written_ = true;
}

void SweepTable::write_if_due(Clock::time_point now) {
  if (written_ && now - last_write_ < std::chrono::seconds(1)) return;
  write();
  last_write_ = now;
}

}  // namespace torus
