// The bare baseline for the cycle engine's speed with fast-forward off: the least a simulator
// that steps every node in every cycle does for a simpler form of the workload
// tools/benchmark.py times (a forward 3D transform, b = 4, on a P x P x P torus), and nothing
// else. Its steps are as long as the orbital schedule's (323 cycles at b = 4), but only the data
// block rolls (64 words a step, where orbital also rolls a coefficient block: 80 or 128) and a
// node holds two data blocks, not orbital's four tensor and three coefficient blocks. No
// Program, no SystemC, no statistics, no generality: a hand-written loop over compact records.
//
// Each node holds its data block X twice (one to compute on and send, one to receive into),
// an accumulator block and a b x b coefficient block, with a ready cycle per word. A step is a
// compute of b^4 fma, then a roll: the node sends its X to the next node along the stage's
// dimension and receives the previous node's. Three stages of P steps; at a stage's end the
// accumulator becomes the next stage's X. In each cycle every node, in node order:
//   - receives: takes the word at the head of its incoming link if it has arrived (one word a
//     cycle at most arrives), marks it ready from that cycle, and returns the credit, which
//     reaches the sender `link_latency` cycles later;
//   - issues: the next fma of the compute if its X word and its accumulator word are ready
//     (an fma's result is ready fma_latency cycles after it issues); the compute's fma go
//     contraction index outermost, so that an accumulator word's updates lie b^3 fma apart;
//   - sends: the next word of its X, once the compute's last result is ready, if the link
//     holds a credit (one word a cycle; it arrives link_latency cycles later).
// The next step starts when the compute is done and the roll has moved every word both ways.
// Links hold `ring` words; a word sent in a cycle cannot arrive in it, so the order in which
// nodes step within a cycle changes nothing, and the cycle count and checksum are the same on
// any number of threads (each steps a contiguous range of nodes; a barrier ends each cycle).
//
// MODE `kept` (the default is `bare`) also keeps what the engine keeps every cycle, in the same
// compact records (the per-step notes in an array of the node's own): a scoreboard entry of 8 bytes per word (its ready cycle, the generation of the
// block it holds, the sends that still owe it: a word lands only in a place no send owes, and
// an fma reads only the step's generation), the fma's words looked up in a micro-program table
// instead of computed, per node counts of busy and stalled cycles and words moved, the peak
// occupancy of its incoming link, its last progress, and per step the first and last fma and the
// cycle its result is ready. It times the cost of that bookkeeping laid out compactly.
//
//   torus-bare-stepped-torus P FMA_LATENCY LINK_LATENCY THREADS [MODE]
//
// prints: cycles, seconds (to the microsecond: a small torus runs in milliseconds), million
// node-cycles per second, bytes per node, checksum, and with MODE kept the busy cycles of all
// nodes (one per fma).

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <type_traits>
#include <thread>
#include <vector>

