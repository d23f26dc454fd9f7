#include "sim/mpi_link.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

namespace torus {

MpiSession::MpiSession() {
  if (MPI_Init(nullptr, nullptr) != MPI_SUCCESS) throw std::runtime_error("sweep: MPI_Init failed");
  // Errors come back as return codes, so a dead peer is noted instead of ending this rank.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

void MpiSession::finalize(std::chrono::seconds patience, int exit_code) {
  std::thread([patience, exit_code] {
    std::this_thread::sleep_for(patience);
    std::fflush(nullptr);
    std::_Exit(exit_code);
  }).detach();
  MPI_Finalize();
}

void Mailbox::send(int to, MpiTag tag, const nlohmann::json& body) {
  if (broken(to)) return;
  Transfer& t = sends_.emplace_back(Transfer{to, static_cast<int>(tag), MPI_REQUEST_NULL, nlohmann::json::to_cbor(body)});
  if (MPI_Isend(t.bytes.data(), static_cast<int>(t.bytes.size()), MPI_BYTE, to, t.tag, MPI_COMM_WORLD, &t.request) !=
      MPI_SUCCESS) {
    broken_.insert(to);
    sends_.pop_back();
  }
}

// Starts a receive for every message that has begun to arrive (matched, so no other receive
// can take it).
void Mailbox::post_receives() {
  for (;;) {
    int flag = 0;
    MPI_Message handle;
    MPI_Status status;
    if (MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &handle, &status) != MPI_SUCCESS || flag == 0) return;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    Transfer& t = receives_.emplace_back(
        Transfer{status.MPI_SOURCE, status.MPI_TAG, MPI_REQUEST_NULL, std::vector<std::uint8_t>(static_cast<std::size_t>(count))});
    if (MPI_Imrecv(t.bytes.data(), count, MPI_BYTE, &handle, &t.request) != MPI_SUCCESS) {
      broken_.insert(t.peer);
      receives_.pop_back();
    }
  }
}

// Whether the transfer is over; an error marks its peer broken and ends it too.
bool Mailbox::done(Transfer& transfer) {
  int flag = 0;
  if (MPI_Test(&transfer.request, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    broken_.insert(transfer.peer);
    transfer.bytes.clear();
    return true;
  }
  return flag != 0;
}

std::vector<MpiMessage> Mailbox::poll() {
  post_receives();
  std::vector<MpiMessage> arrived;
  for (auto it = receives_.begin(); it != receives_.end();) {
    if (!done(*it)) {
      ++it;
      continue;
    }
    nlohmann::json body = nlohmann::json::from_cbor(it->bytes, true, false);
    if (!broken(it->peer) && !body.is_discarded()) arrived.push_back({it->peer, static_cast<MpiTag>(it->tag), std::move(body)});
    it = receives_.erase(it);
  }
  for (auto it = sends_.begin(); it != sends_.end();) it = done(*it) ? sends_.erase(it) : std::next(it);
  return arrived;
}

nlohmann::json as_bytes(const std::string& text) {
  return nlohmann::json::binary(std::vector<std::uint8_t>(text.begin(), text.end()));
}

std::string text_of(const nlohmann::json& bytes) {
  const auto& b = bytes.get_binary();
  return std::string(b.begin(), b.end());
}

}  // namespace torus
