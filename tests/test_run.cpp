// Whole functional runs through run_functional: reports, files, determinism and bad input.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "kernels/npy.hpp"
#include "sim/report.hpp"
#include "sim/run.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

RunConfig make_config(std::initializer_list<std::pair<const char*, const char*>> settings) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  for (const auto& [key, value] : settings) parameters.set(key, value);
  return config;
}

std::string transform_run_error(std::initializer_list<std::pair<const char*, const char*>> settings) {
  try {
    run_functional(make_config(settings));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

std::string parameter_error(const char* key, const char* value) {
  RunConfig config;
  ParameterSet parameters;
  config.declare(parameters);
  try {
    parameters.set(key, value);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("the default run passes and reports the design-note counts", "[sim][run]") {
  const RunReport report = run_functional(RunConfig{});
  CHECK(report.passed());
  REQUIRE(report.transforms.size() == 2);
  CHECK(report.round_trip.has_value());
  const std::string text = format_text(report);
  CHECK_THAT(text, Catch::Contains("steps 12 (3P = 12)") && Catch::Contains("scalar multiply-adds 196608 (3N^4 = 196608)"));
  // Allocated: one block of every kind (the paper's 4b^3+3b^2) plus second buffers for X', X'', Y, C3.
  CHECK_THAT(text, Catch::Contains("words held per node: 512 (4b^3+3b^2 = 304)"));
  CHECK_THAT(text, Catch::Contains("result: PASS"));
}

TEST_CASE("complex runs count four real fma per multiply-add", "[sim][run]") {
  const RunReport report = run_functional(make_config({{"N", "6"}, {"P", "3"}, {"transform", "dft"}, {"direction", "forward"}}));
  CHECK(report.scalar.domain == Domain::Complex);
  const nlohmann::json j = to_json(report);
  CHECK(j["transforms"][0]["scalar_multiply_adds"] == 3 * 6 * 6 * 6 * 6);
  CHECK(j["transforms"][0]["real_fma"] == 4 * 3 * 6 * 6 * 6 * 6);
  CHECK(j["element_type"] == "complex128");
}

TEST_CASE("input and output npy files round-trip through a run", "[sim][run][npy]") {
  TempDir dir;
  Tensor3<float> x(4, 4, 4);
  for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(i % 7) - 3.0f;
  write_npy(dir.file("x.npy"), x);
  const RunReport report = run_functional(make_config({{"N", "4"}, {"P", "2"}, {"precision", "float"}, {"transform", "identity"},
                                                       {"direction", "forward"}, {"input", dir.file("x.npy").c_str()},
                                                       {"output", dir.file("y.npy").c_str()},
                                                       {"report_json", dir.file("r.json").c_str()}}));
  CHECK(report.passed());
  CHECK(read_npy_tensor<float>(dir.file("y.npy")) == x);  // identity: exact, in canonical order
  std::ifstream json(dir.file("r.json"));
  CHECK(nlohmann::json::parse(json)["passed"] == true);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    CHECK(entry.path().string().find(".tmp.") == std::string::npos);  // no temporary left behind
}

TEST_CASE("npy files written in C order and Fortran order read the same", "[kernels][npy]") {
  TempDir dir;
  Tensor3<std::complex<double>> t(2, 3, 4);
  for (std::size_t k = 0; k < 4; ++k)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t i = 0; i < 2; ++i) t(i, j, k) = {double(100 * i + 10 * j + k), -1.0};
  write_npy(dir.file("t.npy"), t);
  CHECK(read_npy_tensor<std::complex<double>>(dir.file("t.npy")) == t);
  CHECK_THROWS_WITH(read_npy_tensor<double>(dir.file("t.npy")), Catch::Contains("complex values but the run is real"));
  // A C-order float64 file as numpy.save writes it for np.arange(8).reshape(2,2,2).
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 2), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' + header;
  for (int v = 0; v < 8; ++v) {
    const double d = v;
    bytes.append(reinterpret_cast<const char*>(&d), 8);
  }
  std::ofstream(dir.file("c.npy"), std::ios::binary) << bytes;
  const Tensor3<double> c = read_npy_tensor<double>(dir.file("c.npy"));
  CHECK(c(1, 0, 1) == 5.0);  // C order: element (i,j,k) = 4i + 2j + k
  CHECK(c(0, 1, 1) == 3.0);
  std::ofstream(dir.file("bad.npy")) << "not numpy";
  CHECK_THROWS_WITH(read_npy(dir.file("bad.npy")), Catch::Contains("bad magic"));
}

TEST_CASE("same scenario and seed give bit-identical results", "[sim][run][determinism]") {
  TempDir dir;
  const auto run_once = [&](const char* name) {
    run_functional(make_config({{"N", "6"}, {"P", "3"}, {"transform", "dft"}, {"seed", "42"},
                                {"output", dir.file(name).c_str()}}));
    return read_npy_tensor<std::complex<double>>(dir.file(name));
  };
  CHECK(run_once("a.npy") == run_once("b.npy"));
}

TEST_CASE("bad input gives a clear error naming parameter, value and what is allowed", "[sim][run][errors]") {
  CHECK_THAT(transform_run_error({{"N", "3"}, {"P", "4"}}), Catch::Contains("P: 4 nodes along axis 1 but N = 3 has 3 elements there") &&
                                                   Catch::Contains("allowed: at most as many nodes as elements"));
  CHECK_THAT(transform_run_error({{"N", "8x2x8"}, {"P", "2x4x2"}}), Catch::Contains("P: 4 nodes along axis 2 but N = 8x2x8 has 2"));
  CHECK_THAT(parameter_error("P", "4x0x2"), Catch::Contains("P: '4x0x2' is not allowed") && Catch::Contains("from 1 to 4096") &&
                                                Catch::Contains("AxBxC"));
  for (const char* bad : {"4x4", "4x4x4x4", "x4x4", "4xx4", "4x4x", "4 x4x4", "+4", "4x-1x2", "4X4X4", "4x4x5000"}) {
    INFO(bad);
    CHECK_THAT(parameter_error("P", bad), Catch::Contains(std::string("P: '") + bad + "' is not allowed"));
  }
  CHECK_THAT(parameter_error("P", "0"), Catch::Contains("P: '0'") && Catch::Contains("from 1 to 4096"));
  CHECK_THAT(parameter_error("P", "-3"), Catch::Contains("P: '-3'"));
  CHECK_THAT(parameter_error("N", "twelve"), Catch::Contains("N: 'twelve'") && Catch::Contains("whole number"));
  CHECK_THAT(transform_run_error({{"N", "12"}, {"P", "4"}, {"transform", "wht"}}), Catch::Contains("N = 12") && Catch::Contains("power of two"));
  CHECK_THAT(parameter_error("transform", "fourier"), Catch::Contains("'fourier'") && Catch::Contains("allowed: dft, dct"));
  CHECK_THAT(parameter_error("alpha", "+*+"), Catch::Contains("alpha: '+*+'") && Catch::Contains("+++"));
  CHECK_THAT(parameter_error("direction", "backward"), Catch::Contains("forward, inverse, both"));
  CHECK_THAT(parameter_error("precison", "float"), Catch::Contains("unknown parameter 'precison'") &&
                                                      Catch::Contains("did you mean 'precision'"));
  CHECK_THAT(transform_run_error({{"transform", "dft"}, {"domain", "real"}}), Catch::Contains("domain: 'real'"));
  CHECK_THAT(transform_run_error({{"input", "/nonexistent/x.npy"}}), Catch::Contains("input: '/nonexistent/x.npy'"));
  CHECK_THAT(transform_run_error({{"output", "/nonexistent/dir/y.npy"}}), Catch::Contains("output: folder"));
  TempDir dir;
  write_npy(dir.file("small.npy"), Tensor3<double>(2, 2, 2));
  CHECK_THAT(transform_run_error({{"input", dir.file("small.npy").c_str()}}), Catch::Contains("is not 16 x 16 x 16"));
}
