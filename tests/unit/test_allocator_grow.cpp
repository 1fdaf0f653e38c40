// heap::Allocator::grow and shortfall: the GPU heap maps memory in chunks and the allocator's range grows
// with it. Growth appends free space that merges with a free tail, and shortfall says exactly how much a
// request that failed needs (so every PE grows by the same amount and the offsets stay symmetric).
#include <cstdint>
#include <vector>

#include "catch.hpp"
#include "heap/allocator.hpp"

using gpushmem::heap::Allocator;

namespace {

constexpr uint64_t kBase = 64 * 1024;  // the runtime's area comes first, as in the heaps
constexpr uint64_t kChunk = 4096;

uint64_t must_allocate(Allocator &a, uint64_t size, uint64_t alignment = 0) {
  uint64_t off = ~0ull;
  REQUIRE(a.allocate(size, alignment, &off));
  return off;
}

}  // namespace

TEST_CASE("allocator grow: appended space is allocatable and capacity follows", "[allocator][grow]") {
  Allocator a;
  a.reset(kBase, kChunk);
  uint64_t first = must_allocate(a, kChunk);
  CHECK(first == kBase);
  uint64_t off = 0;
  CHECK_FALSE(a.allocate(64, 0, &off));

  a.grow(kChunk);
  CHECK(a.capacity() == 2 * kChunk);
  CHECK(a.bytes_free() == kChunk);
  CHECK(must_allocate(a, 64) == kBase + kChunk);

  a.grow(0);  // no-op
  CHECK(a.capacity() == 2 * kChunk);
}

TEST_CASE("allocator grow: merges with a free tail so a block can span the old end", "[allocator][grow]") {
  Allocator a;
  a.reset(kBase, kChunk);
  must_allocate(a, kChunk / 2);
  // 2048 bytes free at the tail; 3000 do not fit until the range grows, and then start at the old tail.
  uint64_t off = 0;
  CHECK_FALSE(a.allocate(3000, 0, &off));
  a.grow(kChunk);
  CHECK(a.largest_free() == kChunk / 2 + kChunk);
  CHECK(must_allocate(a, 3000) == kBase + kChunk / 2);
}

TEST_CASE("allocator grow: from an empty range", "[allocator][grow]") {
  Allocator a;
  a.reset(kBase, 0);
  CHECK(a.shortfall(100, 0) == 128);
  a.grow(128);
  CHECK(must_allocate(a, 100) == kBase);
  CHECK(a.bytes_free() == 0);
}

TEST_CASE("allocator shortfall: exactly what a failed request needs", "[allocator][grow]") {
  Allocator a;
  a.reset(kBase, kChunk);

  SECTION("full range: the whole rounded size") {
    must_allocate(a, kChunk);
    CHECK(a.shortfall(100, 0) == 128);
    a.grow(a.shortfall(100, 0));
    CHECK(must_allocate(a, 100) == kBase + kChunk);
  }
  SECTION("a free tail counts") {
    must_allocate(a, kChunk - 1024);
    CHECK(a.shortfall(3000, 0) == 3008 - 1024);  // 3000 rounds to 3008
    a.grow(a.shortfall(3000, 0));
    CHECK(must_allocate(a, 3000) == kBase + kChunk - 1024);
    CHECK(a.bytes_free() == 0);
  }
  SECTION("alignment padding at the tail counts") {
    must_allocate(a, 64);  // tail starts at kBase + 64
    const uint64_t align = 1 << 16;
    // The block must start at the next 64 KiB boundary after kBase + 64, i.e. kBase + 65536.
    const uint64_t need = a.shortfall(256, align);
    CHECK(need == (kBase + align + 256) - (kBase + kChunk));
    a.grow(need);
    CHECK(must_allocate(a, 256, align) == kBase + align);
  }
  SECTION("a free block that does not touch the end does not count") {
    uint64_t x = must_allocate(a, 1024);
    must_allocate(a, kChunk - 1024);
    REQUIRE(a.release(x));  // hole at the start, nothing at the end
    CHECK(a.shortfall(2048, 0) == 2048);
  }
  SECTION("bad alignment: growth cannot help") {
    CHECK(a.shortfall(64, 48) == UINT64_MAX);
  }
  SECTION("overflowing size: growth cannot help") {
    CHECK(a.shortfall(UINT64_MAX - 10, 0) == UINT64_MAX);
  }
}

TEST_CASE("allocator grow: two allocators given the same calls stay identical (symmetry)", "[allocator][grow]") {
  Allocator pe0, pe1;
  pe0.reset(kBase, kChunk);
  pe1.reset(kBase, kChunk);
  const uint64_t sizes[] = {1000, 3000, 64, 9000, 17, 4096, 20000};
  std::vector<uint64_t> got0, got1;
  for (uint64_t size : sizes) {
    for (Allocator *a : {&pe0, &pe1}) {
      uint64_t off = 0;
      while (!a->allocate(size, 0, &off)) a->grow(kChunk > a->shortfall(size, 0) ? kChunk : a->shortfall(size, 0));
      (a == &pe0 ? got0 : got1).push_back(off);
    }
  }
  CHECK(got0 == got1);
  CHECK(pe0.capacity() == pe1.capacity());
  CHECK(pe0.bytes_used() == pe1.bytes_used());
}
