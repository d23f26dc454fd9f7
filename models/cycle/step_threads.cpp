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
    for (std::size_t p = 1; p < count; ++p) workers_.emplace_back([this, p] { work(p); });
  } catch (const std::system_error& e) {
    stop();  // the threads already started must not outlive the object
    throw std::runtime_error("threads: " + std::to_string(count) + " host threads could not be started (" + e.what() +
                             "); allowed: fewer, such as the number of cores");
  }
}

StepThreads::~StepThreads() { stop(); }

void StepThreads::stop() {
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
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

void StepThreads::work(std::size_t partition) {
  std::uint64_t seen = 0;
  for (;;) {
    std::uint64_t now = generation_.load(std::memory_order_acquire);
    for (int spin = 0; now == seen && spin < spin_limit; ++spin) {
      pause();
      now = generation_.load(std::memory_order_acquire);
    }
    if (now == seen) {
      generation_.wait(seen, std::memory_order_acquire);
      continue;
    }
    seen = now;
    if (stopping_.load(std::memory_order_acquire)) return;
    call(partition);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void StepThreads::run(const std::function<void(std::size_t)>& job) {
  job_ = &job;
  for (std::exception_ptr& error : errors_) error = nullptr;
  pending_.store(workers_.size(), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  call(0);
  for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
    if (spin < spin_limit) pause();
    else std::this_thread::yield();  // a worker that was not running: give it the core
  }
  for (const std::exception_ptr& error : errors_)
    if (error) std::rethrow_exception(error);
}

}  // namespace torus
