// The event engine's closed forms of whole computes (docs/timing-model.md, "Closed forms of a
// whole compute") against the same engine timing every compute per instruction (the test hook
// event_closed_forms off) and, on the smallest runs, against the SystemC engine: on a
// fixed-seed random set of problems and machines, uneven blocks, meshes and per-axis tori
// included, 1 to 8 fma per cycle, both algorithms, roll policies and micro-schedules, real and
// complex data, every report figure must be the same.

#include <catch2/catch.hpp>

#include <array>
#include <random>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {


std::string pick(std::mt19937& rng, const std::vector<std::string>& from) {
  return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
}

struct Configuration {
  std::string arguments;
};

// A problem whose blocks may be uneven (N_a mod P_a != 0), on a cubic torus (orbital) or any
// P1xP2xP3 (orbital with local coefficients), and a machine drawn from the engines' ranges.
Configuration random_configuration(std::mt19937& rng) {
  const auto draw = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const auto extent = [&](int p) {
    const int rest = draw(0, p - 1);
    return std::to_string(p * draw(1, 3) + rest);
  };
  const bool local = draw(0, 1) == 1;
  std::string shape, extents;
  if (local) {
    const std::vector<std::string> shapes{"2x3x4", "4x2x1", "3x2x2", "1x2x3", "2x2x2", "3x1x2"};
    shape = pick(rng, shapes);
    for (std::size_t a = 0; a < 3; ++a) {
      const int p = shape[2 * a] - '0';
      extents += (a ? "x" : "") + extent(p);
    }
  } else {
    const int p = draw(1, 4);
    shape = std::to_string(p);
    extents = extent(p);
  }
  return {"--algorithm " + std::string(local ? "orbital_local_coefficients" : "orbital") + " --P " + shape + " --N " + extents +
         " --boundary " + pick(rng, {"torus", "torus", "mesh", "torus,mesh,torus"}) + " --direction " +
         pick(rng, {"forward", "inverse", "both"}) + " --fma_latency " + pick(rng, {"1", "3", "5", "8", "16"}) +
         " --fma_per_cycle " + pick(rng, {"1", "2", "3", "4", "8"}) + " --link_latency " + pick(rng, {"1", "2", "8"}) +
         " --link_words_per_cycle " + pick(rng, {"1", "2", "1/2", "2/3", "3/2"}) + " --link_buffer_words " +
         pick(rng, {"1", "5", "auto"}) + " --roll_policy " + pick(rng, {"after_compute", "overlapped"}) +
         " --micro_schedule " + pick(rng, {"interleaved", "chained"}) + " --transform " + pick(rng, {"dct", "dft"}) +
         " --complex_fma_cost " + pick(rng, {"1", "4"})};
}

// Blocks of two sizes where the memory estimate counts on closed forms for every compute and
// message (sim/memory_estimate.cpp): the local-coefficient Program on any mix of torus and mesh
// axes (on a mesh axis of more than two nodes the roll across the edge goes back through the
// routers) with at least one uneven axis, after_compute, interleaved, link buffers auto, blocks
// of at least fma_latency x fma_per_cycle words within 20% of each other taking at least two
// link latencies on a link, any start-up.
Configuration random_uneven(std::mt19937& rng, bool meshes) {
  const auto draw = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> shapes{"2x3x4", "4x2x1", "3x2x2", "2x2x2", "4x4x2", "3x3x3", "5x2x3", "4x1x3"};
  const std::string shape = pick(rng, shapes);
  std::string extents, boundary;
  std::int64_t largest = 1;
  for (std::size_t a = 0; a < 3; ++a)  // tori only: a mesh axis of at most two nodes rolls one link back
    boundary += std::string(a ? "," : "") + ((meshes || shape[2 * a] <= '2') && draw(0, 1) == 1 ? "mesh" : "torus");
  std::int64_t smallest = 1;
  for (bool uneven = false; !uneven || 5 * (largest - smallest) > smallest;) {  // within 20%
    extents.clear();
    smallest = largest = 1;
    uneven = false;
    for (std::size_t a = 0; a < 3; ++a) {
      const int p = shape[2 * a] - '0', rest = draw(0, p - 1), n = p * draw(1, 12) + rest;
      uneven = uneven || rest != 0;
      smallest *= n / p;
      largest *= (n + p - 1) / p;
      if (a) extents += 'x';
      extents += std::to_string(n);
    }
  }
  std::int64_t latency = draw(1, 6), per_cycle = std::stoi(pick(rng, {"1", "2", "4", "8"}));
  if (smallest < latency * per_cycle) per_cycle = 1;
  latency = std::min(latency, smallest);
  // A block takes at least two link latencies on its link: a slower link, a shorter latency.
  const std::vector<std::array<int, 2>> rates{{1, 1}, {2, 1}, {1, 2}, {2, 3}, {3, 2}, {1, 16}};  // num, den
  std::array<int, 2> rate = rates[std::uniform_int_distribution<std::size_t>(0, rates.size() - 1)(rng)];
  if (smallest * rate[1] < 2 * rate[0]) rate = {1, 2};
  const int most_latency = static_cast<int>(smallest * rate[1] / (2 * rate[0]));
  const int link_latency = std::min(std::stoi(pick(rng, {"1", "2", "8", "85"})), most_latency);
  return {"--algorithm orbital_local_coefficients --P " + shape + " --N " + extents + " --boundary " + boundary + " --direction " +
          pick(rng, {"forward", "inverse", "both"}) + " --fma_latency " + std::to_string(latency) + " --fma_per_cycle " +
          std::to_string(per_cycle) + " --link_latency " + std::to_string(link_latency) + " --link_words_per_cycle " +
          std::to_string(rate[0]) + "/" + std::to_string(rate[1]) +
          " --message_startup_cycles " + pick(rng, {"0", "0", "7", "300"}) +
          " --transform " + pick(rng, {"dct", "dft"}) + " --complex_fma_cost " + pick(rng, {"1", "4"})};
}