namespace {

constexpr std::uint32_t b = 4;
constexpr std::uint32_t words = b * b * b;  // a block
constexpr std::uint32_t fma_per_step = words * b;
constexpr std::uint32_t ring = 4;  // link buffer words (credits), a power of two
constexpr std::uint32_t not_yet = UINT32_MAX;

struct Slot {
  double value;
  std::uint32_t arrival;
};

// One direction of one link: words from its sender, credits back from its receiver. Each ring
// has one writer, which publishes its count after the entry (release) for the other end.
struct alignas(64) Link {
  std::array<Slot, ring> slots{};
  std::atomic<std::uint32_t> pushed{0};  // written by the sender
  std::uint32_t popped = 0;              // the receiver's own
  std::array<std::uint32_t, ring> credit_cycle{};  // when each returned credit reaches the sender
  std::atomic<std::uint32_t> returned{0};          // written by the receiver
  std::uint32_t credits_seen = 0;                  // the sender's own
  std::uint32_t credits = ring;                    // the sender's own
};

// A word's scoreboard entry in MODE kept, as the engine's (models/cycle/node_memory.hpp).
struct Word {
  std::uint32_t ready = 0;
  std::uint16_t generation = 0, owed = 0;
};
struct Instruction {
  std::uint16_t accumulator, operand, coefficient;
};
using MicroTable = std::array<std::array<Instruction, fma_per_step>, 3>;  // per stage
struct Kept {
  std::uint64_t busy = 0, operand_stalls = 0, dependency_stalls = 0, backpressure_stalls = 0;
  std::uint64_t words_sent = 0, words_received = 0;
  std::uint32_t peak_occupancy = 0, last_progress = 0;
  struct Span {
    std::uint32_t first = not_yet, last = 0, done = 0;
  };
  std::vector<Span> steps;
};
struct Nothing {};

template <bool kept>
struct alignas(64) Node {
  using State = std::conditional_t<kept, Word, std::uint32_t>;  // a word's ready cycle, or more
  std::uint32_t step = 0, fma = 0, sent = 0, received = 0, cur = 0;
  std::uint32_t compute_done = not_yet;  // the cycle the compute's last result is ready
  std::uint32_t finished = not_yet;
  std::array<std::uint32_t, 3> upstream{};  // the previous node along each dimension
  [[no_unique_address]] std::conditional_t<kept, Kept, Nothing> record;
  std::array<std::array<double, words>, 2> x{};
  std::array<std::array<State, words>, 2> x_state{};
  std::array<double, words> acc{};
  std::array<State, words> acc_state{};
  std::array<double, b * b> coefficient{};
};

std::uint32_t ready_of(std::uint32_t ready) { return ready; }
std::uint32_t ready_of(const Word& word) { return word.ready; }

template <bool kept>
struct Torus {
  std::uint32_t p = 0, fma_latency = 0, link_latency = 0;
  std::vector<Node<kept>> nodes;
  std::vector<Link> links;  // 3 per node: along each dimension, to the next node
  MicroTable micro{};

