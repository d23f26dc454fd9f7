// Every injected fault is detected and reported with where and when: data faults by the golden
// check (which names the affected output blocks and their nodes), lost work by the watchdog
// (which names who waits on what). A run with a fault never passes.

#include <catch2/catch.hpp>

#include "tests/cli_runner.hpp"

using namespace torus;

namespace {

// N = 8, P = 4 (b = 2), forward only, alpha +++: every link along +Q, +R, +S carries blocks.
CliRun faulty(const std::string& fault) {
  return run_cli("run --N 8 --P 4 --direction forward --fault_node 1,2,3 --fault " + fault);
}

}  // namespace

TEST_CASE("a flipped bit on a link is caught by the golden check, with the blocks it spoiled", "[scenario][fault]") {
  const CliRun run = faulty("bit_flip --fault_link +Q --fault_cycle 30 --fault_bit 52");
  INFO(run.output);
  CHECK(run.exit_code == 3);
  CHECK(run.report["passed"] == false);
  const std::string fault = run.report["fault"];
  CHECK_THAT(fault, Catch::Contains("flipped bit 52 of word") && Catch::Contains("on link (1,2,3) +Q at cycle 46"));
  const std::string mismatch = run.report["transforms"][0]["mismatch"];
  CHECK_THAT(mismatch, Catch::Contains("first mismatching output block Y(") &&
                           Catch::Contains("16 of 64 output blocks beyond their bounds") && Catch::Contains("first wrong stage: I"));
}

TEST_CASE("a corrupted coefficient is caught, and the first wrong stage is named", "[scenario][fault]") {
  const CliRun run = faulty("corrupt_coefficient --fault_bit 52");
  CHECK(run.exit_code == 3);
  CHECK_THAT(run.report["fault"].get<std::string>(), Catch::Contains("word 0 of coefficient block C3("));
  CHECK_THAT(run.report["transforms"][0]["mismatch"].get<std::string>(), Catch::Contains("first wrong stage: I (n3 -> k3"));
}

TEST_CASE("a dropped word stops the torus and the watchdog says who waits", "[scenario][fault][watchdog]") {
  const CliRun run = faulty("drop_word --fault_link +Q --fault_cycle 30 --watchdog_cycles 500");
  CHECK(run.exit_code == 5);
  CHECK_THAT(run.output, Catch::Contains("stalled: no fma issued and no word moved for 500 cycles"));
  // The +Q neighbour of (1,2,3) lacks the word: it has got least far and is named first.
  CHECK_THAT(run.output, Catch::Contains("nodes wait (the first 8):\n  node (2,2,3): global step 2 (stage 1, step 2)") &&
                             Catch::Contains("waiting for whole incoming blocks"));
  CHECK_THAT(run.output, Catch::Contains("injected fault: dropped word 0 of C3(") &&
                             Catch::Contains("on link (1,2,3) +Q at cycle 46"));
}

TEST_CASE("a node that stops issuing is found by the watchdog", "[scenario][fault][watchdog]") {
  const CliRun run = faulty("stuck_node --fault_cycle 100 --watchdog_cycles 500");
  CHECK(run.exit_code == 5);
  CHECK_THAT(run.output, Catch::Contains("node (1,2,3): stuck by the injected fault since cycle 100"));
  CHECK_THAT(run.output, Catch::Contains("injected fault: torus.node_57 stopped issuing at cycle 100"));
}

TEST_CASE("a fault that never fires is reported as such, and a healthy run stays exact", "[scenario][fault]") {
  const CliRun late = faulty("bit_flip --fault_cycle 1000000");
  CHECK(late.exit_code == 0);
  CHECK_THAT(late.report["fault"].get<std::string>(), Catch::Contains("was set but never fired"));
  const CliRun healthy = run_cli("run --N 8 --P 4 --direction forward");
  CHECK(healthy.report["timing"]["total_cycles"] == late.report["timing"]["total_cycles"]);
  CHECK_FALSE(healthy.report.contains("fault"));
  CHECK_THAT(run_cli("run --N 8 --P 4 --fault stuck_node --fault_node 4,0,0").output,
             Catch::Contains("fault_node: '4,0,0' is outside the 4x4x4 torus"));
}

