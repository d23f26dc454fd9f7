#include "models/cycle/step_threads.hpp"

#include <stdexcept>
#include <string>
#include <system_error>

namespace torus {
namespace {

// About 50 to 200 microseconds of waiting before a thread sleeps: longer than the kernel's own
// work between two cycles, short enough not to hold a core another process wants for long.
constexpr int spin_limit = 4000;

void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace

StepThreads::StepThreads(std::size_t count) : errors_(count) {
  try {
    for (std::size_t t = 1; t < count; ++t) workers_.emplace_back([this] { work(); });
  } catch (const std::system_error& e) {
    stop();  // the threads already started must not outlive the object
    throw std::runtime_error("threads: " + std::to_string(count) + " host threads could not be started (" + e.what() +
                             "); allowed: fewer, such as the number of cores");
  }
}

StepThreads::~StepThreads() { stop(); }

void StepThreads::stop() {
  stopping_.store(true, std::memory_order_release);
  state_.fetch_add(std::uint64_t{1} << 32, std::memory_order_acq_rel);
  state_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  workers_.clear();
}

void StepThreads::call(std::size_t partition) {
  try {
    (*job_)(partition);
  } catch (...) {
    errors_[partition] = std::current_exception();
  }
}

void StepThreads::claim(std::uint64_t generation) {
  std::uint64_t state = state_.load(std::memory_order_acquire);
  for (;;) {
    const std::uint64_t next = state & 0xFFFFFFFFu;
    if ((state >> 32) != generation || next >= errors_.size()) return;
    if (!state_.compare_exchange_weak(state, state + 1, std::memory_order_acq_rel, std::memory_order_acquire)) continue;
    call(static_cast<std::size_t>(next));
    pending_.fetch_sub(1, std::memory_order_acq_rel);
    state = state_.load(std::memory_order_acquire);
  }
}

void StepThreads::work() {
  std::uint64_t seen = 0;  // the last generation this thread took part in
  for (;;) {
    std::uint64_t state = state_.load(std::memory_order_acquire);
    for (int spin = 0; (state >> 32) == seen && spin < spin_limit; ++spin) {
      pause();
      state = state_.load(std::memory_order_acquire);
    }
    if ((state >> 32) == seen) {
      state_.wait(state, std::memory_order_acquire);  // wakes on any change: claims too
      continue;
    }
    seen = state >> 32;
    if (stopping_.load(std::memory_order_acquire)) return;
    claim(seen);
  }
}

void StepThreads::run(const std::function<void(std::size_t)>& job) {
  job_ = &job;
  for (std::exception_ptr& error : errors_) error = nullptr;
  pending_.store(errors_.size(), std::memory_order_relaxed);
  const std::uint64_t generation = (state_.load(std::memory_order_relaxed) >> 32) + 1;
  state_.store(generation << 32, std::memory_order_release);
  state_.notify_all();
  claim(generation);
  // What is left runs on a thread that has claimed it: running, or about to run again.
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < spin_limit) pause();
    else std::this_thread::yield();
  }
  for (const std::exception_ptr& error : errors_)
    if (error) std::rethrow_exception(error);
}

}  // namespace torus