  std::uint32_t neighbour(std::uint32_t n, std::uint32_t dim, std::uint32_t delta) const {
    std::array<std::uint32_t, 3> c{n % p, n / p % p, n / (p * p)};
    c[dim] = (c[dim] + delta) % p;
    return c[0] + p * (c[1] + p * c[2]);
  }
  Link& out(std::uint32_t n, std::uint32_t dim) { return links[3 * n + dim]; }
  Link& in(std::uint32_t n, std::uint32_t dim) { return links[3 * nodes[n].upstream[dim] + dim]; }
};

// The fma f of a stage's compute along dimension `dim`: accumulator word a = f mod b^3 gets
// coefficient (row, j) times the data word with a's coordinate along dim replaced by j.
Instruction instruction(std::uint32_t dim, std::uint32_t f) {
  const std::uint32_t j = f / words, a = f % words;  // contraction index, accumulator word
  const std::uint32_t stride = dim == 0 ? 1 : dim == 1 ? b : b * b;
  const std::uint32_t row = a / stride % b;
  return {static_cast<std::uint16_t>(a), static_cast<std::uint16_t>(a - row * stride + j * stride),
          static_cast<std::uint16_t>(row * b + j)};
}

template <bool kept>
void receive(Torus<kept>& t, std::uint32_t n, std::uint32_t cycle) {
  Node<kept>& node = t.nodes[n];
  if (node.received == words) return;
  Link& link = t.in(n, node.step / t.p);
  const std::uint32_t pushed = link.pushed.load(std::memory_order_acquire);
  if (link.popped == pushed) return;
  const Slot& slot = link.slots[link.popped % ring];
  if (slot.arrival > cycle) return;
  auto& place = node.x_state[node.cur ^ 1][node.received];
  if constexpr (kept) {
    if (place.owed != 0) return;  // a send still owes the word there
    place = {cycle, static_cast<std::uint16_t>(node.step + 2), 0};
    ++node.record.words_received;
    // The words that have arrived: one sent in this cycle (by a node stepped before this one)
    // has not, whichever thread stepped it.
    std::uint32_t arrived = 0;
    for (std::uint32_t k = link.popped; k != pushed && link.slots[k % ring].arrival <= cycle; ++k) ++arrived;
    node.record.peak_occupancy = std::max(node.record.peak_occupancy, arrived);
    node.record.last_progress = cycle;
  } else {
    place = cycle;
  }
  node.x[node.cur ^ 1][node.received] = slot.value;
  ++node.received;
  const std::uint32_t returned = link.returned.load(std::memory_order_relaxed);
  link.credit_cycle[returned % ring] = cycle + t.link_latency;
  link.returned.store(returned + 1, std::memory_order_release);
  ++link.popped;
}

// The next step's compute starts when this one's is done and the roll has ended both ways.
template <bool kept>
void advance(Torus<kept>& t, Node<kept>& node, std::uint32_t cycle) {
  if (node.step + 1 == 3 * t.p) {
    node.finished = cycle;
    return;
  }
  ++node.step;
  node.cur ^= 1;
  node.fma = node.sent = node.received = 0;
  node.compute_done = not_yet;
  if (node.step % t.p != 0) return;
  node.x[node.cur] = node.acc;  // a stage's result is the next stage's input
  for (auto& w : node.x_state[node.cur]) {
    if constexpr (kept) w = {cycle, static_cast<std::uint16_t>(node.step + 1), 0};
    else w = cycle;
  }
  node.acc.fill(0.0);
  for (auto& w : node.acc_state) {
    if constexpr (kept) w.ready = cycle;
    else w = cycle;
  }
}

template <bool kept>
void issue(Torus<kept>& t, Node<kept>& node, std::uint32_t cycle) {
  if (node.fma == fma_per_step) {
    if (node.sent < words || node.received < words || node.compute_done > cycle) return;
    advance(t, node, cycle);
    if (node.finished != not_yet) return;
  }
  const Instruction i = kept ? t.micro[node.step / t.p][node.fma] : instruction(node.step / t.p, node.fma);
  const auto& operand = node.x_state[node.cur][i.operand];
  auto& target = node.acc_state[i.accumulator];
  if constexpr (kept) {
    if (operand.generation != node.step + 1) {  // not landed yet (the gate lets none through)
      ++node.record.operand_stalls;
      return;
    }
  }
  if (ready_of(operand) > cycle || ready_of(target) > cycle) {
    if constexpr (kept) ++node.record.dependency_stalls;
    return;
  }
  node.acc[i.accumulator] = std::fma(node.coefficient[i.coefficient], node.x[node.cur][i.operand], node.acc[i.accumulator]);
  if constexpr (kept) {
    target.ready = cycle + t.fma_latency;
    ++node.record.busy;
    Kept::Span& span = node.record.steps[node.step];
    if (span.first == not_yet) span.first = cycle;
    span.last = cycle;
    node.record.last_progress = cycle;
  } else {
    target = cycle + t.fma_latency;
  }
  if (++node.fma < fma_per_step) return;
  node.compute_done = cycle + t.fma_latency;
  if constexpr (kept) {
    node.record.steps[node.step].done = node.compute_done;
    for (Word& w : node.x_state[node.cur]) ++w.owed;  // the roll's send owes every word
  }
}

template <bool kept>
void send(Torus<kept>& t, std::uint32_t n, std::uint32_t cycle) {
  Node<kept>& node = t.nodes[n];
  if (node.finished != not_yet || node.sent == words || node.compute_done > cycle) return;
  Link& link = t.out(n, node.step / t.p);
  const std::uint32_t returned = link.returned.load(std::memory_order_acquire);
  while (link.credits_seen != returned && link.credit_cycle[link.credits_seen % ring] <= cycle) {
    ++link.credits_seen;
    ++link.credits;
  }
  if (link.credits == 0) {
    if constexpr (kept) ++node.record.backpressure_stalls;
    return;
  }
  --link.credits;
  const std::uint32_t pushed = link.pushed.load(std::memory_order_relaxed);
  link.slots[pushed % ring] = {node.x[node.cur][node.sent], cycle + t.link_latency};
  link.pushed.store(pushed + 1, std::memory_order_release);
  if constexpr (kept) {
    --node.x_state[node.cur][node.sent].owed;
    ++node.record.words_sent;
  }
  ++node.sent;
}

// Returns how many nodes finished in this cycle.
template <bool kept>
std::uint32_t step_range(Torus<kept>& t, std::uint32_t first, std::uint32_t last, std::uint32_t cycle) {
  std::uint32_t finishing = 0;
  for (std::uint32_t n = first; n < last; ++n) {
    if (t.nodes[n].finished != not_yet) continue;
    receive(t, n, cycle);
    issue(t, t.nodes[n], cycle);
    send(t, n, cycle);
    finishing += t.nodes[n].finished != not_yet;
  }
  return finishing;
}

template <bool kept>
void initialise(Torus<kept>& t) {
  for (std::uint32_t dim = 0; dim < 3; ++dim)
    for (std::uint32_t f = 0; f < fma_per_step; ++f) t.micro[dim][f] = instruction(dim, f);
  for (std::uint32_t n = 0; n < t.nodes.size(); ++n) {
    Node<kept>& node = t.nodes[n];
    for (std::uint32_t dim = 0; dim < 3; ++dim) node.upstream[dim] = t.neighbour(n, dim, t.p - 1);
    for (std::uint32_t w = 0; w < words; ++w) node.x[0][w] = std::cos(0.37 * n + 1.3 * w);
    for (std::uint32_t k = 0; k < b * b; ++k) node.coefficient[k] = std::cos(0.5 * (2.0 * (k % b) + 1.0) * (k / b) / b);
    if constexpr (kept) {
      node.record.steps.resize(3 * t.p);
      for (Word& w : node.x_state[0]) w.generation = 1;
    }
  }
}

bool parse(std::string_view text, std::uint32_t& out, std::uint32_t least, std::uint32_t most, const char* name) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (error == std::errc() && end == text.data() + text.size() && out >= least && out <= most) return true;
  std::fprintf(stderr, "%s: %.*s is not a whole number from %u to %u\n", name, static_cast<int>(text.size()), text.data(), least, most);
  return false;
}

