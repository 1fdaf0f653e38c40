// The runtime's messages over UCX (ucx_message.hpp, UcxTransport::send_message): a message's segments land
// before its signal, raise never lowers a word, add adds; a malformed message is refused whole, naming what
// is wrong; end to end through a UCX endpoint to this process's own worker: small (one eager active
// message), large (rendezvous, received in place, one segment or several), and a head too long for a
// rendezvous header (puts, a flush, then the signal). The end-to-end part needs UCX at run time.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "ucx/ucx_message.hpp"
#include "ucx/ucx_transport.hpp"
#include "ucx_self_peer.hpp"

using gpushmem::Status;
namespace ucx = gpushmem::ucx;
namespace msg = gpushmem::ucx::message;
namespace transport = gpushmem::transport;
using transport::Region;
using transport::Segment;
using transport::SignalOp;

namespace {

// A message as it travels: head, then the payloads in segment order.
std::vector<uint8_t> encode(const std::vector<Segment> &segs, transport::RemoteRef sig, uint64_t value, SignalOp op) {
  std::vector<uint8_t> m;
  msg::encode_head(3, segs.data(), segs.size(), sig, value, op, &m);
  for (const Segment &s : segs) {
    const auto *p = static_cast<const uint8_t *>(s.src);
    m.insert(m.end(), p, p + s.bytes);
  }
  return m;
}

struct Target {
  alignas(64) char heap[4096] = {};
  alignas(64) char globals[256] = {};
  msg::Regions regions() {
    msg::Regions r;
    r.base[0] = heap;
    r.bytes[0] = sizeof heap;
    r.base[1] = globals;
    r.bytes[1] = sizeof globals;
    return r;
  }
  uint64_t word(Region r, size_t off) {
    uint64_t v;
    std::memcpy(&v, (r == Region::heap ? heap : globals) + off, 8);
    return v;
  }
};

}  // namespace

TEST_CASE("ucx message: segments land, then the signal is raised or added to") {
  Target t;
  const char a[] = "collective data";
  const uint64_t hdr[4] = {1, 2, 3, 4};
  const std::vector<Segment> segs = {{{Region::heap, 100}, a, sizeof a}, {{Region::globals, 32}, hdr, sizeof hdr}};
  std::vector<uint8_t> m = encode(segs, {Region::heap, 1024}, 7, SignalOp::raise);
  int from = -1;
  REQUIRE(msg::apply(m.data(), m.size(), t.regions(), &from) == nullptr);
  CHECK(from == 3);
  CHECK(std::memcmp(t.heap + 100, a, sizeof a) == 0);
  CHECK(std::memcmp(t.globals + 32, hdr, sizeof hdr) == 0);
  CHECK(t.word(Region::heap, 1024) == 7);
  // A late message with a smaller value leaves the word alone; a larger one raises it.
  m = encode({}, {Region::heap, 1024}, 5, SignalOp::raise);
  REQUIRE(msg::apply(m.data(), m.size(), t.regions(), &from) == nullptr);
  CHECK(t.word(Region::heap, 1024) == 7);
  m = encode({}, {Region::heap, 1024}, 9, SignalOp::raise);
  REQUIRE(msg::apply(m.data(), m.size(), t.regions(), &from) == nullptr);
  CHECK(t.word(Region::heap, 1024) == 9);
  m = encode({}, {Region::globals, 0}, 2, SignalOp::add);
  REQUIRE(msg::apply(m.data(), m.size(), t.regions(), &from) == nullptr);
  REQUIRE(msg::apply(m.data(), m.size(), t.regions(), &from) == nullptr);
  CHECK(t.word(Region::globals, 0) == 4);
}

