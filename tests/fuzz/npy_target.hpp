#pragma once
// The fuzzed operation: read bytes as a .npy file the way a run reads --input and user_matrix.
// The reader may refuse the file (std::invalid_argument, with a message); anything else (a
// crash, a hang, another exception, a sanitizer report, a result that contradicts its header)
// is a bug.

#include <cstddef>
#include <cstdint>

namespace torus {

void fuzz_npy_input(const std::uint8_t* data, std::size_t size);

}  // namespace torus
