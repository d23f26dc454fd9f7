#include "models/datapath.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/scalar.hpp"
#include "models/prefetch.hpp"
#include "sim/fft_task.hpp"
#include "sim/micro_kernel.hpp"

namespace torus {
namespace {

template <class T>
T from_complex(std::complex<double> value) {
  if constexpr (is_complex_v<T>) return T(static_cast<real_t<T>>(value.real()), static_cast<real_t<T>>(value.imag()));
  else return static_cast<T>(value.real());
}

template <class T>
class TypedDatapath final : public NodeDatapath {
 public:
  TypedDatapath(const Program& program, std::size_t node, const HostData<T>& host) : program_(program), host_(host) {
    for (const BufferSpec& spec : program.nodes.at(node).buffers) memory_.emplace_back(spec.words, T{});
    for (const FftSpec& spec : program.ffts) plans_.emplace_back(spec);  // refuses a real T
  }

  void fft(const NodeProgram& node, const Task& task) override {
    const FftPlan<T>& plan = plans_.at(node.detail(task).kernel);
    std::vector<const T*> inputs;
    std::vector<T*> outputs;
    for (std::uint32_t i = 0; i < plan.spec().inputs; ++i) inputs.push_back(memory_.at(fft_input(node, task, i)).data());
    for (std::uint32_t i = 0; i < plan.spec().outputs; ++i)
      outputs.push_back(memory_.at(fft_output(node, task, plan.spec(), i)).data());
    plan.run(inputs, outputs);
  }

  void load(std::uint32_t buffer, const HostBlock& block) override { host_.load(program_, block, memory_[buffer].data()); }
  void zero(std::uint32_t buffer) override { std::fill(memory_[buffer].begin(), memory_[buffer].end(), T{}); }

  // A compute issues its fma one by one on the same three buffers: their words are found once,
  // and each fma reads only the object's first line before its values.
  void fma(const FmaInstruction& i, std::uint32_t accumulator, std::uint32_t operand, std::uint32_t coefficient) override {
    if (accumulator != bound_.accumulator || operand != bound_.operand || coefficient != bound_.coefficient)
      bound_ = {memory_[accumulator].data(), memory_[operand].data(), memory_[coefficient].data(), accumulator, operand, coefficient};
    apply_fma(i, bound_.acc, bound_.a, bound_.c);
  }

  void fma_run(const FmaInstruction* first, std::size_t count, std::uint32_t accumulator, std::uint32_t operand,
               std::uint32_t coefficient) override {
    T* acc = memory_[accumulator].data();
    const T* a = memory_[operand].data();
    const T* c = memory_[coefficient].data();
    run_fma(first, count, acc, a, c);
  }

  std::complex<double> read(std::uint32_t buffer, std::uint32_t word) const override {
    const T v = memory_[buffer][word];
    if constexpr (is_complex_v<T>) return {static_cast<double>(v.real()), static_cast<double>(v.imag())};
    else return static_cast<double>(v);
  }

  void write(std::uint32_t buffer, std::uint32_t word, std::complex<double> value) override {
    memory_[buffer][word] = from_complex<T>(value);
  }

  void read_run(std::uint32_t buffer, std::uint32_t first, std::size_t count, std::complex<double>* out) const override {
    const T* from = memory_[buffer].data() + first;
    for (std::size_t k = 0; k < count; ++k) {
      if constexpr (is_complex_v<T>) out[k] = {static_cast<double>(from[k].real()), static_cast<double>(from[k].imag())};
      else out[k] = static_cast<double>(from[k]);
    }
  }

  void write_run(std::uint32_t buffer, std::uint32_t first, std::int32_t step, const double* values, std::size_t parts,
                 std::size_t count) override {
    T* to = memory_[buffer].data();
    for (std::size_t k = 0; k < count; ++k) to[run_word(first, step, k)] = from_complex<T>(run_value(values, parts, k));
  }

  void prefetch(std::uint32_t buffer, std::uint32_t first, std::size_t words, bool for_write) const override {
    const T* at = memory_[buffer].data() + first;
    if (for_write) prefetch_span<true>(at, words);
    else prefetch_span<false>(at, words);
  }