TEST_CASE("ucx message: a malformed message is refused whole, naming what is wrong") {
  const char data[16] = "0123456789abcde";
  struct Case {
    const char *what;
    std::vector<Segment> segs;
    transport::RemoteRef sig;
    void (*spoil)(std::vector<uint8_t> &);
    const char *expect;
  };
  auto none = [](std::vector<uint8_t> &) {};
  const Case cases[] = {
      {"magic",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m[0] ^= 1; },
       "not a gpushmem runtime message"},
      {"short", {}, {Region::heap, 64}, [](std::vector<uint8_t> &m) { m.resize(20); }, "shorter than a message header"},
      {"segment list",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m.resize(sizeof(msg::Header) + 8); },
       "segment list is cut short"},
      {"length",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m.pop_back(); },
       "length does not match"},
      {"segment outside", {{{Region::heap, 4090}, data, 16}}, {Region::heap, 64}, none, "outside this PE's regions"},
      {"region",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m[sizeof(msg::Header) + 12] = 9; },
       "outside this PE's regions"},
      {"signal outside", {{{Region::heap, 0}, data, 16}}, {Region::globals, 252}, none, "signal word lies outside"},
      {"signal unaligned", {{{Region::heap, 0}, data, 16}}, {Region::heap, 68}, none, "not 8-byte aligned"},
      {"flags",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m[sizeof(msg::Header) + 13] = 4; },
       "flags this PE does not know"},
      {"inline in an eager message",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m[sizeof(msg::Header) + 13] = msg::kInline; },
       "eager message with segments marked inline"},
      {"op",
       {{{Region::heap, 0}, data, 16}},
       {Region::heap, 64},
       [](std::vector<uint8_t> &m) { m[10] = 7; },
       "signal operation is unknown"},
  };
  for (const Case &c : cases) {
    INFO("spoilt: " << c.what);
    Target t;
    std::vector<uint8_t> m = encode(c.segs, c.sig, 1, SignalOp::raise);
    c.spoil(m);
    int from = -1;
    const char *bad = msg::apply(m.data(), m.size(), t.regions(), &from);
    REQUIRE(bad != nullptr);
    CHECK(std::string(bad).find(c.expect) != std::string::npos);
    // Nothing applied: no segment, no signal.
    CHECK(t.word(Region::heap, 0) == 0);
    CHECK(t.word(Region::heap, 64) == 0);
  }
}

