#pragma once
// Values from a translation quotient, on every node it stands for, without building the whole
// Program: every node runs the quotient's one task list, with its own loads and outputs
// (QuotientNodeBlocks), and a message goes to the node its route's displacement reaches.
//
// Because every node runs the same list, the nodes can run it in lockstep: a group of
// consecutive tasks on all nodes (in parallel over `threads`, each node its whole group in
// one go, so its blocks are fetched once), then the next group. A group ends before a task
// that takes a message sent within it. Where the messages of several groups stay within
// components of the torus (a stage's rolls within planes), each component runs those groups in
// turn before the next, so its blocks stay in cache (sim/lockstep_plan.hpp). The meaning of the task order is the one
// sim/program_executor.hpp states (a send snapshots its buffer; a posted receive fills its
// buffer when a later task touches it). Lockstep is a legal order when every message is sent
// at an earlier place in the list than the first task that needs it; in any Program that
// cannot deadlock this holds (a node waiting at place j for a copy sent at place s >= j would
// wait for its neighbour, which waits for its own neighbour at the same place, around the
// ring), and a quotient where it fails is refused with std::logic_error. Computes use
// sim/block_kernel.hpp: the bits of every timing engine's values. A send whose buffer is
// overwritten before it is read again hands over its storage instead of a copy.

#include <cstddef>
#include <vector>

#include "sim/host_data.hpp"
#include "sim/program.hpp"

namespace torus {

// [node][buffer]: each node's words at the end of its list.
template <class T>
using NodeBuffers = std::vector<std::vector<std::vector<T>>>;

// `quotient` verified (sim/program_verifier.hpp); `nodes[n]` for every node of its shape.
template <class T>
NodeBuffers<T> execute_quotient(const Program& quotient, const std::vector<QuotientNodeBlocks>& nodes,
                                const HostData<T>& host, unsigned threads);

// The quotient's outputs for every node: node n's buffer is node (0,0,0)'s, its block is
// nodes[n].outputs[i] (for gathering the values execute_quotient returns).
std::vector<ProgramOutput> quotient_outputs(const Program& quotient, const std::vector<QuotientNodeBlocks>& nodes);

}  // namespace torus
