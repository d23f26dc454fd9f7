#pragma once
// Whether this test binary, and so the torus-sim beside it, was built with AddressSanitizer
// (tools/sanitize.sh): such a build runs several times slower and reserves terabytes of virtual
// memory, so a test that sizes work by time or limits memory must know.

namespace torus {

// gcc says so with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool built_with_address_sanitizer = true;
#elif defined(__has_feature)
inline constexpr bool built_with_address_sanitizer = __has_feature(address_sanitizer);
#else
inline constexpr bool built_with_address_sanitizer = false;
#endif

}  // namespace torus
