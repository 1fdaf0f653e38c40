// The team arithmetic host and device code share (gpushmem/team_state.h): a reduction's split among the members,
// which device code over P2P and the CPU proxy must compute alike, and the index <-> world PE mapping.
#include <algorithm>
#include <cstdint>

#include "catch.hpp"
#include "gpushmem/team_state.h"

TEST_CASE("gpushmem_reduce_share: disjoint 16-byte aligned slices that cover the elements in member order") {
  for (uint64_t width : {1u, 2u, 4u, 8u, 16u}) {
    for (int size : {1, 2, 3, 4, 5, 7, 8, 16, 64}) {
      for (uint64_t n : {0ull, 1ull, 2ull, 3ull, 15ull, 16ull, 17ull, 31ull, 63ull, 64ull, 100ull, 1000ull, 1031ull,
                         4096ull, 65537ull, 262144ull}) {
        uint64_t expect_first = 0, largest = 0, smallest = UINT64_MAX;
        for (int index = 0; index < size; ++index) {
          uint64_t first = 7, last = 7;
          gpushmem_reduce_share(n, width, size, index, &first, &last);
          INFO("width " << width << " size " << size << " n " << n << " index " << index);
          REQUIRE(first == expect_first);  // in member order, no gap, no overlap
          REQUIRE(first <= last);
          REQUIRE(last <= n);
          if (last != n) REQUIRE((last * width) % 16 == 0);       // a slice ends on 16 bytes unless at the end
          if (first != last) REQUIRE((first * width) % 16 == 0);  // an empty slice sits at the end
          expect_first = last;
          largest = std::max(largest, last - first);
          if (last != n) smallest = std::min(smallest, last - first);
        }
        REQUIRE(expect_first == n);  // every element is some member's
        // Near-equal: a slice is at most the even split rounded up to 16 bytes.
        const uint64_t granule = width < 16 ? 16 / width : 1;
        const uint64_t even = (n + static_cast<uint64_t>(size) - 1) / static_cast<uint64_t>(size);
        REQUIRE(largest <= (even + granule - 1) / granule * granule);
        if (smallest != UINT64_MAX) REQUIRE(smallest == largest);  // every member but the last ones takes as much
      }
    }
  }
}

TEST_CASE("gpushmem_reduce_share: large counts do not overflow") {
  const uint64_t n = UINT64_MAX / 8;
  uint64_t first = 0, last = 0, at = 0;
  for (int index = 0; index < 3; ++index) {
    gpushmem_reduce_share(n, 8, 3, index, &first, &last);
    REQUIRE(first == at);
    at = last;
  }
  REQUIRE(at == n);
}

TEST_CASE("gpushmem_team_world_pe and gpushmem_team_index_of are inverse on a strided team") {
  gpushmem_team_state_t t{};
  t.start = 2;
  t.stride = 3;
  t.size = 4;
  for (int i = 0; i < t.size; ++i) REQUIRE(gpushmem_team_index_of(&t, gpushmem_team_world_pe(&t, i)) == i);
  for (int pe : {0, 1, 3, 4, 6, 7, 14, 17}) REQUIRE(gpushmem_team_index_of(&t, pe) == -1);
}
