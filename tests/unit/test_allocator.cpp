// heap::Allocator: first fit, alignment, coalescing, exhaustion, bad releases, and determinism (the
// property that makes shmem_malloc symmetric: the same calls give the same offsets on every PE).
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "heap/allocator.hpp"

using gpushmem::heap::Allocator;

namespace {

constexpr uint64_t kLine = Allocator::kDefaultAlignment;

uint64_t must_allocate(Allocator &a, uint64_t size, uint64_t alignment = 0) {
  uint64_t off = ~0ull;
  REQUIRE(a.allocate(size, alignment, &off));
  return off;
}

}  // namespace

TEST_CASE("allocator: first fit from the base, sizes rounded to a cache line", "[allocator]") {
  Allocator a;
  a.reset(4096, 1 << 20);
  CHECK(a.capacity() == (1u << 20));
  CHECK(a.bytes_free() == (1u << 20));
  CHECK(a.live_allocations() == 0);

  uint64_t x = must_allocate(a, 100);
  CHECK(x == 4096);
  CHECK(a.size_of(x) == 128);  // 100 rounded up to two lines
  uint64_t y = must_allocate(a, 1);
  CHECK(y == 4096 + 128);
  CHECK(a.size_of(y) == kLine);
  CHECK(a.bytes_used() == 128 + kLine);
  CHECK(a.live_allocations() == 2);

  SECTION("zero bytes still get a distinct block") {
    uint64_t z1 = must_allocate(a, 0);
    uint64_t z2 = must_allocate(a, 0);
    CHECK(z1 != z2);
    CHECK(a.size_of(z1) == kLine);
  }
  SECTION("a freed hole is reused by the next request that fits (first fit, not best fit)") {
    uint64_t big = must_allocate(a, 4096);
    uint64_t after = must_allocate(a, 64);
    REQUIRE(a.release(x));                // 128-byte hole at 4096
    REQUIRE(a.release(big));              // 4096-byte hole further on
    CHECK(must_allocate(a, 64) == 4096);  // first hole, although the later one is larger
    CHECK(must_allocate(a, 64) == 4096 + 64);
    CHECK(must_allocate(a, 128) == big);  // the first hole is full now
    CHECK(a.size_of(after) == 64);
  }
}

TEST_CASE("allocator: alignment", "[allocator]") {
  Allocator a;
  a.reset(64, 1 << 20);  // a base that is only line aligned
  uint64_t p = must_allocate(a, 10, 4096);
  CHECK(p % 4096 == 0);
  CHECK(p == 4096);
  // The gap skipped for alignment stays usable.
  CHECK(must_allocate(a, 64) == 64);
  for (uint64_t align : {64ull, 128ull, 256ull, 8192ull, 65536ull}) {
    uint64_t q = must_allocate(a, 1, align);
    INFO("alignment " << align << " offset " << q);
    CHECK(q % align == 0);
  }
  SECTION("alignment below a cache line still gives line-aligned blocks") {
    uint64_t q = must_allocate(a, 1, 8);
    CHECK(q % 8 == 0);
  }
  SECTION("alignment 0 means the default") {
    uint64_t q = must_allocate(a, 1, 0);
    CHECK(q % kLine == 0);
  }
  SECTION("non-power-of-two alignments are refused") {
    uint64_t off = 0;
    uint64_t used = a.bytes_used();
    CHECK_FALSE(a.allocate(16, 3, &off));
    CHECK_FALSE(a.allocate(16, 48, &off));
    CHECK(a.bytes_used() == used);
  }
}

TEST_CASE("allocator: freed neighbours coalesce in any order", "[allocator]") {
  const uint64_t cap = 16 * 1024;
  const std::vector<std::vector<int>> orders = {{0, 1, 2}, {2, 1, 0}, {1, 0, 2}, {0, 2, 1}, {1, 2, 0}, {2, 0, 1}};
  for (const auto &order : orders) {
    Allocator a;
    a.reset(0, cap);
    uint64_t blocks[3];
    for (auto &b : blocks) b = must_allocate(a, 1024);
    uint64_t tail = must_allocate(a, cap - 3 * 1024);  // the heap is full
    uint64_t off = 0;
    REQUIRE_FALSE(a.allocate(1, 0, &off));
    for (int i : order) REQUIRE(a.release(blocks[i]));
    INFO("release order " << order[0] << order[1] << order[2]);
    CHECK(a.largest_free() == 3 * 1024);  // one range, not three
    CHECK(must_allocate(a, 3 * 1024) == 0);
    REQUIRE(a.release(0));
    REQUIRE(a.release(tail));
    CHECK(a.largest_free() == cap);
    CHECK(a.bytes_free() == cap);
    CHECK(a.live_allocations() == 0);
  }
}