template <bool kept>
int run(Torus<kept>& t, std::uint32_t threads) {
  const std::uint32_t count = t.p * t.p * t.p;
  threads = std::min(threads, count);
  t.nodes = std::vector<Node<kept>>(count);
  t.links = std::vector<Link>(3 * std::size_t{count});
  initialise(t);

  std::atomic<std::uint32_t> cycle{0};
  std::atomic<std::uint32_t> finished{0};
  std::atomic<bool> done{false};
  std::barrier end_of_cycle(static_cast<std::ptrdiff_t>(threads), [&]() noexcept {
    done.store(finished.load(std::memory_order_relaxed) == count, std::memory_order_relaxed);
    cycle.fetch_add(1, std::memory_order_relaxed);
  });
  const auto work = [&](std::uint32_t part) {
    const std::uint32_t first = count * part / threads, last = count * (part + 1) / threads;
    while (!done.load(std::memory_order_relaxed)) {
      finished.fetch_add(step_range(t, first, last, cycle.load(std::memory_order_relaxed)), std::memory_order_relaxed);
      end_of_cycle.arrive_and_wait();
    }
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::jthread> helpers;
  for (std::uint32_t part = 1; part < threads; ++part) helpers.emplace_back(work, part);
  work(0);
  helpers.clear();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::uint32_t cycles = 0;
  std::uint64_t busy = 0;
  double checksum = 0;
  std::size_t bytes = sizeof(Node<kept>) + 3 * sizeof(Link);
  for (const Node<kept>& node : t.nodes) {
    cycles = std::max(cycles, node.finished + 1);
    for (const double v : node.acc) checksum += v;
    if constexpr (kept) busy += node.record.busy;
  }
  if constexpr (kept) bytes += t.nodes.front().record.steps.capacity() * sizeof(Kept::Span);
  const double node_cycles = static_cast<double>(cycles) * count;
  std::printf("%u %.6f %.3f %zu %.17g", cycles, seconds, node_cycles / seconds / 1e6, bytes, checksum);
  if constexpr (kept) std::printf(" %llu", static_cast<unsigned long long>(busy));
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) {
    std::fprintf(stderr, "usage: torus-bare-stepped-torus P FMA_LATENCY LINK_LATENCY THREADS [bare|kept]\n");
    return 2;
  }
  std::uint32_t p = 0, fma_latency = 0, link_latency = 0, threads = 1;
  if (!parse(argv[1], p, 2, 64, "P") || !parse(argv[2], fma_latency, 1, 64, "FMA_LATENCY") ||
      !parse(argv[3], link_latency, 1, 64, "LINK_LATENCY") || !parse(argv[4], threads, 1, 64, "THREADS"))
    return 2;
  const std::string_view mode = argc == 6 ? argv[5] : "bare";
  if (mode == "kept") {
    Torus<true> t{p, fma_latency, link_latency, {}, {}, {}};
    return run(t, threads);
  }
  if (mode != "bare") {
    std::fprintf(stderr, "MODE: %s is not bare or kept\n", argv[5]);
    return 2;
  }
  Torus<false> t{p, fma_latency, link_latency, {}, {}, {}};
  return run(t, threads);
}
