// Torus geometry and scheduling vectors.

#include <catch2/catch.hpp>

#include <set>

#include "sim/geometry.hpp"
#include "sim/scheduling_vector.hpp"

using namespace torus;

TEST_CASE("neighbours wrap around on the torus and stop at a mesh edge", "[sim][geometry]") {
  const TorusShape torus = TorusShape::cube(4);
  CHECK(torus.neighbour({3, 0, 0}, Direction::PlusQ) == NodeCoord{0, 0, 0});
  CHECK(torus.neighbour({0, 0, 0}, Direction::MinusR) == NodeCoord{0, 3, 0});
  CHECK(torus.neighbour({1, 2, 3}, Direction::PlusS) == NodeCoord{1, 2, 0});
  CHECK(torus.neighbour({1, 2, 3}, Direction::MinusS) == NodeCoord{1, 2, 2});
  const TorusShape mesh = TorusShape::cube(4, Topology::Mesh);
  CHECK_FALSE(mesh.neighbour({3, 0, 0}, Direction::PlusQ).has_value());
  CHECK(mesh.neighbour({2, 0, 0}, Direction::PlusQ) == NodeCoord{3, 0, 0});
  // P = 1: every link loops back to the node itself.
  CHECK(TorusShape::cube(1).neighbour({0, 0, 0}, Direction::PlusQ) == NodeCoord{0, 0, 0});
}

TEST_CASE("every node has six distinct neighbours for P >= 3 and links are symmetric", "[sim][geometry]") {
  const TorusShape shape{3, 4, 5};
  for (std::size_t i = 0; i < shape.node_count(); ++i) {
    const NodeCoord node = shape.coord_of(i);
    CHECK(shape.index_of(node) == i);
    std::set<NodeCoord> seen;
    for (Direction d : all_directions) {
      const NodeCoord next = *shape.neighbour(node, d);
      seen.insert(next);
      CHECK(shape.neighbour(next, opposite(d)) == node);
    }
    CHECK(seen.size() == 6);
  }
}

TEST_CASE("directions name their axis and sign", "[sim][geometry]") {
  CHECK(to_string(Direction::MinusR) == "-R");
  CHECK(direction_along(Axis::S, -1) == Direction::MinusS);
  CHECK(axis_of(Direction::PlusS) == Axis::S);
  CHECK(sign_of(Direction::MinusQ) == -1);
  CHECK_THROWS_WITH(validate(TorusShape{0, 1, 1}), Catch::Contains("P1") && Catch::Contains("at least 1"));
}

TEST_CASE("scheduling vectors parse, print and time nodes modulo P", "[sim][alpha]") {
  const SchedulingVector v = SchedulingVector::parse("+-+");
  CHECK(v.sign == std::array<int, 3>{1, -1, 1});
  CHECK(v.to_string() == "+-+");
  CHECK(SchedulingVector::parse("-1,1,-1").to_string() == "-+-");
  CHECK(v.time_of({1, 3, 0}, 4) == 2);  // (1 - 3 + 0) mod 4
  CHECK(all_scheduling_vectors().size() == 8);
  std::set<std::string> names;
  for (const auto& a : all_scheduling_vectors()) names.insert(a.to_string());
  CHECK(names.size() == 8);
  for (const char* bad : {"++", "+0+", "abc", "1,2,1", "++++", ""})
    CHECK_THROWS_WITH(SchedulingVector::parse(bad), Catch::Contains("alpha") && Catch::Contains("+-+"));
}
