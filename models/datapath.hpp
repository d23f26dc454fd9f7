#pragma once
// The values a node holds and computes, kept apart from the time it takes: the node's timing
// logic calls this interface, so any timing engine can reuse the arithmetic unchanged.
// Words are handed over as std::complex<double>, which holds every element type exactly.

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/host_data.hpp"
#include "sim/micro_schedule.hpp"
#include "sim/program.hpp"
#include "models/word_run.hpp"

namespace torus {

// Contract: buffers are the node's Program buffers, allocated once with their declared
// sizes. fma() performs exactly the arithmetic of one modelled fma (std::fma on reals; for
// complex data one part of the four-part complex multiply-add, or all four in part order for
// FmaPart::Whole), reading and writing the node's own buffers.
class NodeDatapath {
 public:
  virtual ~NodeDatapath() = default;
  virtual void load(std::uint32_t buffer, const HostBlock& block) = 0;
  virtual void zero(std::uint32_t buffer) = 0;
  virtual void fma(const FmaInstruction& instruction, std::uint32_t accumulator, std::uint32_t operand,
                   std::uint32_t coefficient) = 0;
  // fma() for `count` instructions in order (one call for a fast-forwarded run).
  virtual void fma_run(const FmaInstruction* first, std::size_t count, std::uint32_t accumulator, std::uint32_t operand,
                       std::uint32_t coefficient) = 0;
  // The whole FFT task `task` of the node's list `node` (sim/fft_task.hpp), in one call.
  virtual void fft(const NodeProgram& node, const Task& task) = 0;
  virtual std::complex<double> read(std::uint32_t buffer, std::uint32_t word) const = 0;
  virtual void write(std::uint32_t buffer, std::uint32_t word, std::complex<double> value) = 0;
  // A block's words in one call (a message sent or taken as a whole): read() of words first,
  // first + 1, ... into `out`; write() of word first + step k to value k, given as `parts`
  // doubles a word (1: real, 2: real and imaginary, 0: zero).
  virtual void read_run(std::uint32_t buffer, std::uint32_t first, std::size_t count, std::complex<double>* out) const {
    for (std::size_t k = 0; k < count; ++k) out[k] = read(buffer, first + static_cast<std::uint32_t>(k));
  }
  virtual void write_run(std::uint32_t buffer, std::uint32_t first, std::int32_t step, const double* values, std::size_t parts,
                         std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) write(buffer, run_word(first, step, k), run_value(values, parts, k));
  }
  // A hint before reading (or writing) `words` words of `buffer` from `first`: their memory is
  // asked for now (models/prefetch.hpp). Changes nothing.
  virtual void prefetch(std::uint32_t /*buffer*/, std::uint32_t /*first*/, std::size_t /*words*/, bool /*for_write*/) const {}
  // Words of storage the node really allocates, and their size in bytes.
  virtual std::size_t allocated_words() const = 0;
  virtual std::size_t word_bytes() const = 0;
  // Doubles that hold one word's value exactly: 1 for real words, 2 for complex, 0 without values.
  virtual std::size_t value_parts() const = 0;
  // False when it holds no values (values: off): an engine then need not list the fma it times.
  virtual bool holds_values() const { return true; }
};

// Throws std::invalid_argument for a real T when the Program has FFT tasks (the DFT is complex).
template <class T>
std::unique_ptr<NodeDatapath> make_datapath(const Program& program, std::size_t node, const HostData<T>& host);

// A datapath that holds and computes nothing, for runs timed without values (values: off):
// it reports the words the node's buffers declare, of `word_bytes` each.
std::unique_ptr<NodeDatapath> make_null_datapath(const Program& program, std::size_t node, std::size_t word_bytes);

// The values of one buffer, converted to T (for gathering results).
template <class T>
std::vector<T> buffer_values(const NodeDatapath& datapath, std::uint32_t buffer, std::size_t words);

}  // namespace torus
