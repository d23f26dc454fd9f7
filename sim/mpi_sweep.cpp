#include "sim/mpi_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "sim/held_signals.hpp"
#include "sim/mpi_link.hpp"
#include "sim/mpi_worker.hpp"
#include "sim/rank_points.hpp"
#include "sim/run.hpp"
#include "sim/sweep_book.hpp"
#include "sim/sweep_cost.hpp"

namespace torus {
namespace {

using Clock = std::chrono::steady_clock;

// Points waiting to run: the longest expected first, then in point order.
struct Queued {
  double cost;
  std::size_t point;
  bool operator<(const Queued& other) const { return cost != other.cost ? cost > other.cost : point < other.point; }
};

// What rank 0 knows of each rank (itself included, as rank 0).
struct RankState {
  bool alive = true;
  std::set<std::size_t> in_flight;
  Clock::time_point heard = Clock::now(), told = Clock::now();
  std::size_t done = 0;
};

std::string point_list(const std::set<std::size_t>& points) {
  std::string text;
  for (std::size_t p : points) text += fmt::format("{}{:05}", text.empty() ? "" : ", ", p);
  return text.empty() ? "none" : text;
}

// Rank 0's loop, once the sweep is planned and resumed: hands out the points, runs its share,
// and writes every result through the book.
class Coordinator {
 public:
  Coordinator(const SweepOptions& options, const SweepPlan& plan, SweepSummary& summary, SweepBook& book,
              Mailbox& mailbox, int ranks, const SweepListener& listener)
      : options_(options), plan_(plan), summary_(summary), book_(book), mailbox_(mailbox), listener_(listener),
        ranks_(static_cast<std::size_t>(ranks)), local_(options.executable, options.scenario) {}

  // `tick` keeps the other ranks informed while the queue is built.
  void run(const std::vector<std::size_t>& todo, const std::function<void()>& tick);

 private:
  void receive();
  void accept(std::size_t rank, std::size_t point, const ChildExit& exit, double wall, const std::optional<std::string>& report,
              const std::string& log);
  void dispatch();
  void keep_in_touch();
  void declare_dead(std::size_t rank, const std::string& why);
  void release(int signal);
  bool busy() const;
  void show() const;