TEST_CASE("ucx message: end to end through UCX, one message and more than one message holds") {
  setenv("UCX_NET_DEVICES", "lo", 0);  // loopback only
  std::string why;
  const ucx::Api *api = ucx::load("libucp.so.0", &why);
  if (api == nullptr) {
    WARN("UCX is not installed here: nothing to check end to end (" << why << ")");
    return;
  }
  ucx::Options o = gpushmem::test::self_peer_options(0x77);
  auto t = ucx::UcxTransport::create(api, o);
  REQUIRE(t != nullptr);
  constexpr size_t kBig = size_t(3) << 20;
  std::vector<char> region(kBig + (size_t(1) << 20));
  REQUIRE(t->register_region(Region::heap, region.data(), region.size()) == Status::ok);
  std::vector<uint8_t> blob;
  REQUIRE(t->local_blob(&blob) == Status::ok);
  // PE 1 is this process's own worker: the message comes back here.
  REQUIRE(t->connect({blob, gpushmem::test::blob_relabelled(blob, 1)}, {false, true}) == Status::ok);
  auto word = [&](size_t off) {
    return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(region.data() + off)).load();
  };
  auto wait_for = [&](size_t off, uint64_t v) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (word(off) < v && std::chrono::steady_clock::now() < end) t->progress(false);
    return word(off) >= v;
  };
  uint64_t epoch = 0;
  // 8 B and 60000 B: eager (short and iovec); 64 KiB + 1 and 3 MiB: rendezvous (default threshold 60 KiB),
  // the 16-byte second segment inline in the header.
  for (size_t bytes : {size_t(8), size_t(60000), size_t(65537), kBig}) {
    for (bool with_header : {true, false}) {
      INFO("payload bytes: " << bytes << (with_header ? ", and a second segment" : ", one segment"));
      std::vector<char> src(bytes);
      for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<char>(i * 7 + bytes + with_header);
      const uint64_t hdr[2] = {bytes, ~bytes};
      const Segment segs[] = {{{Region::heap, 4096}, src.data(), bytes}, {{Region::heap, 128}, hdr, sizeof hdr}};
      ++epoch;
      REQUIRE(t->send_message(transport::Transport::kRuntimeChannel, 1, segs, with_header ? 2 : 1, {Region::heap, 64},
                              epoch, SignalOp::raise) == Status::ok);
      src.assign(bytes, 0);  // the sources are ours again at return
      REQUIRE(wait_for(64, epoch));
      bool same = true;
      for (size_t i = 0; i < bytes && same; ++i)
        same = region[4096 + i] == static_cast<char>(i * 7 + bytes + with_header);
      CHECK(same);
      if (with_header) CHECK(std::memcmp(region.data() + 128, hdr, sizeof hdr) == 0);
      std::memset(region.data() + 128, 0, sizeof hdr);
    }
  }
  {
    // 100 segments of 1000 B, 100 KB in all: rendezvous, as many inline as the header holds, the rest bulk.
    std::vector<char> src(100 * 1000);
    std::vector<Segment> segs;
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 11 + 5);
    for (size_t k = 0; k < 100; ++k)
      segs.push_back(Segment{{Region::heap, 8192 + k * 1024}, src.data() + k * 1000, 1000});
    ++epoch;
    REQUIRE(t->send_message(transport::Transport::kRuntimeChannel, 1, segs.data(), segs.size(), {Region::heap, 64},
                            epoch, SignalOp::raise) == Status::ok);
    REQUIRE(wait_for(64, epoch));
    bool same = true;
    for (size_t k = 0; k < 100 && same; ++k)
      same = std::memcmp(region.data() + 8192 + k * 1024, src.data() + k * 1000, 1000) == 0;
    CHECK(same);
  }
  {
    // 5000 segments of 64 B (empty ones among them): a head of 80 KB, longer than a rendezvous header may be.
    constexpr size_t kSegs = 5000;
    std::vector<char> src(kSegs * 64);
    std::vector<Segment> segs;
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>(i * 13 + 1);
    for (size_t k = 0; k < kSegs; ++k)
      segs.push_back(Segment{{Region::heap, 4096 + (kSegs - 1 - k) * 64}, src.data() + k * 64, k % 7 == 3 ? 0u : 64u});
    ++epoch;
    REQUIRE(t->send_message(transport::Transport::kRuntimeChannel, 1, segs.data(), segs.size(), {Region::heap, 64},
                            epoch, SignalOp::raise) == Status::ok);
    REQUIRE(wait_for(64, epoch));
    bool same = true;
    for (size_t k = 0; k < kSegs && same; ++k)
      if (k % 7 != 3) same = std::memcmp(region.data() + 4096 + (kSegs - 1 - k) * 64, src.data() + k * 64, 64) == 0;
    CHECK(same);
  }
  // Adds: two arrivals on one word.
  for (int i = 0; i < 2; ++i)
    REQUIRE(t->send_message(transport::Transport::kRuntimeChannel, 1, nullptr, 0, {Region::heap, 0}, 5,
                            SignalOp::add) == Status::ok);
  REQUIRE(wait_for(0, 10));
  CHECK(word(0) == 10);
  // Outside the peer's region: refused before UCX sees it.
  const Segment out[] = {{{Region::heap, region.size() - 4}, region.data(), 8}};
  CHECK(t->send_message(transport::Transport::kRuntimeChannel, 1, out, 1, {Region::heap, 0}, 1, SignalOp::add) ==
        Status::invalid_argument);
  REQUIRE(t->quiet(transport::Transport::kRuntimeChannel) == Status::ok);
  t->finalize();
}
