#pragma once
// The tables of a sweep, results.csv and results.jsonl: one row per finished point, in point
// order. Rows are kept in memory as they come, so a rewrite costs O(rows) and reads no point
// file; rewrites happen at most once a second while points finish, and once at the end.

#include <chrono>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sweep_plan.hpp"

namespace torus {

// The row of one finished point: its parameters, then what its record says it measured.
nlohmann::ordered_json sweep_row(std::size_t point, const Settings& parameters, const nlohmann::json& record);

class SweepTable {
 public:
  using Clock = std::chrono::steady_clock;
  explicit SweepTable(std::string dir) : dir_(std::move(dir)) {}

  void add(std::size_t point, const nlohmann::ordered_json& row);
  // Rewrites both tables from the rows held (through the atomic writer).
  void write();
  // write(), unless the last one was less than a second before `now`.
  void write_if_due(Clock::time_point now);

 private:
  struct Row {
    std::string csv, json;
  };
  std::string dir_;
  std::string header_;  // every row has the same columns
  std::map<std::size_t, Row> rows_;
  Clock::time_point last_write_{};
  bool written_ = false;
};

}  // namespace torus
