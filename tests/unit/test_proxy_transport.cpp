// The proxy executing requests through a transport: a host producer publishes every op of the channel
// format (put from a buffer and inline, get, put-with-signal, signal set and add, non-fetching and fetching
// atomics at both widths, compare-and-swap, fence, quiet, nop) into a ring; the proxy service drains it
// into a TransportBackend over the p2p transport, whose "peer" PE 1 is a buffer of this process; the test
// checks the bytes and values where they landed. Then the refusals: an unreachable PE, an unknown op and
// region, an atomic of the wrong width, GPU memory without staging, too much inline data: each reported by
// name, counted, and completed so that no producer waits. Label emu.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "gpushmem/proxy_producer.hpp"
#include "p2p/p2p_transport.hpp"
#include "proxy/proxy_service.hpp"
#include "proxy/transport_backend.hpp"
#include "proxy_host_mem.hpp"
#include "stderr_capture.hpp"

namespace proxy = gpushmem::proxy;
namespace transport = gpushmem::transport;
using gpushmem::test::HostChannel;
using gpushmem::test::HostMem;
using gpushmem::test::StderrCapture;

namespace {

struct Fixture {
  std::vector<uint64_t> mine = std::vector<uint64_t>(512, 0), peer = std::vector<uint64_t>(512, 0);
  gpushmem::p2p::P2pTransport t;
  HostChannel ch{64};
  gpushmem_proxy_channel_t &c = ch.c;
  gpushmem_proxy_control_t &control = ch.control;
  proxy::TransportBackend be{&t};
  proxy::Service svc{&be, {}};
  Fixture() {
    t.reset(3);  // PE 2 is never mapped
    t.set_base(transport::Region::heap, 0, reinterpret_cast<char *>(mine.data()), mine.size() * 8);
    t.set_base(transport::Region::heap, 1, reinterpret_cast<char *>(peer.data()), peer.size() * 8);
    svc.add_channel(c);
  }
  // Publishes one request and lets the proxy take it; returns the requests taken.
  size_t send(uint32_t op, uint32_t flags, uint32_t pe, const gpushmem_proxy_slot_t &body) {
    uint64_t first = 0;
    REQUIRE(proxy::reserve<HostMem>(c, 1, &first, 0) == proxy::Room::ok);
    proxy::publish<HostMem>(c, first, body, op, flags, pe);
    return svc.poll_once();
  }
  static gpushmem_proxy_slot_t body(uint64_t offset, const void *local, uint32_t size) {
    gpushmem_proxy_slot_t b{};
    b.remote = gpushmem_proxy_remote(offset, 0);
    b.local = reinterpret_cast<uint64_t>(local);
    b.size_event = gpushmem_proxy_size_event(size, 0);
    return b;
  }
  static gpushmem_proxy_slot_t amo(uint64_t offset, uint32_t a, uint32_t width, uint64_t operand, void *fetch = nullptr,
                                   uint64_t compare = 0) {
    gpushmem_proxy_slot_t b = body(offset, fetch, width);
    b.signal = gpushmem_proxy_signal(0, 0, a);
    b.value = operand;
    b.compare = compare;
    return b;
  }
};

}  // namespace

