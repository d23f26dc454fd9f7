// Torus geometry and scheduling vectors.

#include <catch2/catch.hpp>

#include <set>
#include <vector>

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

TEST_CASE("a ring closes on a mesh axis the long way round: P - 1 hops back through the routers", "[sim][geometry][mesh]") {
  const TorusShape shape{4, 3, 2, {Topology::Mesh, Topology::Torus, Topology::Mesh}};
  CHECK(ring_route(shape, {1, 0, 0}, Direction::PlusQ) == std::vector<Direction>{Direction::PlusQ});
  CHECK(ring_route(shape, {3, 0, 0}, Direction::PlusQ) == std::vector<Direction>(3, Direction::MinusQ));
  CHECK(ring_route(shape, {0, 1, 1}, Direction::MinusQ) == std::vector<Direction>(3, Direction::PlusQ));
  CHECK(ring_route(shape, {0, 2, 0}, Direction::PlusR) == std::vector<Direction>{Direction::PlusR});  // R wraps
  CHECK(ring_route(shape, {0, 0, 1}, Direction::PlusS) == std::vector<Direction>{Direction::MinusS});  // P3 = 2: one hop back
  CHECK(shape.ring_neighbour({3, 0, 0}, Direction::PlusQ) == NodeCoord{0, 0, 0});
  CHECK_FALSE(shape.neighbour({3, 0, 0}, Direction::PlusQ).has_value());
  // Every long route is a chain of existing links that ends at the ring's next node.
  for (std::size_t i = 0; i < shape.node_count(); ++i)
    for (const Direction d : all_directions) {
      NodeCoord at = shape.coord_of(i);
      for (const Direction hop : ring_route(shape, at, d)) at = *shape.neighbour(at, hop);
      CHECK(at == shape.ring_neighbour(shape.coord_of(i), d));
    }
}

TEST_CASE("boundary: torus, mesh or one per axis", "[sim][geometry][mesh][parameters]") {
  using T = Topology;
  CHECK(parse_boundary("torus") == std::array<T, 3>{T::Torus, T::Torus, T::Torus});
  CHECK(parse_boundary("mesh") == std::array<T, 3>{T::Mesh, T::Mesh, T::Mesh});
  CHECK(parse_boundary("torus,mesh,mesh") == std::array<T, 3>{T::Torus, T::Mesh, T::Mesh});
  // Blue Gene/P partitions: tori from 512 nodes, meshes below.
  CHECK(parse_boundary("torus_from:512", 511) == std::array<T, 3>{T::Mesh, T::Mesh, T::Mesh});
  CHECK(parse_boundary("torus_from:512", 512) == std::array<T, 3>{T::Torus, T::Torus, T::Torus});
  for (const char* bad : {"", "tours", "torus,mesh", "torus,mesh,mesh,torus", "torus, mesh, mesh", "Mesh", "torus_from:", "torus_from:0",
                          "torus_from:5x", "torus_from:-1"})
    CHECK_THROWS_WITH(parse_boundary(bad), Catch::Contains(std::string("boundary: '") + bad + "' is not allowed; allowed: torus, mesh"));
  CHECK(boundary_text(TorusShape{2, 2, 2, {T::Torus, T::Mesh, T::Torus}}) == "torus,mesh,torus");
  CHECK(boundary_text(TorusShape::cube(2, T::Mesh)) == "mesh");
}
