#pragma once
// What the functional executor checks before it trusts a Program's indices: every buffer,
// kernel, message, detail record and host block a task names exists and is large enough.
// Memory safety only; verify_program (sim/program_verifier.hpp) explains what is wrong.

#include <cstddef>
#include <string>

#include "sim/host_data.hpp"
#include "sim/program.hpp"

namespace torus {

// Throws std::logic_error naming the first task (task_location) whose indices do not fit.
template <class T>
void check_program_bounds(const Program& program, const HostData<T>& host);

// "node (x,y,z), task k (kind, transform t stage s step j)"
std::string task_location(const Program& program, std::size_t node, std::size_t task);

}  // namespace torus
