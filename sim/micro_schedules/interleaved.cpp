#include "sim/micro_schedules/factories.hpp"

namespace torus {
namespace {

// Reduction index outermost, the b^3 independent accumulator words innermost: consecutive
// updates of one word are b^3 issues apart (2 b^3 when split), so a pipeline of latency
// L <= b^3 never waits. Split complex updates go in two sub-rounds (parts 0,1 then 2,3) so the
// second update of a component is also 2 b^3 issues after the first.
class Interleaved final : public MicroSchedule {
 public:
  std::string name() const override { return "interleaved"; }

 protected:
  void order(std::size_t words, std::size_t b, bool split,
             const std::function<void(std::size_t, std::size_t, FmaPart)>& emit) const override {
    for (std::size_t r = 0; r < b; ++r) {
      if (!split) {
        for (std::size_t e = 0; e < words; ++e) emit(e, r, FmaPart::Whole);
        continue;
      }
      for (std::size_t e = 0; e < words; ++e) {
        emit(e, r, FmaPart::RealReal);
        emit(e, r, FmaPart::RealImag);
      }
      for (std::size_t e = 0; e < words; ++e) {
        emit(e, r, FmaPart::ImagImag);
        emit(e, r, FmaPart::ImagReal);
      }
    }
  }
};

}  // namespace

std::unique_ptr<MicroSchedule> make_interleaved() { return std::make_unique<Interleaved>(); }

}  // namespace torus