// All-to-all transposes routed through contended routers (slab, pencil and ring-transpose FFTs)
// on machines drawn from the engines' ranges, link buffers small enough (a few) that words
// wait for credits and go per word.
Configuration routed_transpose(std::mt19937& rng) {
  const std::vector<std::string> problems{"--algorithm ring_transpose_fft --N 32x32x1 --P 2x2x4",
                                          "--algorithm ring_transpose_fft --N 16x16x1 --P 2x2x2",
                                          "--algorithm ring_transpose_fft --N 24x16x1 --P 2x2x1",
                                          "--algorithm ring_transpose_fft --N 64x64x1 --P 4x2x2",
                                          "--algorithm slab_fft --N 16 --P 2x2x2",
                                          "--algorithm pencil_fft --N 16 --P 4x4x1",
                                          "--algorithm pencil_fft --N 8x16x8 --P 2x4x1"};
  return {pick(rng, problems) + " --transform dft --direction " + pick(rng, {"forward", "inverse", "both"}) +
          " --local_kernel " + pick(rng, {"auto", "auto", "dense"}) + " --fma_latency " + pick(rng, {"1", "4", "7"}) +
          " --fma_per_cycle " + pick(rng, {"1", "2", "64"}) + " --link_latency " + pick(rng, {"1", "2", "8"}) +
          " --link_words_per_cycle " + pick(rng, {"1", "2", "1/2", "2/3", "1/16"}) + " --link_buffer_words " +
          pick(rng, {"auto", "auto", "auto", "3", "40"}) + " --message_startup_cycles " + pick(rng, {"0", "7", "512"}) +
          " --precision " + pick(rng, {"float", "double"})};
}

Configuration uneven_on_tori(std::mt19937& rng) { return random_uneven(rng, false); }
Configuration uneven_on_meshes(std::mt19937& rng) { return random_uneven(rng, true); }

// `count` configurations drawn by `draw` from `seed`; the first `with_systemc` are timed by the
// SystemC engine too. `covered`: every compute and message must take the closed forms.
// `deadlocks`: a configuration may deadlock (wormhole routing with small link buffers), which
// every engine must then report as a stall (exit 5).
void compare(unsigned seed, int count, int with_systemc, Configuration (*draw)(std::mt19937&) = random_configuration,
             bool covered = false, bool deadlocks = false) {
  std::mt19937 rng(seed);
  for (int i = 0; i < count; ++i) {
    const Configuration configuration = draw(rng);
    const std::string run = "run --values off " + configuration.arguments;
    INFO(run);
    const CliRun closed = run_cli(run + " --engine event");
    const CliRun per_word = run_cli(run + " --engine event --event_closed_forms off");
    INFO(closed.output);
    if (deadlocks && closed.exit_code == 5) {
      CHECK(per_word.exit_code == 5);
      if (i < with_systemc) CHECK(run_cli(run + " --engine systemc").exit_code == 5);
      continue;
    }
    REQUIRE(closed.exit_code == 0);
    REQUIRE(per_word.exit_code == 0);
    CHECK(timing_machine_figures(closed.report["timing"]) == timing_machine_figures(per_word.report["timing"]));
    CHECK(closed.report["transforms"] == per_word.report["transforms"]);
    if (covered)
      CHECK_THAT(closed.report["timing"]["fast_forward_note"].get<std::string>(), Catch::Contains("every compute and message"));
    if (i >= with_systemc) continue;
    const CliRun systemc = run_cli(run + " --engine systemc");
    REQUIRE(systemc.exit_code == 0);
    CHECK(timing_machine_figures(closed.report["timing"]) == timing_machine_figures(systemc.report["timing"]));
  }
}

}  // namespace