  std::size_t allocated_words() const override {
    std::size_t words = 0;
    for (const auto& b : memory_) words += b.capacity();
    return words;
  }
  std::size_t word_bytes() const override { return sizeof(T); }
  std::size_t value_parts() const override { return is_complex_v<T> ? 2 : 1; }

 private:
  // The buffers fma() last worked on (the buffers never move: nothing resizes them).
  struct Bound {
    T* acc = nullptr;
    const T* a = nullptr;
    const T* c = nullptr;
    std::uint32_t accumulator = no_buffer, operand = no_buffer, coefficient = no_buffer;
  } bound_;
  const Program& program_;
  const HostData<T>& host_;
  std::vector<std::vector<T>> memory_;
  std::vector<FftPlan<T>> plans_;  // per Program::ffts
};

class NullDatapath final : public NodeDatapath {
 public:
  NullDatapath(std::size_t words, std::size_t word_bytes) : words_(words), word_bytes_(word_bytes) {}
  void load(std::uint32_t, const HostBlock&) override {}
  void zero(std::uint32_t) override {}
  void fma(const FmaInstruction&, std::uint32_t, std::uint32_t, std::uint32_t) override {}
  void fma_run(const FmaInstruction*, std::size_t, std::uint32_t, std::uint32_t, std::uint32_t) override {}
  void fft(const NodeProgram&, const Task&) override {}
  std::complex<double> read(std::uint32_t, std::uint32_t) const override { return {}; }
  void write(std::uint32_t, std::uint32_t, std::complex<double>) override {}
  void read_run(std::uint32_t, std::uint32_t, std::size_t count, std::complex<double>* out) const override { std::fill_n(out, count, std::complex<double>{}); }
  void write_run(std::uint32_t, std::uint32_t, std::int32_t, const double*, std::size_t, std::size_t) override {}
  std::size_t allocated_words() const override { return words_; }
  std::size_t word_bytes() const override { return word_bytes_; }
  std::size_t value_parts() const override { return 0; }
  bool holds_values() const override { return false; }

 private:
  std::size_t words_, word_bytes_;
};

}  // namespace

std::unique_ptr<NodeDatapath> make_null_datapath(const Program& program, std::size_t node, std::size_t word_bytes) {
  std::size_t words = 0;
  for (const BufferSpec& spec : program.nodes.at(node).buffers) words += spec.words;
  return std::make_unique<NullDatapath>(words, word_bytes);
}

template <class T>
std::unique_ptr<NodeDatapath> make_datapath(const Program& program, std::size_t node, const HostData<T>& host) {
  return std::make_unique<TypedDatapath<T>>(program, node, host);
}

template <class T>
std::vector<T> buffer_values(const NodeDatapath& datapath, std::uint32_t buffer, std::size_t words) {
  std::vector<T> out(words);
  for (std::size_t w = 0; w < words; ++w) out[w] = from_complex<T>(datapath.read(buffer, static_cast<std::uint32_t>(w)));
  return out;
}

template std::unique_ptr<NodeDatapath> make_datapath(const Program&, std::size_t, const HostData<float>&);
template std::unique_ptr<NodeDatapath> make_datapath(const Program&, std::size_t, const HostData<double>&);
template std::unique_ptr<NodeDatapath> make_datapath(const Program&, std::size_t, const HostData<std::complex<float>>&);
template std::unique_ptr<NodeDatapath> make_datapath(const Program&, std::size_t, const HostData<std::complex<double>>&);
template std::vector<float> buffer_values(const NodeDatapath&, std::uint32_t, std::size_t);
template std::vector<double> buffer_values(const NodeDatapath&, std::uint32_t, std::size_t);
template std::vector<std::complex<float>> buffer_values(const NodeDatapath&, std::uint32_t, std::size_t);
template std::vector<std::complex<double>> buffer_values(const NodeDatapath&, std::uint32_t, std::size_t);

}  // namespace torus