  const SweepOptions& options_;
  const SweepPlan& plan_;
  SweepSummary& summary_;
  SweepBook& book_;
  Mailbox& mailbox_;
  const SweepListener& listener_;
  std::vector<RankState> ranks_;
  RankPoints local_;
  std::set<Queued> queue_;
  std::size_t to_run_ = 0;
  Clock::time_point start_ = Clock::now();
};

void Coordinator::run(const std::vector<std::size_t>& todo, const std::function<void()>& tick) {
  HeldSignals signals;
  to_run_ = todo.size();
  for (std::size_t point : todo) {
    queue_.insert({expected_point_cost(plan_.parameters(point)), point});
    tick();
  }
  show();
  while (summary_.interrupted_by == 0 && busy()) {
    receive();
    dispatch();
    keep_in_touch();
    book_.write_tables_if_due();
    summary_.interrupted_by = signals.wait_for_stop(poll_interval);
  }
  if (summary_.interrupted_by != 0) local_.stop(summary_.interrupted_by);
  release(summary_.interrupted_by);
  book_.write_tables();
}

bool Coordinator::busy() const {
  return !queue_.empty() || std::any_of(ranks_.begin(), ranks_.end(), [](const RankState& r) { return !r.in_flight.empty(); });
}

void Coordinator::receive() {
  for (const MpiMessage& m : mailbox_.poll()) {
    RankState& rank = ranks_.at(static_cast<std::size_t>(m.from));
    if (!rank.alive) continue;  // taken for dead: its points were handed out again
    rank.heard = Clock::now();
    if (m.tag == MpiTag::stop)
      declare_dead(static_cast<std::size_t>(m.from), fmt::format("stopped by signal {}", m.body.value("signal", 0)));
    if (m.tag != MpiTag::result) continue;
    const std::size_t point = m.body.at("point").get<std::size_t>();
    if (rank.in_flight.count(point) == 0) continue;
    const std::optional<std::string> report =
        m.body.at("report").is_null() ? std::nullopt : std::optional<std::string>(text_of(m.body.at("report")));
    accept(static_cast<std::size_t>(m.from), point, {m.body.at("code").get<int>(), m.body.at("signal").get<int>()},
           m.body.at("wall").get<double>(), report, text_of(m.body.at("log")));
  }
  for (const RankPoints::Outcome& o : local_.collect()) accept(0, o.point, o.exit, o.wall_seconds, o.report, o.log);
}

void Coordinator::accept(std::size_t rank, std::size_t point, const ChildExit& exit, double wall,
                         const std::optional<std::string>& report, const std::string& log) {
  ranks_[rank].in_flight.erase(point);
  ++ranks_[rank].done;
  book_.write_log(point, log);
  book_.record(point, exit, wall, report);
  show();
}

// Fills free slots, the rank with the fewest points in flight first.
void Coordinator::dispatch() {
  const std::size_t jobs = std::max(1u, options_.jobs);
  while (!queue_.empty()) {
    std::size_t best = ranks_.size();
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      if (ranks_[r].alive && ranks_[r].in_flight.size() < jobs &&
          (best == ranks_.size() || ranks_[r].in_flight.size() < ranks_[best].in_flight.size()))
        best = r;
    if (best == ranks_.size()) return;
    const std::size_t point = queue_.begin()->point;
    queue_.erase(queue_.begin());
    ranks_[best].in_flight.insert(point);
    if (best == 0) {
      local_.launch(point, plan_.overrides(point));
      continue;
    }
    nlohmann::json overrides = nlohmann::json::array();
    for (const auto& [key, value] : plan_.overrides(point)) overrides.push_back({key, value});
    mailbox_.send(static_cast<int>(best), MpiTag::assign, {{"point", point}, {"overrides", overrides}});
    ranks_[best].told = Clock::now();
  }
}

// Heartbeats out; ranks silent for too long, or whose connection broke, taken for dead.
void Coordinator::keep_in_touch() {
  const Clock::time_point now = Clock::now();
  for (std::size_t r = 1; r < ranks_.size(); ++r) {
    RankState& rank = ranks_[r];
    if (!rank.alive) continue;
    if (mailbox_.broken(static_cast<int>(r))) {
      declare_dead(r, "its connection broke");
    } else if (now - rank.heard > std::chrono::seconds(options_.rank_timeout)) {
      declare_dead(r, fmt::format("silent for {} s (--rank-timeout)", options_.rank_timeout));
    } else if (now - rank.told >= heartbeat_interval) {
      mailbox_.send(static_cast<int>(r), MpiTag::heartbeat, nlohmann::json::object());
      rank.told = now;
    }
  }
}

void Coordinator::declare_dead(std::size_t rank, const std::string& why) {
  RankState& r = ranks_[rank];
  r.alive = false;
  listener_.note(fmt::format("rank {} {}: taken for dead; its points in flight ({}) run again on the other ranks", rank, why,
                             point_list(r.in_flight)));
  for (std::size_t point : r.in_flight) queue_.insert({expected_point_cost(plan_.parameters(point)), point});
  r.in_flight.clear();
}

// Tells every rank still alive that there is nothing more (signal 0) or that the sweep was
// stopped by `signal`.
void Coordinator::release(int signal) {
  std::vector<int> alive;
  for (std::size_t r = 1; r < ranks_.size(); ++r)
    if (ranks_[r].alive) alive.push_back(static_cast<int>(r));
  send_stop(mailbox_, alive, signal);
}

// The plain sweep's status line, and how many points each rank has run.
void Coordinator::show() const {
  std::string ranks;
  if (ranks_.size() <= 16) {
    for (std::size_t r = 0; r < ranks_.size(); ++r)
      ranks += fmt::format(" {}:{}{}", r, ranks_[r].done, ranks_[r].alive ? "" : " (lost)");
  } else {
    const auto [least, most] = std::minmax_element(ranks_.begin(), ranks_.end(),
                                                   [](const RankState& a, const RankState& b) { return a.done < b.done; });
    ranks = fmt::format(" {} to {} over {} ranks, {} lost", least->done, most->done, ranks_.size(),
                        std::count_if(ranks_.begin(), ranks_.end(), [](const RankState& r) { return !r.alive; }));
  }
  listener_.progress(book_.status(to_run_, start_) + "; points per rank" + ranks);
}

// Open MPI's mpirun tells its ranks its MCA settings; without recovery a dead rank ends the job.
void warn_without_recovery(int ranks, const SweepListener& listener) {
  const char* recovery = std::getenv("OMPI_MCA_orte_enable_recovery");
  if (ranks < 2 || std::getenv("OMPI_COMM_WORLD_SIZE") == nullptr ||
      (recovery != nullptr && (std::string_view(recovery) == "1" || std::string_view(recovery) == "true")))
    return;
  listener.note("mpirun without --enable-recovery: if a rank dies, Open MPI ends the whole job (the same command "
                "resumes it); with it, the other ranks take over the dead rank's points");
}

RankOutcome run_root(MpiSession& session, Mailbox& mailbox, const SweepOptions& options, const SweepListener& listener) {
  RankOutcome outcome{true, {}, 0};
  std::vector<int> others;
  for (int r = 1; r < session.size(); ++r) others.push_back(r);
  // Until the coordinator takes over: a heartbeat to every rank each second, between points.
  Clock::time_point last_beat{};
  const auto tick = [&] {
    if (Clock::now() - last_beat < heartbeat_interval) return;
    for (int r : others) mailbox.send(r, MpiTag::heartbeat, nlohmann::json::object());
    mailbox.poll();
    last_beat = Clock::now();
  };
  tick();
  try {
    const SweepPlan plan(options.scenario, options.overrides, listener.note);
    outcome.summary = planned_summary(options, plan);
    warn_without_recovery(session.size(), listener);
    SweepBook book(plan, outcome.summary, listener);
    const std::vector<std::size_t> todo = book.resume(tick);
    Coordinator coordinator(options, plan, outcome.summary, book, mailbox, session.size(), listener);
    coordinator.run(todo, tick);
  } catch (...) {
    // A bad scenario, a folder that cannot be written: no rank may go on waiting for work.
    // Every rank ends cleanly (MPI_Finalize), so that mpirun reports rank 0's exit code and
    // not a rank that left without finalizing.
    send_stop(mailbox, others, 0);
    session.finalize(std::chrono::seconds(options.rank_timeout), static_cast<int>(ExitCode::RuntimeFailure));
    throw;
  }
  if (outcome.summary.interrupted_by == 0)
    session.finalize(std::chrono::seconds(options.rank_timeout), outcome.summary.exit_code);
  return outcome;
}

}  // namespace

RankOutcome run_mpi_sweep(const SweepOptions& options, const SweepListener& listener) {
  const HeldSignals held;  // before MPI starts its threads, so they inherit the mask
  MpiSession session;
  Mailbox mailbox;
  if (session.rank() == 0) return run_root(session, mailbox, options, listener);
  RankOutcome outcome;
  outcome.exit_code = run_worker(session, mailbox, options, listener, outcome.summary.interrupted_by);
  return outcome;
}

}  // namespace torus
