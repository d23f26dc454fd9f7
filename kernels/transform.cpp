#include "kernels/transform.hpp"

#include <algorithm>
#include <stdexcept>

#include "kernels/transforms/factories.hpp"
#include "kernels/scalar.hpp"
#include "kernels/text.hpp"

namespace torus {

std::string to_string(Normalisation normalisation) {
  return normalisation == Normalisation::None ? "none" : "ortho";
}

Normalisation parse_normalisation(std::string_view text) {
  if (text == "none") return Normalisation::None;
  if (text == "ortho") return Normalisation::Ortho;
  throw std::invalid_argument("normalisation: '" + std::string(text) +
                              "' is not a normalisation; allowed: none, ortho");
}

void Transform::check_size(std::size_t n) const {
  if (n < 1) throw std::invalid_argument(name() + ": size must be at least 1");
}

namespace {

struct TransformEntry {
  TransformInfo info;
  std::unique_ptr<Transform> (*make)(const TransformOptions&);
};

const std::vector<TransformEntry>& registry() {
  static const std::vector<TransformEntry> entries = {
      {{"dft", "discrete Fourier transform, complex; c(n,k) = exp(-2 pi i nk/N), scaled by normalisation"},
       make_dft},
      {{"dct", "DCT-II, orthonormal (inverse DCT-III)"}, make_dct},
      {{"dst", "DST-II, orthonormal (inverse DST-III)"}, make_dst},
      {{"dht", "discrete Hartley transform, c(n,k) = cas(2 pi nk/N), scaled by normalisation"}, make_dht},
      {{"wht", "Walsh-Hadamard, natural (Sylvester) order, N a power of two, scaled by normalisation"},
       make_wht},
      {{"identity", "identity matrix, for debugging schedules"}, make_identity},
      {{"user", "N x N matrix read from user_matrix (.npy or text); inverse computed"}, make_user},
  };
  return entries;
}

}  // namespace

const std::vector<TransformInfo>& transform_catalogue() {
  static const std::vector<TransformInfo> infos = [] {
    std::vector<TransformInfo> out;
    for (const auto& entry : registry()) out.push_back(entry.info);
    return out;
  }();
  return infos;
}

std::unique_ptr<Transform> make_transform(std::string_view name, const TransformOptions& options) {
  std::vector<std::string> names;
  for (const auto& entry : registry()) {
    if (entry.info.name == name) return entry.make(options);
    names.emplace_back(entry.info.name);
  }
  throw std::invalid_argument("transform: '" + std::string(name) +
                              "' is not a transform; allowed: " + join(names, ", ") +
                              suggestion(name, names));
}

bool AxisTransforms::complex_valued() const {
  for (const auto& t : axis)
    if (t->complex_valued()) return true;
  return false;
}

std::string AxisTransforms::describe() const {
  if (axis[0]->name() == axis[1]->name() && axis[1]->name() == axis[2]->name())
    return axis[0]->name();
  return axis[0]->name() + "," + axis[1]->name() + "," + axis[2]->name();
}

std::array<std::string, 3> axis_transform_names(std::string_view spec) {
  const std::vector<std::string> parts = split(spec, ',');
  if (parts.size() != 1 && parts.size() != 3)
    throw std::invalid_argument("transform: '" + std::string(spec) +
                                "' must name one transform or three separated by commas "
                                "(axis 1, axis 2, axis 3)");
  std::vector<std::string> known;
  for (const auto& info : transform_catalogue()) known.emplace_back(info.name);
  std::array<std::string, 3> names;
  for (std::size_t a = 0; a < 3; ++a) {
    names[a] = parts[parts.size() == 1 ? 0 : a];
    if (std::find(known.begin(), known.end(), names[a]) == known.end())
      throw std::invalid_argument("transform: '" + names[a] + "' is not a transform; allowed: " + join(known, ", ") +
                                  suggestion(names[a], known));
  }
  return names;
}

AxisTransforms parse_axis_transforms(std::string_view spec, const TransformOptions& options) {
  const std::array<std::string, 3> names = axis_transform_names(spec);
  AxisTransforms result;
  for (std::size_t a = 0; a < 3; ++a) {
    // One instance per distinct name, so a user matrix is read and inverted once.
    for (std::size_t earlier = 0; earlier < a && !result.axis[a]; ++earlier)
      if (names[earlier] == names[a]) result.axis[a] = result.axis[earlier];
    if (result.axis[a]) continue;
    TransformOptions own = options;
    if (options.axis_sizes[a] != 0) own.size = options.axis_sizes[a];
    result.axis[a] = make_transform(names[a], own);
  }
  return result;
}

template <class T>
Matrix<T> round_coefficients(const WideMatrix& wide) {
  Matrix<T> out(wide.rows(), wide.cols());
  for (Eigen::Index j = 0; j < wide.cols(); ++j)
    for (Eigen::Index i = 0; i < wide.rows(); ++i) {
      const WideComplex w = wide(i, j);
      if constexpr (is_complex_v<T>) {
        using R = real_t<T>;
        out(i, j) = T(static_cast<R>(w.real()), static_cast<R>(w.imag()));
      } else {
        if (w.imag() != 0.0L)
          throw std::invalid_argument(
              "a complex-valued coefficient matrix needs complex data (domain: complex)");
        out(i, j) = static_cast<T>(w.real());
      }
    }
  return out;
}

template Matrix<float> round_coefficients<float>(const WideMatrix&);
template Matrix<double> round_coefficients<double>(const WideMatrix&);
template Matrix<std::complex<float>> round_coefficients<std::complex<float>>(const WideMatrix&);
template Matrix<std::complex<double>> round_coefficients<std::complex<double>>(const WideMatrix&);

}  // namespace torus
