#pragma once
// The MPI traffic of a sweep: small messages (CBOR-encoded JSON) between rank 0 and the other
// ranks, never waited for. A rank may die at any moment (mpirun --enable-recovery keeps the
// others running), so no call here blocks on a peer: sends and receives are non-blocking and
// are advanced by poll(); a peer MPI reports an error for is marked broken instead of
// aborting (MPI_ERRORS_RETURN). A message from a peer that died half-way through it simply
// never arrives; the sweep's heartbeats (sim/mpi_sweep.hpp) find such peers.

#include <chrono>
#include <cstdint>
#include <list>
#include <set>
#include <vector>

#include <mpi.h>
#include <nlohmann/json.hpp>

namespace torus {

// MPI_Init and the error handler for this process; MPI_Finalize only when asked, after a clean
// end: with ranks being killed, finalizing could wait for them forever.
class MpiSession {
 public:
  MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // MPI_Finalize waits for every rank the job still counts. Should that take longer than
  // `patience` (a rank stopped but not dead), the process leaves with `exit_code` rather than
  // hang: by then everything is written.
  void finalize(std::chrono::seconds patience, int exit_code);

 private:
  int rank_ = 0, size_ = 1;
};

enum class MpiTag : int {
  assign = 1,     // rank 0 -> rank: run this point {"point", "overrides": [[key, value], ...]}
  result = 2,     // rank -> rank 0: it ran {"point", "code", "signal", "wall", "report": bytes or null, "log": bytes}
  heartbeat = 3,  // either way, every second: "I am alive" (any message says that)
  stop = 4,       // rank 0 -> rank: no more points {"signal": 0, or the signal that interrupted the sweep};
                  // rank -> rank 0: a signal stopped me, I run nothing more {"signal"}
};

struct MpiMessage {
  int from = 0;
  MpiTag tag = MpiTag::heartbeat;
  nlohmann::json body;
};

class Mailbox {
 public:
  Mailbox() = default;
  Mailbox(const Mailbox&) = delete;
  Mailbox& operator=(const Mailbox&) = delete;

  // Starts sending; the bytes are kept until MPI is done with them. A broken peer gets nothing.
  void send(int to, MpiTag tag, const nlohmann::json& body);
  // Advances every send and receive; returns the messages that arrived whole, in the order
  // their receives were posted.
  std::vector<MpiMessage> poll();
  // Peers MPI reported an error for (the connection to them is gone).
  bool broken(int peer) const { return broken_.count(peer) != 0; }
  // Sends still in progress.
  std::size_t sending() const { return sends_.size(); }

 private:
  struct Transfer {
    int peer;
    int tag;
    MPI_Request request;
    std::vector<std::uint8_t> bytes;
  };
  void post_receives();
  bool done(Transfer& transfer);

  std::list<Transfer> sends_, receives_;
  std::set<int> broken_;
};

// The bytes of a text, for a CBOR byte string (the text need not be UTF-8), and back.
nlohmann::json as_bytes(const std::string& text);
std::string text_of(const nlohmann::json& bytes);

}  // namespace torus