TEST_CASE("allocator: exhaustion fails cleanly and leaves the state usable", "[allocator]") {
  Allocator a;
  a.reset(0, 4096);
  uint64_t off = 0;
  CHECK_FALSE(a.allocate(4097, 0, &off));
  uint64_t all = must_allocate(a, 4096);
  CHECK(a.bytes_free() == 0);
  CHECK(a.largest_free() == 0);
  CHECK_FALSE(a.allocate(1, 0, &off));
  CHECK_FALSE(a.allocate(0, 0, &off));
  REQUIRE(a.release(all));
  CHECK(must_allocate(a, 4096) == 0);

  SECTION("sizes whose rounding overflows are refused") {
    Allocator b;
    b.reset(0, 1 << 20);
    CHECK_FALSE(b.allocate(UINT64_MAX, 0, &off));
    CHECK_FALSE(b.allocate(UINT64_MAX - 10, 0, &off));
    CHECK(b.bytes_used() == 0);
  }
  SECTION("an empty heap allocates nothing") {
    Allocator b;
    b.reset(0, 0);
    CHECK_FALSE(b.allocate(1, 0, &off));
  }
  SECTION("free space split by alignment is not enough for a large aligned block") {
    Allocator b;
    b.reset(64, 8192);  // [64, 8256): only offset 4096 is 4096-aligned, with 4160 bytes after it
    CHECK_FALSE(b.allocate(8192 - 64, 4096, &off));
    CHECK(must_allocate(b, 4096, 4096) == 4096);
  }
}

TEST_CASE("allocator: releasing anything but a live block's start is refused", "[allocator]") {
  Allocator a;
  a.reset(0, 1 << 16);
  uint64_t p = must_allocate(a, 256);
  uint64_t q = must_allocate(a, 256);
  const uint64_t used = a.bytes_used();
  CHECK_FALSE(a.release(p + 64));    // inside a block
  CHECK_FALSE(a.release(q + 256));   // free space
  CHECK_FALSE(a.release(1u << 20));  // outside the heap
  CHECK_FALSE(a.release(UINT64_MAX));
  CHECK(a.bytes_used() == used);
  CHECK(a.live_allocations() == 2);
  REQUIRE(a.release(p));
  CHECK_FALSE(a.release(p));  // double free
  CHECK(a.live_allocations() == 1);

  SECTION("find and size_of answer for interior offsets only where a block lives") {
    uint64_t start = 0, size = 0;
    REQUIRE(a.find(q + 100, &start, &size));
    CHECK(start == q);
    CHECK(size == 256);
    CHECK_FALSE(a.find(p, &start, &size));  // freed
    CHECK_FALSE(a.find(q + 256, &start, &size));
    CHECK(a.size_of(q) == 256);
    CHECK(a.size_of(q + 1) == 0);
  }
}

TEST_CASE("allocator: identical call sequences give identical offsets", "[allocator]") {
  // Two PEs' allocators fed the same pseudo-random mix of sizes, alignments and frees.
  Allocator a, b;
  a.reset(65536, 64 << 20);
  b.reset(65536, 64 << 20);
  std::vector<uint64_t> live;
  uint64_t rng = 12345;
  auto next = [&rng] {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return rng >> 33;
  };
  for (int step = 0; step < 20000; ++step) {
    if (!live.empty() && next() % 3 == 0) {
      size_t i = next() % live.size();
      INFO("step " << step << ": release " << live[i]);
      REQUIRE(a.release(live[i]));
      REQUIRE(b.release(live[i]));
      live[i] = live.back();
      live.pop_back();
    } else {
      uint64_t size = next() % 100000;
      uint64_t align = uint64_t{1} << (next() % 14);
      uint64_t oa = 0, ob = 0;
      bool ra = a.allocate(size, align, &oa);
      bool rb = b.allocate(size, align, &ob);
      INFO("step " << step << ": allocate " << size << " at alignment " << align);
      REQUIRE(ra == rb);
      if (ra) {
        REQUIRE(oa == ob);
        CHECK(oa % align == 0);
        live.push_back(oa);
      }
    }
    REQUIRE(a.bytes_used() == b.bytes_used());
  }
  CHECK(a.largest_free() == b.largest_free());
  for (uint64_t off : live) REQUIRE(a.release(off));
  CHECK(a.bytes_free() == a.capacity());
  CHECK(a.largest_free() == a.capacity());  // everything coalesced back into one range
}

TEST_CASE("allocator: reset forgets every allocation", "[allocator]") {
  Allocator a;
  a.reset(0, 1 << 16);
  (void)must_allocate(a, 1000);
  a.reset(128, 1 << 12);
  CHECK(a.live_allocations() == 0);
  CHECK(a.bytes_used() == 0);
  CHECK(a.capacity() == (1u << 12));
  CHECK(must_allocate(a, 1) == 128);
}
