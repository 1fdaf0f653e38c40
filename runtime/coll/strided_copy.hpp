// Element-strided copies (alltoalls): d[e * dst] = s[e * sst] with strides counted in elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gpushmem::coll {

template <class W>
void copy_strided(char *d, ptrdiff_t dst, const char *s, ptrdiff_t sst, size_t nelems) {
  W *out = reinterpret_cast<W *>(d);
  const W *in = reinterpret_cast<const W *>(s);
  for (size_t e = 0; e < nelems; ++e) out[ptrdiff_t(e) * dst] = in[ptrdiff_t(e) * sst];
}

struct alignas(16) Word16 {
  uint64_t lo, hi;
};

// nelems elements of `elem` bytes: d[e * dst] = s[e * sst] (strides in elements).
inline void strided(char *d, ptrdiff_t dst, const char *s, ptrdiff_t sst, size_t nelems, size_t elem) {
  switch (elem) {
    case 1:
      return copy_strided<uint8_t>(d, dst, s, sst, nelems);
    case 2:
      return copy_strided<uint16_t>(d, dst, s, sst, nelems);
    case 4:
      return copy_strided<uint32_t>(d, dst, s, sst, nelems);
    case 8:
      return copy_strided<uint64_t>(d, dst, s, sst, nelems);
    case 16:
      return copy_strided<Word16>(d, dst, s, sst, nelems);
    default:
      for (size_t e = 0; e < nelems; ++e)
        std::memcpy(d + ptrdiff_t(e) * dst * ptrdiff_t(elem), s + ptrdiff_t(e) * sst * ptrdiff_t(elem), elem);
  }
}

}  // namespace gpushmem::coll
