#pragma once
// The transpose-based 3D transforms (slab, pencil and the ring transpose of "FFT for the APE
// Parallel Computer", Lippert et al.): the tensor is spread over a Pr x Pc grid of processes,
// each holding whole lines along one axis. A node transforms its lines locally, then an
// all-to-all within rows or columns of the process grid (a transpose) makes the next axis
// local, three times. The layouts follow one rule: the first layout cuts axis `axis_r` into Pr
// and `axis_c` into Pc parts and keeps the first axis of `order` whole; before the transform of
// axis a_{k+1}, the cut of a_{k+1} moves to a_k (the axis just transformed). Slab is Pr = 1,
// pencil Pr, Pc > 1. The inverse runs the axes in reverse order from the forward's last
// layout, so a round trip ends in the first layout.
//
// Each local transform is a sum of mode products over the pieces its lines arrived in (a dense
// product with the whole coefficient matrix, cut to the pieces), computed per destination
// piece, which leaves for its destination at once. Skewing (seed 004) is local addressing on a
// MIMD node: no task.

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/algorithm.hpp"

namespace torus {

struct TransposePlan {
  std::string algorithm;    // registered name
  std::string description;  // the process grid and placement, for the Program's description
  std::size_t pr = 1, pc = 1;
  std::array<int, 3> order{1, 2, 3};  // forward: the axes in the order they are transformed
  int axis_r = 2, axis_c = 3;         // forward's first layout: the axes Pr and Pc cut
  std::vector<std::size_t> node_of;   // process i * pc + j -> node index
  // The process that `process` sends to (toward = +1) or receives from (-1) at step j = 1..G-1
  // of an exchange among the G processes that differ only in coordinate `factor` (0: i, 1: j).
  std::function<std::size_t(const TransposePlan& plan, std::size_t process, int factor, std::size_t j, int toward)> partner;
  // The links a message takes from one node to another.
  std::function<std::vector<Direction>(std::size_t from, std::size_t to)> route;
};

// The default partner rule: the G processes of a group on a ring, step j sends j places on.
std::size_t ring_partner(const TransposePlan& plan, std::size_t process, int factor, std::size_t j, int toward);

// The Program of the plan for the problem (every direction in order; a round trip chains).
// Throws std::invalid_argument naming the parameter when the problem does not fit the plan.
Program build_transpose_program(const TransposePlan& plan, const TransformProblem& problem);

// An algorithm of this family: its name and how it lays the process grid on the torus.
std::unique_ptr<Algorithm> make_transpose_algorithm(std::string name,
                                                    std::function<TransposePlan(const TransformProblem&)> plan);

// The algorithm's own checks on its Program: every output element's lines were reduced over
// every piece exactly once per axis (each compute's coefficient block and pieces fit).
AlgorithmCheck prove_transpose_program(const Program& program);

}  // namespace torus
