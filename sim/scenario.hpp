#pragma once
// Scenario files (YAML). A scenario sets parameters by their declared names at the top level,
// may pull in fragments (machine presets) with `include`, and may list values to sweep:
//
//   description: block size study at N = 32
//   include: [machines/ape100.yaml]     # paths relative to this file; later settings win
//   N: 32
//   transform: dct
//   sweep:
//     P: [1, 2, 4, 8, 16, 32]
//     fma_latency: [1, 4, 8]
//
// `sweep_blocks: any` keeps the combinations whose P does not divide N (uneven blocks); by
// default (`even`) they are dropped.
//
// Every key must be a declared parameter (or description, include, sweep, sweep_blocks), given once, in one
// YAML document; errors name the file, line and column, the value and what is allowed. Paths
// (include and every path parameter, swept ones too) are relative to the file's folder. At
// most 100 documents may be included in all.

#include <string>
#include <utility>
#include <vector>

#include "sim/parameters.hpp"

namespace torus {

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

struct Scenario {
  std::string path;
  std::vector<std::string> files;  // every document read: the file, then its includes as met
  std::string description;
  // Parameter settings in the order they apply (includes first), as key and text value.
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<SweepAxis> sweep;  // in file order; the sweep is their Cartesian product
  // sweep_blocks: even (the default: combinations where P does not divide N are dropped) or
  // any (kept, with uneven blocks).
  bool sweep_uneven = false;
};

// Reads and checks a scenario against `parameters` (each setting is tried on it, so a bad
// value fails here with its location). Throws std::invalid_argument "FILE:LINE:COL: ...".
Scenario load_scenario(const std::string& path, ParameterSet& parameters);

// How many points the sweep lists make (their product); throws std::invalid_argument beyond
// a million.
std::size_t sweep_size(const Scenario& scenario);

// The points of a sweep: each is the list of (key, value) to set on top of the scenario,
// the first axis varying slowest. One empty point when there is nothing to sweep.
std::vector<std::vector<std::pair<std::string, std::string>>> sweep_points(const Scenario& scenario);

}  // namespace torus
