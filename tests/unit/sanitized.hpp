// Whether this test binary is built with a sanitizer (the asan and tsan presets). Instrumented atomics and
// spin-and-yield loops make the many-thread emu cases 10 to 20 times slower on CI's 2 cores, beside other
// tests: there they post fewer WQEs per thread (every check stays the same).
#pragma once

namespace gpushmem::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace gpushmem::test
