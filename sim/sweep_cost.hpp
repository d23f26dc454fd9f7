#pragma once
// How long a sweep point is expected to take, relative to the others: an ordering key so that
// an MPI sweep hands out its longest points first and no long point starts last, not a time.
//
// The key is the simulation's work as the analytic model sizes it: the cycles it predicts
// times the nodes the engine times one by one (every node, or one when the translation
// quotient stands for the torus; none for the functional engine), plus, when values are on,
// the multiply-adds that compute them (3 N^4 per transform, four times that for complex data
// on a real fma unit). Both grow with what a point costs on the host; their exact weights
// differ by engine and machine and do not matter for the order of points of one study.

#include "sim/sweep_plan.hpp"

namespace torus {

// 0 for a point that is no valid run (it fails at once when it runs).
double expected_point_cost(const Settings& parameters);

}  // namespace torus
