#pragma once
// Runs Catch2 on the command line. Catch2 declares its Session only where its implementation is
// compiled (tests/catch_impl.cpp, once for every test program), so the mains call this instead.
int run_catch_session(int argc, char* argv[]);
