// The load/store transport through its Transport interface (what the CPU proxy and other generic users
// call): puts, gets, every atomic at both widths, put-with-signal, and the refusals (a PE that is not
// mapped, a range that leaves the region, a misaligned word). PE 1's "mapping" is a buffer of this process.
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "p2p/p2p_transport.hpp"
#include "stderr_capture.hpp"

using gpushmem::Status;
using gpushmem::test::StderrCapture;
namespace p2p = gpushmem::p2p;
namespace transport = gpushmem::transport;
using transport::AmoOp;
using transport::Region;
using transport::RemoteRef;

namespace {

struct Fixture {
  std::vector<uint64_t> mine = std::vector<uint64_t>(512, 0), peer = std::vector<uint64_t>(512, 0);
  p2p::P2pTransport t;
  Fixture() {
    t.reset(3);  // PE 2 is on another node: never mapped
    t.set_base(Region::heap, 0, reinterpret_cast<char *>(mine.data()), mine.size() * 8);
    t.set_base(Region::heap, 1, reinterpret_cast<char *>(peer.data()), peer.size() * 8);
  }
  uint64_t word(size_t i) const { return peer[i]; }
};

}  // namespace

TEST_CASE("p2p: reach and capabilities follow the mappings") {
  Fixture f;
  CHECK(f.t.reaches(0));
  CHECK(f.t.reaches(1));
  CHECK_FALSE(f.t.reaches(2));
  CHECK_FALSE(f.t.reaches(7));
  const transport::Caps c = f.t.caps(1);
  CHECK((c.rma && c.amo32 && c.amo64 && c.fetching_amo && c.remote_ordering));
  CHECK_FALSE(c.needs_target_progress);
  CHECK_FALSE(f.t.caps(2).rma);
  CHECK(f.t.describe(1).find("memfd") != std::string::npos);
  CHECK(f.t.heap_base(1) == reinterpret_cast<char *>(f.peer.data()));
  CHECK(f.t.globals_base(1) == nullptr);
  std::vector<bool> want = {false, true, false};
  CHECK(f.t.connect({}, want) == Status::ok);
  want[2] = true;
  StderrCapture err;
  CHECK(f.t.connect({}, want) == Status::not_supported);
  CHECK(err.text().find("PE 2") != std::string::npos);
}

TEST_CASE("p2p: put and get move the bytes at the offset") {
  Fixture f;
  const char msg[] = "seventeen bytes!";
  transport::Token tok{9, 9};
  REQUIRE(f.t.put(0, 1, RemoteRef{Region::heap, 24}, msg, sizeof msg, transport::Completion::none, &tok) == Status::ok);
  CHECK(std::memcmp(reinterpret_cast<const char *>(f.peer.data()) + 24, msg, sizeof msg) == 0);
  CHECK(f.t.wait(tok) == Status::ok);
  CHECK(f.t.quiet(transport::Transport::kAllChannels) == Status::ok);
  char back[sizeof msg] = {};
  REQUIRE(f.t.get(0, 1, back, RemoteRef{Region::heap, 24}, sizeof msg) == Status::ok);
  CHECK(std::memcmp(back, msg, sizeof msg) == 0);
  CHECK(f.mine[3] == 0);  // nothing landed in PE 0's copy
}

