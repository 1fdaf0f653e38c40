// Operations on an agent region (a GPU heap without GPUDirect, ucx/ucx_agent.hpp) with a CPU agent over a
// host buffer standing in for the GPU: the target's execution of each request kind and its refusals
// (no UCX needed), then the whole path through the ucx transport to "PE 1" (this process, its own blob
// relabelled): puts and gets of one byte to several chunks (eager and rendezvous), every atomic,
// put-with-signal with the signal in the agent region and in the host heap, quiet and fence, a refused
// operation reported at the quiet. Every byte checked, and the agent's counters show it did the work; with a
// one-sided part (transport::OneSided), that puts and gets within it bypass the agent and nothing else does.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "agent/cpu_memory_agent.hpp"
#include "catch.hpp"
#include "stderr_capture.hpp"
#include "ucx/ucx_agent.hpp"
#include "ucx/ucx_transport.hpp"
#include "ucx_self_peer.hpp"

using gpushmem::Status;
using gpushmem::test::StderrCapture;
namespace ucx = gpushmem::ucx;
namespace agent = gpushmem::ucx::agent;
namespace transport = gpushmem::transport;
using transport::AmoOp;
using transport::Region;
using transport::RemoteRef;

namespace {

agent::Request request(agent::Kind kind, uint64_t offset, uint64_t bytes) {
  agent::Request r{};
  r.magic = agent::kRequestMagic;
  r.from_pe = 3;
  r.kind = static_cast<uint8_t>(kind);
  r.region = static_cast<uint8_t>(Region::gpu_heap);
  r.offset = offset;
  r.bytes = bytes;
  r.id = 42;
  r.channel = 7;
  return r;
}

struct Target {
  alignas(8) std::vector<uint8_t> gpu = std::vector<uint8_t>(4096);
  alignas(8) uint64_t host[16] = {};
  transport::CpuMemoryAgent cpu{gpu.data(), gpu.size()};
  agent::Regions regions;
  Target() {
    regions.base[0] = reinterpret_cast<char *>(host);
    regions.bytes[0] = sizeof host;
    regions.base[2] = reinterpret_cast<char *>(gpu.data());
    regions.bytes[2] = gpu.size();
    regions.agent[2] = &cpu;
  }
};

}  // namespace

TEST_CASE("ucx agent: the target executes each kind through the region's agent") {
  Target t;
  agent::Reply reply;
  std::vector<uint8_t> got;
  std::vector<uint8_t> data(100);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i + 1);
  agent::Request put = request(agent::Kind::put, 64, data.size());
  REQUIRE(agent::execute(t.regions, put, data.data(), data.size(), &reply, &got) == nullptr);
  CHECK(reply.outcome == static_cast<uint8_t>(agent::Outcome::done));
  CHECK(reply.id == 42);
  CHECK(reply.channel == 7);
  CHECK(std::memcmp(t.gpu.data() + 64, data.data(), data.size()) == 0);
  CHECK(t.cpu.writes() == 1);

  agent::Request get = request(agent::Kind::get, 64, data.size());
  REQUIRE(agent::execute(t.regions, get, nullptr, 0, &reply, &got) == nullptr);
  CHECK(got == data);
  CHECK(reply.bytes == data.size());
  CHECK(t.cpu.reads() == 1);

  agent::Request amo = request(agent::Kind::amo, 8, 0);
  amo.op = static_cast<uint8_t>(AmoOp::add);
  amo.width = 8;
  amo.operand = 5;
  REQUIRE(agent::execute(t.regions, amo, nullptr, 0, &reply, &got) == nullptr);
  amo.operand = 2;
  REQUIRE(agent::execute(t.regions, amo, nullptr, 0, &reply, &got) == nullptr);
  CHECK(reply.value == 5);
  amo.op = static_cast<uint8_t>(AmoOp::cswap);
  amo.compare = 7;
  amo.operand = 70;
  REQUIRE(agent::execute(t.regions, amo, nullptr, 0, &reply, &got) == nullptr);
  CHECK(reply.value == 7);
  uint64_t word;
  std::memcpy(&word, t.gpu.data() + 8, 8);
  CHECK(word == 70);

  // put-with-signal: payload into the agent region, signal into the host heap (added twice).
  agent::Request ps = request(agent::Kind::put_signal, 256, 4);
  ps.signal_region = static_cast<uint8_t>(Region::heap);
  ps.signal_add = 1;
  ps.operand = 3;
  ps.compare = 16;  // host[2]
  REQUIRE(agent::execute(t.regions, ps, data.data(), 4, &reply, &got) == nullptr);
  REQUIRE(agent::execute(t.regions, ps, data.data(), 4, &reply, &got) == nullptr);
  CHECK(t.host[2] == 6);
  CHECK(std::memcmp(t.gpu.data() + 256, data.data(), 4) == 0);
}

