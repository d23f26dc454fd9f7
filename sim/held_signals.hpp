#pragma once
// SIGCHLD, SIGINT and SIGTERM held back while a sweep runs and taken with sigtimedwait, so no
// handler and no global flag are needed. The mask is the calling thread's and is inherited by
// threads started later: an MPI rank makes one before MPI_Init starts its helper threads, or
// a signal could land in one of those and kill the rank before its points are stopped.

#include <chrono>
#include <csignal>
#include <ctime>

#include <pthread.h>

namespace torus {

class HeldSignals {
 public:
  HeldSignals() {
    sigemptyset(&set_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&set_, s);
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~HeldSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  // The next of them to arrive within `timeout`, or 0.
  int wait(std::chrono::milliseconds timeout) const {
    const timespec t{static_cast<time_t>(timeout.count() / 1000), static_cast<long>(timeout.count() % 1000) * 1000000};
    const int s = sigtimedwait(&set_, nullptr, &t);
    return s < 0 ? 0 : s;
  }
  // SIGINT or SIGTERM if one arrives within `timeout` (SIGCHLD only wakes the caller), or 0.
  int wait_for_stop(std::chrono::milliseconds timeout) const {
    const int s = wait(timeout);
    return s == SIGINT || s == SIGTERM ? s : 0;
  }

 private:
  sigset_t set_{}, previous_{};
};

}  // namespace torus