TEST_CASE("p2p: every atomic at 4 and 8 bytes") {
  Fixture f;
  uint64_t old = 0;
  auto amo8 = [&](AmoOp op, uint64_t v, uint64_t cmp = 0, bool fetch = true) {
    old = ~0ull;
    return f.t.amo(0, 1, RemoteRef{Region::heap, 64}, op, 8, v, cmp, fetch ? &old : nullptr);
  };
  REQUIRE(amo8(AmoOp::store, 0xf0f0, 0, false) == Status::ok);
  CHECK(f.word(8) == 0xf0f0);
  REQUIRE(amo8(AmoOp::add, 0x10) == Status::ok);
  CHECK(old == 0xf0f0);
  CHECK(f.word(8) == 0xf100);
  REQUIRE(amo8(AmoOp::and_, 0xff00) == Status::ok);
  CHECK(f.word(8) == 0xf100);
  REQUIRE(amo8(AmoOp::or_, 0x3) == Status::ok);
  CHECK(f.word(8) == 0xf103);
  REQUIRE(amo8(AmoOp::xor_, 0x100) == Status::ok);
  CHECK(old == 0xf103);
  CHECK(f.word(8) == 0xf003);
  REQUIRE(amo8(AmoOp::swap, 42) == Status::ok);
  CHECK(old == 0xf003);
  REQUIRE(amo8(AmoOp::cswap, 7, 41) == Status::ok);  // expected 41, is 42: unchanged
  CHECK(old == 42);
  CHECK(f.word(8) == 42);
  REQUIRE(amo8(AmoOp::cswap, 7, 42) == Status::ok);
  CHECK(old == 42);
  CHECK(f.word(8) == 7);
  REQUIRE(amo8(AmoOp::load, 0) == Status::ok);
  CHECK(old == 7);

  // 4 bytes: only the addressed half of the 8-byte word changes.
  f.peer[10] = 0xaaaaaaaa00000005ull;
  uint32_t old32 = 0;
  REQUIRE(f.t.amo(0, 1, RemoteRef{Region::heap, 80}, AmoOp::add, 4, 0xfffffffeull, 0, &old32) == Status::ok);
  CHECK(old32 == 5);
  CHECK(f.peer[10] == 0xaaaaaaaa00000003ull);  // wrapped at 32 bits
  REQUIRE(f.t.amo(0, 1, RemoteRef{Region::heap, 84}, AmoOp::cswap, 4, 1, 0xaaaaaaaa, &old32) == Status::ok);
  CHECK(old32 == 0xaaaaaaaau);
  CHECK(f.peer[10] == 0x0000000100000003ull);
}

TEST_CASE("p2p: put_signal writes the payload, then sets or adds the signal") {
  Fixture f;
  const uint64_t payload[4] = {1, 2, 3, 4};
  REQUIRE(f.t.put_signal(0, 1, RemoteRef{Region::heap, 128}, payload, sizeof payload, RemoteRef{Region::heap, 8}, 5,
                         false) == Status::ok);
  CHECK(f.peer[16] == 1);
  CHECK(f.peer[19] == 4);
  CHECK(f.peer[1] == 5);
  REQUIRE(f.t.put_signal(0, 1, RemoteRef{Region::heap, 128}, payload, 0, RemoteRef{Region::heap, 8}, 3, true) ==
          Status::ok);
  CHECK(f.peer[1] == 8);
}

TEST_CASE("p2p: refusals name the operation and the PE") {
  Fixture f;
  uint64_t v = 1;
  {
    StderrCapture err;
    CHECK(f.t.put(0, 2, RemoteRef{Region::heap, 0}, &v, 8, transport::Completion::local, nullptr) ==
          Status::invalid_argument);
    CHECK(err.text().find("put: PE 2 has no heap mapping") != std::string::npos);
  }
  {
    StderrCapture err;
    CHECK(f.t.get(0, 1, &v, RemoteRef{Region::heap, 4096 - 4}, 8) == Status::invalid_argument);
    CHECK(err.text().find("leaves PE 1's heap") != std::string::npos);
  }
  {
    StderrCapture err;
    CHECK(f.t.amo(0, 1, RemoteRef{Region::heap, 4}, AmoOp::add, 8, 1, 0, nullptr) == Status::invalid_argument);
    CHECK(err.text().find("not an aligned") != std::string::npos);
  }
  {
    StderrCapture err;
    CHECK(f.t.amo(0, 1, RemoteRef{Region::globals, 0}, AmoOp::add, 8, 1, 0, nullptr) == Status::invalid_argument);
    CHECK(err.text().find("PE 1 has no globals mapping") != std::string::npos);
  }
  f.t.unmap_all();  // forgets the bases (the buffers are not its mappings)
  CHECK_FALSE(f.t.reaches(1));
}