TEST_CASE("ucx agent: the target refuses malformed and out-of-range requests and applies nothing") {
  Target t;
  agent::Reply reply;
  std::vector<uint8_t> got;
  std::vector<uint8_t> data(16, 0xab);
  const std::vector<uint8_t> before = t.gpu;
  auto refused = [&](agent::Request r, const void *d, size_t n) {
    const char *why = agent::execute(t.regions, r, d, n, &reply, &got);
    CHECK(reply.outcome == static_cast<uint8_t>(agent::Outcome::refused));
    return std::string(why != nullptr ? why : "");
  };
  agent::Request r = request(agent::Kind::put, 4090, 16);
  CHECK(refused(r, data.data(), 16).find("outside") != std::string::npos);
  r = request(agent::Kind::put, 0, 16);
  CHECK(refused(r, data.data(), 8).find("not as long") != std::string::npos);
  r.magic = 1;
  CHECK(refused(r, data.data(), 16).find("not a gpushmem") != std::string::npos);
  r = request(agent::Kind::amo, 4, 0);
  r.width = 8;
  CHECK(refused(r, nullptr, 0).find("aligned") != std::string::npos);
  r.width = 2;
  CHECK(refused(r, nullptr, 0).find("width") != std::string::npos);
  r = request(agent::Kind::get, 0, 16);
  r.region = 9;
  CHECK(refused(r, nullptr, 0).find("outside") != std::string::npos);
  // A heap that has not grown that far yet: its agent says how much is usable.
  t.cpu.set_usable(1024);
  r = request(agent::Kind::put, 1024, 16);
  CHECK(refused(r, data.data(), 16).find("outside") != std::string::npos);
  r = request(agent::Kind::put_signal, 0, 16);
  r.signal_region = static_cast<uint8_t>(Region::heap);
  r.compare = 4;
  CHECK(refused(r, data.data(), 16).find("signal") != std::string::npos);
  CHECK(t.gpu == before);
  CHECK(t.cpu.writes() == 0);
}

namespace {

const ucx::Api *load_ucx() {
  setenv("UCX_NET_DEVICES", "lo", 0);  // loopback only
  setenv("UCX_TLS", "^self", 0);       // the transports an operation to a peer takes (test_ucx_protocols.cpp)
  std::string why;
  const ucx::Api *api = ucx::load("libucp.so.0", &why);
  if (api == nullptr) WARN("UCX is not installed here: nothing to check (" << why << ")");
  return api;
}

}  // namespace