TEST_CASE("proxy over p2p: every op lands where it should", "[proxy][emu]") {
  Fixture f;
  const char msg[] = "through the proxy";
  CHECK(f.send(GPUSHMEM_PROXY_OP_PUT, 0, 1, Fixture::body(16, msg, sizeof msg)) == 1);
  CHECK(std::memcmp(reinterpret_cast<const char *>(f.peer.data()) + 16, msg, sizeof msg) == 0);

  gpushmem_proxy_slot_t inl = Fixture::body(64, nullptr, 6);
  std::memcpy(&inl.compare, "inline", 6);
  f.send(GPUSHMEM_PROXY_OP_PUT, GPUSHMEM_PROXY_FLAG_INLINE, 1, inl);
  CHECK(std::memcmp(reinterpret_cast<const char *>(f.peer.data()) + 64, "inline", 6) == 0);

  char back[sizeof msg] = {};
  f.send(GPUSHMEM_PROXY_OP_GET, 0, 1, Fixture::body(16, back, sizeof msg));
  CHECK(std::memcmp(back, msg, sizeof msg) == 0);

  gpushmem_proxy_slot_t ps = Fixture::body(128, msg, 8);
  ps.signal = gpushmem_proxy_signal(8 * 40, 0, 0);
  ps.value = 77;
  f.send(GPUSHMEM_PROXY_OP_PUT_SIGNAL, 0, 1, ps);
  CHECK(std::memcmp(reinterpret_cast<const char *>(f.peer.data()) + 128, msg, 8) == 0);
  CHECK(f.peer[40] == 77);
  ps.value = 3;
  f.send(GPUSHMEM_PROXY_OP_PUT_SIGNAL, GPUSHMEM_PROXY_FLAG_SIG_ADD, 1, ps);
  CHECK(f.peer[40] == 80);

  gpushmem_proxy_slot_t sig{};
  sig.signal = gpushmem_proxy_signal(8 * 41, 0, 0);
  sig.value = 5;
  f.send(GPUSHMEM_PROXY_OP_SIGNAL, 0, 1, sig);
  f.send(GPUSHMEM_PROXY_OP_SIGNAL, GPUSHMEM_PROXY_FLAG_SIG_ADD, 1, sig);
  CHECK(f.peer[41] == 10);

  uint64_t old = 0;
  f.send(GPUSHMEM_PROXY_OP_AMO, 0, 1, Fixture::amo(8 * 50, GPUSHMEM_PROXY_AMO_STORE, 8, 100));
  f.send(GPUSHMEM_PROXY_OP_AMO, 0, 1, Fixture::amo(8 * 50, GPUSHMEM_PROXY_AMO_ADD, 8, 11));
  f.send(GPUSHMEM_PROXY_OP_AMO_FETCH, 0, 1, Fixture::amo(8 * 50, GPUSHMEM_PROXY_AMO_XOR, 8, 0xff, &old));
  CHECK(old == 111);
  CHECK(f.peer[50] == (111u ^ 0xffu));
  f.send(GPUSHMEM_PROXY_OP_AMO_FETCH, 0, 1, Fixture::amo(8 * 50, GPUSHMEM_PROXY_AMO_CSWAP, 8, 9, &old, 111 ^ 0xff));
  CHECK(old == (111u ^ 0xffu));
  CHECK(f.peer[50] == 9);
  uint32_t old32 = 0;
  f.send(GPUSHMEM_PROXY_OP_AMO, 0, 1, Fixture::amo(8 * 51, GPUSHMEM_PROXY_AMO_OR, 4, 0x30));
  f.send(GPUSHMEM_PROXY_OP_AMO_FETCH, 0, 1, Fixture::amo(8 * 51, GPUSHMEM_PROXY_AMO_LOAD, 4, 0, &old32));
  CHECK(old32 == 0x30);
  f.send(GPUSHMEM_PROXY_OP_FENCE, 0, 1, gpushmem_proxy_slot_t{});
  f.send(GPUSHMEM_PROXY_OP_QUIET, 0, 1, gpushmem_proxy_slot_t{});
  f.send(GPUSHMEM_PROXY_OP_NOP, 0, 0, gpushmem_proxy_slot_t{});
  CHECK(f.be.failures() == 0);
  CHECK(f.control.completed == 16);
}

TEST_CASE("proxy over p2p: requests that cannot run are named, counted and completed", "[proxy][emu]") {
  Fixture f;
  const char msg[] = "x";
  StderrCapture err;
  f.send(GPUSHMEM_PROXY_OP_PUT, 0, 2, Fixture::body(16, msg, 1));  // PE 2 is not reached by p2p
  CHECK(f.be.first_failure().find("proxy channel 0: request 0 (put of 1 bytes to PE 2 (CTA 0, warp 0, SM 0)) failed") !=
        std::string::npos);
  f.send(33, 0, 1, gpushmem_proxy_slot_t{});
  gpushmem_proxy_slot_t bad_region = Fixture::body(16, msg, 1);
  bad_region.remote = gpushmem_proxy_remote(16, 9);
  f.send(GPUSHMEM_PROXY_OP_PUT, 0, 1, bad_region);
  f.send(GPUSHMEM_PROXY_OP_AMO, 0, 1, Fixture::amo(8, GPUSHMEM_PROXY_AMO_ADD, 2, 1));
  f.send(GPUSHMEM_PROXY_OP_AMO, 0, 1, Fixture::amo(8, GPUSHMEM_PROXY_AMO_SWAP, 8, 1));
  f.send(GPUSHMEM_PROXY_OP_AMO_FETCH, 0, 1, Fixture::amo(8, 12, 8, 1, &f.mine[0]));
  f.send(GPUSHMEM_PROXY_OP_PUT, GPUSHMEM_PROXY_FLAG_LOCAL_GPU, 1, Fixture::body(16, msg, 1));
  f.send(GPUSHMEM_PROXY_OP_PUT, GPUSHMEM_PROXY_FLAG_INLINE, 1, Fixture::body(16, nullptr, 9));
  f.send(GPUSHMEM_PROXY_OP_GET, 0, 1, Fixture::body(16, nullptr, 4));
  CHECK(f.be.failures() == 9);
  CHECK(f.control.completed == 9);  // nobody waits for them
  const std::string e = err.text();
  CHECK(e.find("request 1 (unknown op (CTA 0, warp 0, SM 0)) failed") != std::string::npos);
  CHECK(e.find("its op is not one of gpushmem_proxy_op") != std::string::npos);
  CHECK(e.find("its remote region is not one this PE knows") != std::string::npos);
  CHECK(e.find("an atomic is 4 or 8 bytes wide") != std::string::npos);
  CHECK(e.find("this atomic returns a value: send it as AMO_FETCH") != std::string::npos);
  CHECK(e.find("its atomic is not one of gpushmem_proxy_amo") != std::string::npos);
  CHECK(e.find("needs the staging path") != std::string::npos);
  CHECK(e.find("it carries more than 8 bytes inline") != std::string::npos);
  CHECK(e.find("its local buffer is NULL") != std::string::npos);
  CHECK(f.peer[2] == 0);  // nothing landed
}
