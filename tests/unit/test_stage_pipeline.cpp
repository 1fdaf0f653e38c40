// The staging pipeline (runtime/net/stage_pipeline.hpp) with host memory standing for the GPU buffer: every byte
// arrives where it belongs, chunks go out in order, a buffer is never touched while a copy may still use it, and
// a failing step leaves no copy in flight.
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "net/stage_pipeline.hpp"

namespace {

using gpushmem::net::stage_in;
using gpushmem::net::stage_out;

// A copy engine with one copy in flight: start_copy records it, wait_copy performs it (so a buffer written or
// read meanwhile by the other side would show).
struct FakeCopies {
  void *dst = nullptr;
  const void *src = nullptr;
  size_t n = 0;
  bool pending = false;
  int started = 0, fail_start_at = -1;
  bool start(void *d, const void *s, size_t bytes) {
    REQUIRE_FALSE(pending);  // the pipeline keeps at most one copy in flight
    if (started++ == fail_start_at) return false;
    dst = d;
    src = s;
    n = bytes;
    pending = true;
    return true;
  }
  bool wait() {
    REQUIRE(pending);
    std::memcpy(dst, src, n);
    pending = false;
    return true;
  }
  // Whether [p, p + bytes) overlaps the copy in flight's destination / source.
  bool writes(const void *p, size_t bytes) const { return pending && overlaps(dst, p, bytes); }
  bool reads(const void *p, size_t bytes) const { return pending && overlaps(src, p, bytes); }
  bool overlaps(const void *a, const void *p, size_t bytes) const {
    const auto *x = static_cast<const char *>(a), *y = static_cast<const char *>(p);
    return x < y + bytes && y < x + n;
  }
};

std::vector<uint8_t> pattern(size_t bytes) {
  std::vector<uint8_t> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<uint8_t>(i * 7 + i / 251);
  return v;
}

}  // namespace

TEST_CASE("stage_out: every chunk goes out in order and whole, overlapping the next chunk's copy", "[stage][emu]") {
  constexpr size_t kChunk = 64;
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(640), size_t(1000)}) {
    const std::vector<uint8_t> src = pattern(bytes);
    std::vector<uint8_t> a(kChunk), b(kChunk), out(bytes, 0);
    uint8_t *const buf[2] = {a.data(), b.data()};
    FakeCopies ce;
    size_t sent = 0, overlapped = 0;
    const bool ok = stage_out(
        reinterpret_cast<const char *>(src.data()), bytes, kChunk, buf,
        [&](void *d, const void *s, size_t n) { return ce.start(d, s, n); }, [&] { return ce.wait(); },
        [&](size_t off, const void *from, size_t n) {
          CHECK(off == sent);               // in order, none skipped
          CHECK_FALSE(ce.writes(from, n));  // not the buffer a copy is filling
          overlapped += ce.pending;
          std::memcpy(out.data() + off, from, n);
          sent += n;
          return true;
        });
    CHECK(ok);
    CHECK_FALSE(ce.pending);
    CHECK(sent == bytes);
    CHECK(out == src);
    const size_t chunks = (bytes + kChunk - 1) / kChunk;
    CHECK(overlapped == (chunks > 0 ? chunks - 1 : 0));  // every send but the last overlaps a copy
  }
}

TEST_CASE("stage_in: every chunk lands in order, the copy out of one buffer overlapping the receive into the other",
          "[stage][emu]") {
  constexpr size_t kChunk = 64;
  for (size_t bytes : {size_t(0), size_t(1), size_t(64), size_t(65), size_t(1000)}) {
    const std::vector<uint8_t> remote = pattern(bytes);
    std::vector<uint8_t> a(kChunk), b(kChunk), dst(bytes, 0);
    uint8_t *const buf[2] = {a.data(), b.data()};
    FakeCopies ce;
    size_t received = 0, overlapped = 0;
    const bool ok = stage_in(
        reinterpret_cast<char *>(dst.data()), bytes, kChunk, buf,
        [&](size_t off, void *into, size_t n) {
          CHECK(off == received);
          CHECK_FALSE(ce.reads(into, n));  // not the buffer a copy is reading
          overlapped += ce.pending;
          std::memcpy(into, remote.data() + off, n);
          received += n;
          return true;
        },
        [&](void *d, const void *s, size_t n) { return ce.start(d, s, n); }, [&] { return ce.wait(); });
    CHECK(ok);
    CHECK_FALSE(ce.pending);
    CHECK(dst == remote);
    const size_t chunks = (bytes + kChunk - 1) / kChunk;
    CHECK(overlapped == (chunks > 0 ? chunks - 1 : 0));
  }
}

TEST_CASE("stage pipeline: a failing step returns false with no copy in flight", "[stage][emu]") {
  constexpr size_t kChunk = 16, kBytes = 100;
  const std::vector<uint8_t> src = pattern(kBytes);
  std::vector<uint8_t> a(kChunk), b(kChunk), dst(kBytes);
  uint8_t *const buf[2] = {a.data(), b.data()};
  for (int fail_at = 0; fail_at < 7; ++fail_at) {
    FakeCopies ce;
    int sends = 0;
    CHECK_FALSE(stage_out(
        reinterpret_cast<const char *>(src.data()), kBytes, kChunk, buf,
        [&](void *d, const void *s, size_t n) { return ce.start(d, s, n); }, [&] { return ce.wait(); },
        [&](size_t, const void *, size_t) { return sends++ != fail_at; }));
    CHECK_FALSE(ce.pending);
    FakeCopies ce2;
    int receives = 0;
    CHECK_FALSE(stage_in(
        reinterpret_cast<char *>(dst.data()), kBytes, kChunk, buf,
        [&](size_t, void *, size_t) { return receives++ != fail_at; },
        [&](void *d, const void *s, size_t n) { return ce2.start(d, s, n); }, [&] { return ce2.wait(); }));
    CHECK_FALSE(ce2.pending);
    FakeCopies ce3;
    ce3.fail_start_at = fail_at;
    CHECK_FALSE(stage_out(
        reinterpret_cast<const char *>(src.data()), kBytes, kChunk, buf,
        [&](void *d, const void *s, size_t n) { return ce3.start(d, s, n); }, [&] { return ce3.wait(); },
        [&](size_t, const void *, size_t) { return true; }));
    CHECK_FALSE(ce3.pending);
  }
}