TEST_CASE("ucx agent: host operations on a peer's agent region go through its agent") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  ucx::Options o = gpushmem::test::self_peer_options(0x99);
  o.rndv_bytes = 60 << 10;
  std::unique_ptr<ucx::UcxTransport> t = ucx::UcxTransport::create(api, o);
  REQUIRE(t != nullptr);
  alignas(8) static uint64_t heap[64];
  std::memset(heap, 0, sizeof heap);
  const size_t gpu_bytes = 4 << 20;
  std::vector<uint8_t> gpu(gpu_bytes, 0);
  transport::CpuMemoryAgent cpu(gpu.data(), gpu.size());
  REQUIRE(t->register_region(Region::heap, heap, sizeof heap) == Status::ok);
  REQUIRE(t->register_region(Region::gpu_heap, gpu.data(), gpu.size(), &cpu) == Status::ok);
  std::vector<uint8_t> blob;
  REQUIRE(t->local_blob(&blob) == Status::ok);
  ucx::BlobHeader h;
  std::memcpy(&h, blob.data(), sizeof h);
  CHECK(h.agent_regions == 1u << 2);
  CHECK(h.rkey_bytes[2] == 0);
  // PE 0 reached too: "PE 1" answers the requests of PE 0, i.e. this worker again.
  REQUIRE(t->connect({blob, gpushmem::test::blob_relabelled(blob, 1)}, {true, true}) == Status::ok);
  auto capture = std::make_unique<StderrCapture>();

  // Puts and gets from 1 byte to 2.5 chunks (eager below 60 KiB, rendezvous above).
  for (size_t bytes : {size_t{1}, size_t{8}, size_t{4000}, size_t{100000}, size_t{2621440}}) {
    std::vector<uint8_t> src(bytes), back(bytes, 0);
    for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<uint8_t>(i * 7 + bytes);
    const RemoteRef at{Region::gpu_heap, 4096};
    REQUIRE(t->put(0, 1, at, src.data(), bytes, transport::Completion::none, nullptr) == Status::ok);
    REQUIRE(t->quiet(0) == Status::ok);
    CHECK(std::memcmp(gpu.data() + 4096, src.data(), bytes) == 0);
    REQUIRE(t->get(0, 1, back.data(), at, bytes) == Status::ok);
    CHECK(back == src);
  }
  CHECK(cpu.writes() >= 5);
  CHECK(cpu.reads() >= 5);
  // Empty ones (no one-sided part, no key): through the agent too, nothing to do.
  uint8_t none = 0;
  CHECK(t->put(0, 1, RemoteRef{Region::gpu_heap, 0}, &none, 0, transport::Completion::local, nullptr) == Status::ok);
  CHECK(t->get(0, 1, &none, RemoteRef{Region::gpu_heap, 0}, 0) == Status::ok);
  REQUIRE(t->quiet(0) == Status::ok);

  // Every atomic, 8 and 4 bytes.
  const RemoteRef w64{Region::gpu_heap, 0}, w32{Region::gpu_heap, 8};
  uint64_t f = 0;
  CHECK(t->amo(0, 1, w64, AmoOp::add, 8, 5, 0, &f) == Status::ok);
  CHECK(f == 0);
  CHECK(t->amo(0, 1, w64, AmoOp::add, 8, 2, 0, nullptr) == Status::ok);  // posted
  CHECK(t->amo(0, 1, w64, AmoOp::load, 8, 0, 0, &f) == Status::ok);
  CHECK(f == 7);
  CHECK(t->amo(0, 1, w64, AmoOp::cswap, 8, 40, 7, &f) == Status::ok);
  CHECK(f == 7);
  CHECK(t->amo(0, 1, w64, AmoOp::cswap, 8, 99, 7, &f) == Status::ok);
  CHECK(f == 40);
  CHECK(t->amo(0, 1, w64, AmoOp::or_, 8, 0x3, 0, &f) == Status::ok);
  CHECK(f == 40);
  CHECK(t->amo(0, 1, w64, AmoOp::and_, 8, 0xf, 0, &f) == Status::ok);
  CHECK(f == 43);
  CHECK(t->amo(0, 1, w64, AmoOp::xor_, 8, 0x1, 0, nullptr) == Status::ok);
  CHECK(t->amo(0, 1, w64, AmoOp::swap, 8, 123, 0, &f) == Status::ok);
  CHECK(f == 10);
  CHECK(t->amo(0, 1, w64, AmoOp::store, 8, 1u << 20, 0, nullptr) == Status::ok);
  uint32_t f32 = 0;
  CHECK(t->amo(0, 1, w32, AmoOp::add, 4, 0xffffffffu, 0, &f32) == Status::ok);
  CHECK(f32 == 0);
  CHECK(t->amo(0, 1, w32, AmoOp::or_, 4, 0x10, 0, &f32) == Status::ok);
  CHECK(f32 == 0xffffffffu);
  REQUIRE(t->quiet(0) == Status::ok);
  uint64_t v64;
  uint32_t v32;
  std::memcpy(&v64, gpu.data(), 8);
  std::memcpy(&v32, gpu.data() + 8, 4);
  CHECK(v64 == (1u << 20));
  CHECK(v32 == 0xffffffffu);
  CHECK(cpu.atomics() == 12);

  // put-with-signal: a 3-chunk payload and its signal in the agent region, then a small one whose signal is
  // in the host heap; a PE that sees a signal sees its payload.
  std::vector<uint8_t> big(3 << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i ^ (i >> 9));
  REQUIRE(t->put_signal(0, 1, RemoteRef{Region::gpu_heap, 64}, big.data(), big.size(), RemoteRef{Region::gpu_heap, 16},
                        9, false) == Status::ok);
  REQUIRE(t->put_signal(0, 1, RemoteRef{Region::gpu_heap, 32}, &v64, 8, RemoteRef{Region::heap, 8}, 4, true) ==
          Status::ok);
  REQUIRE(t->quiet(0) == Status::ok);
  uint64_t sig;
  std::memcpy(&sig, gpu.data() + 16, 8);
  CHECK(sig == 9);
  CHECK(std::memcmp(gpu.data() + 64, big.data(), big.size()) == 0);
  CHECK(heap[1] == 4);

  // A context's channel: its own worker, the replies still come to the PE's worker.
  REQUIRE(t->put(5, 1, RemoteRef{Region::gpu_heap, 200}, &v64, 8, transport::Completion::local, nullptr) == Status::ok);
  REQUIRE(t->fence(5) == Status::ok);
  REQUIRE(t->amo(5, 1, RemoteRef{Region::gpu_heap, 200}, AmoOp::add, 8, 1, 0, &f) == Status::ok);
  CHECK(f == (1u << 20));
  REQUIRE(t->quiet(5) == Status::ok);
  CHECK(capture->text().find("ERROR") == std::string::npos);
  capture.reset();

  // A heap that has not grown that far at the target: refused there, reported by the quiet.
  cpu.set_usable(1 << 20);
  {
    StderrCapture refusal;
    REQUIRE(t->put(0, 1, RemoteRef{Region::gpu_heap, 2 << 20}, &v64, 8, transport::Completion::none, nullptr) ==
            Status::ok);
    CHECK(t->quiet(0) == Status::system_error);
    const std::string text = refusal.text();
    // (The target is this process, PE 0 to itself.)
    CHECK(text.find("refuses a put of 8 bytes at offset 2097152 of its GPU heap from PE 0") != std::string::npos);
    CHECK(text.find("quiet: PE 0 could not apply a put (refused") != std::string::npos);
  }
  {
    StderrCapture refusal;
    uint64_t x = 0;
    CHECK(t->get(0, 1, &x, RemoteRef{Region::gpu_heap, 2 << 20}, 8) == Status::system_error);
    CHECK(refusal.text().find("get of 8 bytes from PE 1's GPU heap failed there") != std::string::npos);
  }
  REQUIRE(t->quiet(0) == Status::ok);  // the error was reported once
  t->finalize();
}

