// The bare baseline for how the cycle engine's speed scales with the torus: the engine's memory
// per node, touched in a pattern like the engine's, with no simulation at all. Each node
// owns a block of BYTES_PER_NODE bytes (one allocation per node, as a node's state is its own);
// a round activates every node once, and an activation reads and writes LINES distinct cache
// lines of its node's block, independent of one another (a node's activation knows its
// addresses up front), each activation of a node moving on to lines it did not touch the round
// before (LINES at most half the block's lines).
// ORDER is the order of the nodes within a round: `fixed` (shuffled once, then the same every
// round: SystemC runs statically sensitive processes in one order) or `shuffled` (a new order
// each round: nodes that time their own wake-ups run in an order that changes).
// ACCESS (optional) is `independent` (the default: every address known up front, so the misses
// overlap) or `dependent` (the same lines, each address waiting for the word read before it:
// no two misses overlap, as when state is reached through pointers). Both touch the same words
// and print the same checksum.
// tools/benchmark.py runs it at the engine's two torus sizes in the same rounds as the engine
// and sets the two slow-downs side by side.
//
//   torus-bare-memory-walk NODES BYTES_PER_NODE LINES ROUNDS ORDER [ACCESS]
//
// prints the seconds the activations took (the shuffles between rounds not counted),
// nanoseconds per activation, and a checksum.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t line_bytes = 64;
constexpr std::size_t line_words = line_bytes / sizeof(std::uint64_t);

// Successive lines of one activation are at least 7 lines apart (in a block of more than 7
// lines), so that the hardware's next-line prefetch cannot bring one with another, and the step
// shares no factor with the block's length, so that the walk reaches every line of the block before it comes back.
std::size_t line_stride(std::size_t block_lines) {
  std::size_t stride = 7;
  while (std::gcd(stride, block_lines) != 1) ++stride;
  return stride % block_lines;
}

struct Walk {
  long nodes = 0, bytes_per_node = 0, lines = 0, rounds = 0;
  bool shuffled = false;
  bool dependent = false;
};

bool parse(std::string_view text, long& value, long low, long high) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() && value >= low && value <= high;
}

// Names the first argument that is out of range; nothing when all are valid.
bool read_arguments(int argc, char** argv, Walk& walk) {
  if (argc != 6 && argc != 7) {
    std::fprintf(stderr,
                 "usage: torus-bare-memory-walk NODES BYTES_PER_NODE LINES ROUNDS ORDER [ACCESS] (got %d arguments, 5 or 6 needed)\n",
                 argc - 1);
    return false;
  }
  struct Bound {
    const char* name;
    long* value;
    long low, high;
  };
  const Bound bounds[] = {{"NODES", &walk.nodes, 1, 1 << 20},
                          {"BYTES_PER_NODE", &walk.bytes_per_node, 64, 1 << 24},
                          {"LINES", &walk.lines, 1, 4096},
                          {"ROUNDS", &walk.rounds, 1, 1 << 24}};
  for (std::size_t k = 0; k < std::size(bounds); ++k)
    if (!parse(argv[k + 1], *bounds[k].value, bounds[k].low, bounds[k].high)) {
      std::fprintf(stderr, "torus-bare-memory-walk: %s is '%s'; allowed: a whole number from %ld to %ld\n", bounds[k].name,
                   argv[k + 1], bounds[k].low, bounds[k].high);
      return false;
    }
  const std::string_view order = argv[5];
  if (order != "fixed" && order != "shuffled") {
    std::fprintf(stderr, "torus-bare-memory-walk: ORDER is '%s'; allowed: fixed or shuffled\n", argv[5]);
    return false;
  }
  walk.shuffled = order == "shuffled";
  const std::string_view access = argc == 7 ? argv[6] : "independent";
  if (access != "independent" && access != "dependent") {
    std::fprintf(stderr, "torus-bare-memory-walk: ACCESS is '%s'; allowed: independent or dependent\n", argv[6]);
    return false;
  }
  walk.dependent = access == "dependent";
  const long total = walk.nodes * walk.bytes_per_node;
  if (total > (1L << 34)) {
    std::fprintf(stderr, "torus-bare-memory-walk: NODES x BYTES_PER_NODE is %ld bytes; allowed: at most 16 GiB\n", total);
    return false;
  }
  const long block_lines = walk.bytes_per_node / static_cast<long>(line_bytes);
  if (2 * walk.lines > block_lines) {
    std::fprintf(stderr,
                 "torus-bare-memory-walk: LINES is %ld; allowed: at most half the %ld lines of BYTES_PER_NODE = %ld (from 1 to "
                 "%ld), so that each activation moves on to lines the last did not touch\n",
                 walk.lines, block_lines, walk.bytes_per_node, block_lines / 2);
    return false;
  }
  return true;
}

// One activation: `lines` lines of the block, from line `first` on, `stride` apart (wrapping
// around the block's end), each read and written. No division per line: it would cost as
// much as an in-cache access.
template <bool dependent>
std::uint64_t activate(std::uint64_t* block, std::size_t block_lines, std::size_t first, std::size_t stride, std::size_t lines,
                       std::uint64_t zero) {
  std::uint64_t sum = 0;
  std::size_t line = first;
  for (std::size_t l = 0; l < lines; ++l) {
    std::uint64_t& word = block[line * line_words];
    sum += word;
    word = sum;
    // `zero` is 0, but the compiler cannot know: the next address waits for this word's value.
    if constexpr (dependent) line += static_cast<std::size_t>(word & zero);
    line += stride;
    if (line >= block_lines) line -= block_lines;
  }
  return sum;
}

}  // namespace

int main(int argc, char** argv) {
  Walk walk;
  if (!read_arguments(argc, argv, walk)) return 2;
  volatile std::uint64_t opaque_zero = 0;  // read through volatile: the compiler cannot fold it away
  const std::uint64_t zero = opaque_zero;
  const auto nodes = static_cast<std::size_t>(walk.nodes);
  const std::size_t block_lines = static_cast<std::size_t>(walk.bytes_per_node) / line_bytes;
  const std::size_t stride = line_stride(block_lines);
  std::vector<std::unique_ptr<std::uint64_t[]>> blocks(nodes);
  for (auto& block : blocks) {
    block = std::make_unique<std::uint64_t[]>(block_lines * line_words);
    std::iota(block.get(), block.get() + block_lines * line_words, std::uint64_t{0});  // touched: no page is first faulted in the walk
  }
  std::vector<std::uint32_t> order(nodes);
  std::iota(order.begin(), order.end(), 0u);
  std::mt19937_64 random(1);
  std::shuffle(order.begin(), order.end(), random);
  const auto lines = static_cast<std::size_t>(walk.lines);
  std::uint64_t checksum = 0;
  double seconds = 0;
  for (long round = 0; round < walk.rounds; ++round) {
    if (walk.shuffled && round > 0) std::shuffle(order.begin(), order.end(), random);
    // Round r takes lines r * LINES to (r + 1) * LINES - 1 of the block in stride order.
    const std::size_t first = static_cast<std::size_t>(round) % block_lines * lines % block_lines * stride % block_lines;
    const auto start = std::chrono::steady_clock::now();
    for (const std::uint32_t node : order)
      checksum += walk.dependent ? activate<true>(blocks[node].get(), block_lines, first, stride, lines, zero)
                                 : activate<false>(blocks[node].get(), block_lines, first, stride, lines, zero);
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::printf("%.6f %.3f %llu\n", seconds, seconds * 1e9 / (static_cast<double>(walk.rounds) * static_cast<double>(nodes)),
              static_cast<unsigned long long>(checksum));
  return 0;
}
