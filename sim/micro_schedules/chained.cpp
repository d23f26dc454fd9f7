#include "sim/micro_schedules/factories.hpp"

namespace torus {
namespace {

// One accumulator word's whole reduction chain at a time (each component's chain in turn when
// split): every fma depends on the one before it, so each waits the full pipeline latency.
class Chained final : public MicroSchedule {
 public:
  std::string name() const override { return "chained"; }

 protected:
  void order(std::size_t words, std::size_t b, bool split,
             const std::function<void(std::size_t, std::size_t, FmaPart)>& emit) const override {
    for (std::size_t e = 0; e < words; ++e) {
      if (!split) {
        for (std::size_t r = 0; r < b; ++r) emit(e, r, FmaPart::Whole);
        continue;
      }
      for (std::size_t r = 0; r < b; ++r) {
        emit(e, r, FmaPart::RealReal);
        emit(e, r, FmaPart::ImagImag);
      }
      for (std::size_t r = 0; r < b; ++r) {
        emit(e, r, FmaPart::RealImag);
        emit(e, r, FmaPart::ImagReal);
      }
    }
  }
};

}  // namespace

std::unique_ptr<MicroSchedule> make_chained() { return std::make_unique<Chained>(); }

}  // namespace torus
