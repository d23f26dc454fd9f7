#pragma once
// SystemC elaborates one design per process and its kernel cannot be reset after a
// simulation has run. To run several simulations from one program (tests that compare runs,
// tools that loop), each one runs here in a child process: `body` elaborates and simulates,
// and what it returns comes back as JSON. An exception in the child is rethrown in the parent
// as std::runtime_error with the child's message.

#include <functional>

#include <nlohmann/json.hpp>

namespace torus {

nlohmann::json run_isolated(const std::function<nlohmann::json()>& body);

// Throws std::logic_error when this process has already started a SystemC simulation: a
// second one must go through run_isolated.
void require_fresh_systemc_kernel();

}  // namespace torus