TEST_CASE(
    "ucx agent: puts posted to a deferring agent are completed before their acknowledgement, a get and an "
    "atomic, and in batches") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  ucx::Options o = gpushmem::test::self_peer_options(0x9a);
  std::unique_ptr<ucx::UcxTransport> t = ucx::UcxTransport::create(api, o);
  REQUIRE(t != nullptr);
  alignas(8) static uint64_t heap[64];
  std::vector<uint8_t> gpu(1 << 20, 0);
  transport::CpuMemoryAgent cpu(gpu.data(), gpu.size());
  cpu.set_deferred(true);
  REQUIRE(t->register_region(Region::heap, heap, sizeof heap) == Status::ok);
  REQUIRE(t->register_region(Region::gpu_heap, gpu.data(), gpu.size(), &cpu) == Status::ok);
  std::vector<uint8_t> blob;
  REQUIRE(t->local_blob(&blob) == Status::ok);
  REQUIRE(t->connect({blob, gpushmem::test::blob_relabelled(blob, 1)}, {true, true}) == Status::ok);
  auto capture = std::make_unique<StderrCapture>();

  // 1000 small puts, then one quiet: each is applied when the quiet returns (acknowledged only once complete),
  // and they were completed in batches, not one by one.
  constexpr int kPuts = 1000;
  for (int i = 0; i < kPuts; ++i) {
    const uint32_t v = 0xa5000000u + static_cast<uint32_t>(i);
    REQUIRE(t->put(0, 1, RemoteRef{Region::gpu_heap, 4096 + 4 * static_cast<uint64_t>(i)}, &v, 4,
                   transport::Completion::local, nullptr) == Status::ok);
  }
  REQUIRE(t->quiet(0) == Status::ok);
  int wrong = 0;
  for (int i = 0; i < kPuts; ++i) {
    uint32_t v;
    std::memcpy(&v, gpu.data() + 4096 + 4 * i, 4);
    wrong += v != 0xa5000000u + static_cast<uint32_t>(i);
  }
  CHECK(wrong == 0);
  CHECK(cpu.posted() == kPuts);
  CHECK(cpu.completions() >= 1);
  CHECK(cpu.completions() < kPuts);

  // A put then a get of the same bytes, and a put then an atomic on its word, with no quiet between: the get and
  // the atomic see the put.
  const uint64_t x = 0x1122334455667788ull;
  REQUIRE(t->put(0, 1, RemoteRef{Region::gpu_heap, 64}, &x, 8, transport::Completion::none, nullptr) == Status::ok);
  uint64_t back = 0;
  REQUIRE(t->get(0, 1, &back, RemoteRef{Region::gpu_heap, 64}, 8) == Status::ok);
  CHECK(back == x);
  const uint64_t y = 40;
  REQUIRE(t->put(0, 1, RemoteRef{Region::gpu_heap, 72}, &y, 8, transport::Completion::none, nullptr) == Status::ok);
  uint64_t old = 0;
  REQUIRE(t->amo(0, 1, RemoteRef{Region::gpu_heap, 72}, AmoOp::add, 8, 2, 0, &old) == Status::ok);
  CHECK(old == 40);
  REQUIRE(t->quiet(0) == Status::ok);
  uint64_t now = 0;
  std::memcpy(&now, gpu.data() + 72, 8);
  CHECK(now == 42);
  CHECK(capture->text().find("ERROR") == std::string::npos);
  capture.reset();
  t->finalize();
}