TEST_CASE("a run issued ahead keeps its progress: no false stall while its fma issue", "[scenario][fault][watchdog]") {
  // A node that issued a run ahead and moved a word in the same cycle once recorded that cycle
  // as its last progress, not the run's last fma: with a window shorter than the run, the
  // watchdog stopped a run that fast-forward off and the event engine finish (found by the
  // cross-engine fuzz round; at N = 8x28x28 it took the default window).
  const std::string run = "run --N 8x4x4 --P 1x2x2 --algorithm slab_fft --watchdog_cycles 10 --engine ";
  const CliRun on = run_cli(run + "systemc");
  INFO(on.output);
  REQUIRE(on.exit_code == 0);
  CHECK(on.report["timing"]["total_cycles"] == 1049);
  CHECK(run_cli(run + "systemc --fast_forward off").report["timing"]["total_cycles"] == 1049);
  CHECK(run_cli(run + "event").report["timing"]["total_cycles"] == 1049);
}

TEST_CASE("a wormhole deadlock is named as such, with the buffer that allows it", "[scenario][watchdog][router]") {
  // The nodes of a ring of 4 send 4-word pieces on through their neighbours over small buffers:
  // the messages hold the ring's links and wait for each other's credits.
  const std::string run = "run --N 8x8x4 --P 4x1x2 --algorithm ring_transpose_fft --transform dft --direction forward "
                          "--values off --link_buffer_words 1 --engine ";
  for (const char* engine : {"systemc", "event"}) {
    const CliRun stalled = run_cli(run + engine);
    INFO(engine << ": " << stalled.output);
    CHECK(stalled.exit_code == 5);
    CHECK_THAT(stalled.output, Catch::Contains("link_buffer_words: 1 word is less than the default (auto: 64, two of the "
                                               "largest block)") &&
                                   Catch::Contains("wormhole deadlock"));
  }
  CHECK_THAT(run_cli(run + "systemc").output, Catch::Contains("cycle of waits: (0,0,0) waits for a credit on +Q from (1,0,0)"));
  // Buffers of 16 words hold four of the largest messages and still deadlock; 32 do not.
  const std::string sized = "run --N 8x8x4 --P 4x1x2 --algorithm ring_transpose_fft --transform dft --direction forward "
                            "--values off --link_buffer_words ";
  CHECK_THAT(run_cli(sized + "16").output, Catch::Contains("link_buffer_words: 16 words is less than the default"));
  CHECK(run_cli(sized + "32").exit_code == 0);
  // A stall a fault causes is not blamed on the buffers.
  const CliRun faulty = run_cli(sized + "2 --fault stuck_node --fault_cycle 5");
  CHECK(faulty.exit_code == 5);
  CHECK_THAT(faulty.output, !Catch::Contains("wormhole"));
}

TEST_CASE("a word passing through keeps a run issued ahead as the node's progress", "[scenario][fault][watchdog]") {
  // Node (0,1,0) issued a 2,304-fma chained compute ahead while a word passed through it; the
  // router set its last progress to that cycle, not the run's last fma, and with every other node
  // waiting on the stuck one the watchdog fired inside the run (found by an adversarial round).
  // The stall report must be the stepping run's.
  const std::string run = "run --N 12x12x8 --P 1x3x2 --algorithm pencil_fft --transform dft --micro_schedule chained "
                          "--fault stuck_node --watchdog_cycles 1000 --values off --fast_forward ";
  const CliRun on = run_cli(run + "on"), off = run_cli(run + "off");
  CHECK(on.exit_code == 5);
  CHECK(off.exit_code == 5);
  const auto stall = [](const std::string& output) { return output.substr(output.find("stalled:")); };
  CHECK(stall(on.output) == stall(off.output));
  CHECK_THAT(stall(on.output), Catch::Contains("node (0,1,0): global step 2 (stage 3, step 0), fma 0 of 1536"));
}