TEST_CASE("closed forms: the event engine's report equals timing every compute per instruction, and SystemC's",
          "[scenario][event][closed_form]") {
  compare(9, 40, 8);
}

TEST_CASE("closed forms cover every compute and message of an eligible run, at any block size",
          "[scenario][event][closed_form]") {
  // Blue Gene/P-like: 8 fma per cycle, latency 5; N 12 on 4x2x2 has 3x6x6 blocks, 324 fma per
  // compute, so each compute ends with 4 of its cycle's 8 slots free and the next starts there.
  const std::string bgp = " --algorithm orbital_local_coefficients --fma_per_cycle 8 --fma_latency 5 --link_bytes_per_cycle 1/2 "
                          "--link_latency 85 --message_startup_cycles 2550 --complex_fma_cost 4";
  for (const std::string& run : {std::string("--N 16 --P 2x2x4 --algorithm orbital_local_coefficients"), std::string("--N 12 --P 3 --transform dft"),
                                std::string("--N 1600 --P 16x8x8 --algorithm orbital_local_coefficients --direction forward"),
                                "--N 12 --P 4x2x2" + bgp, "--N 12 --P 4x2x2 --transform dft" + bgp,
                                // meshes: rolls across the edge go 3 hops back through the routers
                                "--N 12 --P 4x3x2 --boundary mesh --direction both" + bgp,
                                "--N 1200 --P 8x4x4 --boundary mesh --direction forward" + bgp,
                                // blocks of two sizes on tori (Blue Gene/P's partitions of 512 nodes and more)
                                std::string("--N 13 --P 2x2x4 --algorithm orbital_local_coefficients"), "--N 30 --P 4x4x2" + bgp,
                                "--N 1000 --P 16x8x8 --direction forward --transform dft" + bgp,
                                // and on meshes, rolled through routers (the smaller partitions: the study's 128 and 256 nodes)
                                "--N 300 --P 8x4x4 --boundary mesh --direction forward" + bgp,
                                "--N 300 --P 8x8x4 --boundary mesh --direction inverse --transform dft" + bgp}) {
    INFO(run);
    const CliRun done = run_cli("run --engine event --values off " + run);
    INFO(done.output);
    REQUIRE(done.exit_code == 0);
    CHECK(done.report["timing"]["fast_forward_note"].get<std::string>().find("closed forms: every compute and message") !=
          std::string::npos);
  }
}

TEST_CASE("closed forms: a run that would keep per-word state at a huge size is refused, naming why",
          "[scenario][event][closed_form][errors]") {
  // Blocks of two sizes in the orbital Program (three blocks roll per step) keep per-word state.
  const CliRun refused = run_cli("run --engine event --values off --N 1002 --P 8 --algorithm orbital");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Catch::Contains("memory:") && Catch::Contains("blocks of two sizes (N not a multiple of P) with algorithm orbital"));
  const CliRun chained = run_cli(
      "run --engine event --values off --N 1600 --P 16x8x8 --algorithm orbital_local_coefficients --micro_schedule chained");
  CHECK(chained.exit_code == 2);
  CHECK_THAT(chained.output, Catch::Contains("micro_schedule chained"));
}

TEST_CASE("closed forms: 400 more random runs against per-instruction timing and SystemC", "[.][long][closed_form]") {
  compare(90, 400, 60);
}

TEST_CASE("closed forms: blocks of two sizes on tori are timed whole, as per word and as SystemC times them",
          "[scenario][event][closed_form]") {
  compare(11, 10, 4, uneven_on_tori, true);
}

TEST_CASE("closed forms: 150 more runs of blocks of two sizes on tori against per-word timing and SystemC", "[.][long][closed_form]") {
  compare(110, 150, 40, uneven_on_tori, true);
}

