#include "sim/mpi_worker.hpp"

#include <csignal>

#include <fmt/format.h>

#include "sim/held_signals.hpp"
#include "sim/rank_points.hpp"

namespace torus {
namespace {

using Clock = std::chrono::steady_clock;

nlohmann::json result_message(const RankPoints::Outcome& o) {
  return {{"point", o.point},
          {"code", o.exit.code},
          {"signal", o.exit.signal},
          {"wall", o.wall_seconds},
          {"report", o.report ? as_bytes(*o.report) : nlohmann::json(nullptr)},
          {"log", as_bytes(o.log)}};
}

// A worker's loop; returns what run_worker returns.
class Worker {
 public:
  Worker(MpiSession& session, Mailbox& mailbox, const SweepOptions& options, const SweepListener& listener)
      : session_(session), mailbox_(mailbox), options_(options), listener_(listener),
        points_(options.executable, options.scenario) {}

  int run(int& interrupted_by);

 private:
  // False once rank 0 said stop.
  bool read_mail();
  void say(MpiTag tag, const nlohmann::json& body);

  MpiSession& session_;
  Mailbox& mailbox_;
  const SweepOptions& options_;
  const SweepListener& listener_;
  RankPoints points_;
  Clock::time_point heard_ = Clock::now(), said_{};
  int stop_signal_ = 0;
};

void Worker::say(MpiTag tag, const nlohmann::json& body) {
  mailbox_.send(0, tag, body);
  said_ = Clock::now();
}

bool Worker::read_mail() {
  for (const MpiMessage& m : mailbox_.poll()) {
    if (m.from != 0) continue;
    heard_ = Clock::now();
    if (m.tag == MpiTag::stop) {
      stop_signal_ = m.body.value("signal", 0);
      return false;
    }
    if (m.tag != MpiTag::assign) continue;
    Settings overrides;
    for (const auto& kv : m.body.at("overrides")) overrides.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
    points_.launch(m.body.at("point").get<std::size_t>(), overrides);
  }
  return true;
}

int Worker::run(int& interrupted_by) {
  HeldSignals signals;
  say(MpiTag::heartbeat, nlohmann::json::object());
  while (read_mail()) {
    for (const RankPoints::Outcome& outcome : points_.collect()) say(MpiTag::result, result_message(outcome));
    const Clock::time_point now = Clock::now();
    if (now - said_ >= heartbeat_interval) say(MpiTag::heartbeat, nlohmann::json::object());
    if (now - heard_ > std::chrono::seconds(options_.rank_timeout) || mailbox_.broken(0)) {
      listener_.note(fmt::format("sweep rank {}: no word from rank 0 for {} s (--rank-timeout); stopping", session_.rank(),
                                 options_.rank_timeout));
      points_.stop(SIGTERM);
      return 4;
    }
    if (const int s = signals.wait_for_stop(poll_interval); s != 0) {
      points_.stop(s);
      send_stop(mailbox_, {0}, s);  // rank 0 hands out its points again at once
      interrupted_by = s;
      return 0;
    }
  }
  points_.stop(stop_signal_ != 0 ? stop_signal_ : SIGTERM);  // only when rank 0 failed: it says stop
  if (stop_signal_ == 0) session_.finalize(std::chrono::seconds(options_.rank_timeout), 0);
  return 0;
}

}  // namespace

void send_stop(Mailbox& mailbox, const std::vector<int>& ranks, int signal) {
  for (int r : ranks) mailbox.send(r, MpiTag::stop, {{"signal", signal}});
  for (const auto until = Clock::now() + std::chrono::seconds(2); mailbox.sending() != 0 && Clock::now() < until;)
    mailbox.poll();
}

int run_worker(MpiSession& session, Mailbox& mailbox, const SweepOptions& options, const SweepListener& listener,
               int& interrupted_by) {
  Worker worker(session, mailbox, options, listener);
  return worker.run(interrupted_by);
}

}  // namespace torus
