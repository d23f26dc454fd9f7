// Catch2's own implementation, compiled once and linked into every test program: it is the
// largest translation unit of the tests (about 18 s of a Release build, 58 s with gcc's
// sanitizers), and each program's main (main.cpp, model/main.cpp) only hands over to it.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.hpp"

int run_catch_session(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
