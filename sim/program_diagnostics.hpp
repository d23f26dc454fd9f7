#pragma once
// What the Program verifier's checks share (sim/program_verifier.cpp runs them): the names its
// messages give a Program's parts, the log that keeps the first violations, and the checks of
// messages and routes, which need only who sent and received each message in the symbolic run.

#include <cstdint>
#include <limits>
#include <span>
#include <string>

#include <fmt/format.h>

#include "sim/program.hpp"
#include "sim/program_verifier.hpp"

namespace torus::verifier {

inline constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

inline std::string plural(std::size_t n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Names for diagnostics; they tolerate indices out of range (a malformed Program is reported,
// not trusted).
class ProgramNames {
 public:
  explicit ProgramNames(const Program& program) : p_(program) {}
  std::string node(std::size_t n) const;
  std::string buffer(std::size_t n, std::uint32_t b) const;
  std::string message(std::uint32_t m) const;
  std::string task(std::size_t n, std::uint32_t k) const;
  // A load's, compute's or fft's detail record; nullptr when it names none of its node's.
  const TaskDetail* detail_of(std::size_t n, const Task& t) const {
    const auto& details = p_.nodes[n].details;
    return t.detail < details.size() ? &details[t.detail] : nullptr;
  }

 private:
  const Program& p_;
};

// Counts every violation; formats the text only for the first `max_reported`, which are kept.
class ViolationLog {
 public:
  explicit ViolationLog(std::size_t max_reported) : max_(max_reported) {}
  template <class Text>
  void fail(std::size_t node, std::size_t task, Text&& text) {
    ++out_.violation_count;
    if (out_.violations.size() < max_) out_.violations.push_back({node, task, text()});
  }
  ProgramVerification& result() { return out_; }

 private:
  std::size_t max_;
  ProgramVerification out_;
};

// A message in the symbolic run: its declared block, copied so the run reads one compact
// array, and who sent and received it (the first such tasks).
struct MessageState {
  DataTag tag;
  std::uint32_t words = 0;
  std::uint32_t sender = none, send_task = none;
  std::uint32_t receiver = none, receive_task = none;
  std::uint32_t next_drop = none;  // the node's previous dropped receive still in flight
  bool sent = false;
};

// A node in the symbolic run.
struct NodeState {
  std::uint32_t pc = 0;          // next task
  std::uint32_t drops = none;    // dropped receives still in flight, linked by next_drop
  std::uint32_t waiting = none;  // the message it is blocked on
  bool done = false;
};

// Checks 2 (the message is sent at its source and received at its destination, its size is
// its block's) and 3 (its route is a chain of links from source to destination).
void check_message(const Program& program, std::uint32_t m, const MessageState& state, const ProgramNames& names, ViolationLog& log);

// The deadlock the symbolic run found: one violation naming the chain of waits from the first
// unfinished node until it closes a cycle or reaches a message no remaining task sends.
void report_deadlock(const Program& program, std::span<const NodeState> nodes, std::span<const MessageState> messages,
                     const ProgramNames& names, ViolationLog& log);

}  // namespace torus::verifier