// Rolls across a mesh's edge go through routers; one whose last word's credit is not known yet
// waits for it, as a one-hop roll does (docs/timing-model.md), instead of going per word: were
// that wait to hide an ask a router's grant needed, the closed forms would differ from per-word
// timing and from SystemC here.
TEST_CASE("closed forms: blocks of two sizes on meshes, rolled through routers, are timed whole, as per word and as SystemC times them",
          "[scenario][event][closed_form][mesh]") {
  compare(12, 10, 4, uneven_on_meshes, true);
}

TEST_CASE("closed forms: 150 more runs of blocks of two sizes on meshes against per-word timing and SystemC", "[.][long][closed_form]") {
  compare(120, 150, 40, uneven_on_meshes, true);
}

TEST_CASE("closed forms: shared fma cycles and meshes on Blue Gene/P-like machines, against per-instruction timing and SystemC",
          "[scenario][event][closed_form]") {
  for (const std::string run : {"--N 12 --P 4x2x2 --fma_per_cycle 8 --fma_latency 5",
                                "--N 12 --P 4x3x2 --boundary mesh --fma_per_cycle 8 --fma_latency 5 --transform dft --complex_fma_cost 4",
                                "--N 8x12x6 --P 4x3x2 --boundary mesh --fma_per_cycle 3 --link_words_per_cycle 2/3 --link_latency 7"}) {
    const std::string full = "run --values off --algorithm orbital_local_coefficients --direction both " + run;
    INFO(full);
    const CliRun closed = run_cli(full + " --engine event");
    const CliRun per_word = run_cli(full + " --engine event --event_closed_forms off");
    const CliRun systemc = run_cli(full + " --engine systemc");
    REQUIRE(closed.exit_code == 0);
    REQUIRE(per_word.exit_code == 0);
    REQUIRE(systemc.exit_code == 0);
    CHECK(closed.report["timing"]["fast_forward_note"].get<std::string>().find("closed forms: every compute and message") !=
          std::string::npos);
    CHECK(timing_machine_figures(closed.report["timing"]) == timing_machine_figures(per_word.report["timing"]));
    CHECK(timing_machine_figures(closed.report["timing"]) == timing_machine_figures(systemc.report["timing"]));
  }
}

// The event engine decides router grants when its work list runs dry, so it must wake every
// message that can move on and no more (waking a node's every message per word was quadratic
// in an all-to-all); it sends, forwards and stores routed messages whole, also on links other
// messages pass through and at hops that wait for their link. Either going wrong shows here as
// a report that differs from per-word timing and from SystemC's.
TEST_CASE("closed forms: routed all-to-all transposes, whole and per word, as SystemC times them",
          "[scenario][event][closed_form][router]") {
  compare(13, 16, 16, routed_transpose, false, true);
}

TEST_CASE("closed forms: 200 more routed transposes against per-word timing and SystemC", "[.][long][closed_form][router]") {
  compare(130, 200, 60, routed_transpose, false, true);
}

TEST_CASE("a routed all-to-all on the APE100's links, to the cycle: every message and hop whole, as SystemC times it",
          "[scenario][event][closed_form][router]") {
  // 16 nodes, 240 messages over 400 hops contending for the + links; a complex float takes 16
  // cycles on a link (1/2 byte per cycle), every message pays 512 cycles of start-up.
  const std::string run = "run --values off --algorithm ring_transpose_fft --N 64x64x1 --P 4x2x2 --transform dft "
                          "--direction forward --precision float --link_bytes_per_cycle 1/2 --message_startup_cycles 512";
  for (const std::string engine : {"--engine event", "--engine event --event_closed_forms off", "--engine systemc"}) {
    INFO(engine);
    const CliRun done = run_cli(run + " " + engine);
    REQUIRE(done.exit_code == 0);
    CHECK(done.report["timing"]["total_cycles"] == 21059);
    const nlohmann::json& q = done.report["timing"]["links"][0];  // +Q: the ring's long way, most contended
    CHECK(q["direction"] == "+Q");
    CHECK(q["wait_cycles"] == 758336);
    CHECK(q["peak_occupancy"] == 176);  // messages queued behind others in a router's input buffer
    if (engine == "--engine event")
      CHECK_THAT(done.report["timing"]["fast_forward_note"].get<std::string>(), Catch::Contains("closed forms: every compute and message"));
  }
}