TEST_CASE("ucx agent: an agent region's one-sided part takes puts and gets without its agent") {
  // transport::OneSided: a GPU heap with a UCX that reaches it; atomics and signals still go to the agent.
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  std::unique_ptr<ucx::UcxTransport> t = ucx::UcxTransport::create(api, gpushmem::test::self_peer_options(0x77));
  REQUIRE(t != nullptr);
  alignas(8) static uint64_t heap[64];
  const size_t gpu_bytes = 4 << 20, one_sided = 1 << 20;
  std::vector<uint8_t> gpu(gpu_bytes, 0);
  transport::CpuMemoryAgent cpu(gpu.data(), gpu.size());
  REQUIRE(t->register_region(Region::heap, heap, sizeof heap) == Status::ok);
  REQUIRE(t->register_region(Region::gpu_heap, gpu.data(), gpu.size(), &cpu, transport::OneSided{one_sided, false}) ==
          Status::ok);
  std::vector<uint8_t> blob;
  REQUIRE(t->local_blob(&blob) == Status::ok);
  ucx::BlobHeader h;
  std::memcpy(&h, blob.data(), sizeof h);
  CHECK(h.agent_regions == 1u << 2);
  CHECK(h.rkey_bytes[2] > 0);
  CHECK(h.rma_bytes[2] == one_sided);
  REQUIRE(t->connect({blob, gpushmem::test::blob_relabelled(blob, 1)}, {true, true}) == Status::ok);

  // Within the part: one-sided, the agent untouched.
  std::vector<uint8_t> src(100000), back(src.size(), 0);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 13 + 1);
  const RemoteRef in{Region::gpu_heap, 4096};
  REQUIRE(t->put(0, 1, in, src.data(), src.size(), transport::Completion::none, nullptr) == Status::ok);
  REQUIRE(t->quiet(0) == Status::ok);
  CHECK(std::memcmp(gpu.data() + 4096, src.data(), src.size()) == 0);
  REQUIRE(t->get(0, 1, back.data(), in, back.size()) == Status::ok);
  CHECK(back == src);
  CHECK(cpu.writes() == 0);
  CHECK(cpu.reads() == 0);
  CHECK(t->describe(1).find("its GPU heap one-sided for puts and gets to its first 1 MiB") != std::string::npos);

  // Across its end and beyond: the agent, whole.
  const RemoteRef across{Region::gpu_heap, one_sided - 100};
  REQUIRE(t->put(0, 1, across, src.data(), 1000, transport::Completion::local, nullptr) == Status::ok);
  REQUIRE(t->quiet(0) == Status::ok);
  CHECK(std::memcmp(gpu.data() + one_sided - 100, src.data(), 1000) == 0);
  CHECK(cpu.writes() == 1);
  std::fill(back.begin(), back.end(), 0);
  REQUIRE(t->get(0, 1, back.data(), RemoteRef{Region::gpu_heap, 2 << 20}, 64) == Status::ok);
  CHECK(cpu.reads() == 1);

  // Atomics always through the agent; a put-with-signal whose signal is in the region: whole through the agent.
  uint64_t old = 1;
  CHECK(t->amo(0, 1, RemoteRef{Region::gpu_heap, 0}, AmoOp::add, 8, 5, 0, &old) == Status::ok);
  CHECK(old == 0);
  CHECK(cpu.atomics() == 1);
  const RemoteRef payload{Region::gpu_heap, 8192}, signal{Region::gpu_heap, 64};
  REQUIRE(t->put_signal(0, 1, payload, src.data(), 3000, signal, 9, false) == Status::ok);
  REQUIRE(t->quiet(0) == Status::ok);
  CHECK(std::memcmp(gpu.data() + 8192, src.data(), 3000) == 0);
  uint64_t sig = 0;
  std::memcpy(&sig, gpu.data() + 64, 8);
  CHECK(sig == 9);
  CHECK(cpu.writes() == 2);  // the payload too
  t->finalize();
}
