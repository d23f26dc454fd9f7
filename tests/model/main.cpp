// Entry point of the SystemC model tests. Our own main switches SystemC's banner off (it would
// otherwise land in the test listing ctest reads) and hands over to SystemC, which calls
// sc_main. Each test case runs in its own process under ctest, so each elaborates its own design.

#include <cstdlib>

#include "models/cycle/systemc.hpp"
#include "tests/catch_session.hpp"

int main(int argc, char* argv[]) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}

int sc_main(int argc, char* argv[]) { return run_catch_session(argc, argv); }
