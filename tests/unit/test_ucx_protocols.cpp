// The ucx transport under each of UCX's protocol stacks: it reads which one UCX_PROTO_ENABLE chose, and every
// kind of atomic it issues (fetching, posted, compare-swap, the bitwise fetching ones it may emulate) works
// on its endpoints under that stack — UCX 1.16's new stack cancels atomics on endpoints with peer-failure
// handling, which the transport must therefore not ask for there. The PE talks to itself: its own blob,
// relabelled as PE 1. Needs UCX at run time (skipped without it).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "stderr_capture.hpp"
#include "ucx/ucx_transport.hpp"
#include "ucx_self_peer.hpp"

using gpushmem::Status;
using gpushmem::test::StderrCapture;
namespace ucx = gpushmem::ucx;
namespace transport = gpushmem::transport;

namespace {

const ucx::Api *load_ucx() {
  setenv("UCX_NET_DEVICES", "lo", 0);  // loopback only
  // Not UCX's `self` transport, which only a PE's operations on its own worker take (gpushmem serves those
  // locally): the transports an operation to a peer takes. (On UCX 1.16's new stack, `self` left fetching
  // and / or undone here: the old value came back, the word stayed.)
  setenv("UCX_TLS", "^self", 0);
  std::string why;
  const ucx::Api *api = ucx::load("libucp.so.0", &why);
  if (api == nullptr) WARN("UCX is not installed here: nothing to check (" << why << ")");
  return api;
}

// UCX_PROTO_ENABLE set to `value` for one scope (restored after), read by the next ucp_config_read.
struct ProtoEnable {
  std::string saved;
  bool had;
  explicit ProtoEnable(const char *value) {
    const char *old = std::getenv("UCX_PROTO_ENABLE");
    had = old != nullptr;
    if (had) saved = old;
    setenv("UCX_PROTO_ENABLE", value, 1);
  }
  ~ProtoEnable() {
    if (had)
      setenv("UCX_PROTO_ENABLE", saved.c_str(), 1);
    else
      unsetenv("UCX_PROTO_ENABLE");
  }
};

bool config_says_new(const ucx::Api *api) {
  ucp_config_t *config = nullptr;
  REQUIRE(api->ucp_config_read(nullptr, nullptr, &config) == UCS_OK);
  const bool on = ucx::UcxTransport::uses_new_protocols(api, config);
  api->ucp_config_release(config);
  return on;
}

// Every atomic the transport offers, on a word of the heap of "PE 1" (this process), with values checked.
void check_atomics(const ucx::Api *api) {
  ucx::Options o = gpushmem::test::self_peer_options(0x77);
  std::unique_ptr<ucx::UcxTransport> t = ucx::UcxTransport::create(api, o);
  REQUIRE(t != nullptr);
  alignas(8) static uint64_t heap[8];
  std::memset(heap, 0, sizeof heap);
  REQUIRE(t->register_region(transport::Region::heap, heap, sizeof heap) == Status::ok);
  std::vector<uint8_t> blob;
  REQUIRE(t->local_blob(&blob) == Status::ok);
  REQUIRE(t->connect({blob, gpushmem::test::blob_relabelled(blob, 1)}, {false, true}) == Status::ok);

  using transport::AmoOp;
  const transport::RemoteRef w64{transport::Region::heap, 0}, w32{transport::Region::heap, 8};
  uint64_t f = 0;
  StderrCapture capture;  // UCX's own complaints land here, and must not appear
  CHECK(t->amo(0, 1, w64, AmoOp::add, 8, 5, 0, &f) == Status::ok);  // fetch-add
  CHECK(f == 0);
  CHECK(t->amo(0, 1, w64, AmoOp::add, 8, 2, 0, nullptr) == Status::ok);  // posted add
  CHECK(t->amo(0, 1, w64, AmoOp::load, 8, 0, 0, &f) == Status::ok);
  CHECK(f == 7);
  CHECK(t->amo(0, 1, w64, AmoOp::cswap, 8, 40, 7, &f) == Status::ok);  // matches: 7 -> 40
  CHECK(f == 7);
  CHECK(t->amo(0, 1, w64, AmoOp::cswap, 8, 99, 7, &f) == Status::ok);  // does not match
  CHECK(f == 40);
  CHECK(t->amo(0, 1, w64, AmoOp::or_, 8, 0x3, 0, &f) == Status::ok);  // fetch-or: 40 -> 43
  CHECK(f == 40);
  CHECK(t->amo(0, 1, w64, AmoOp::and_, 8, 0xf, 0, &f) == Status::ok);  // fetch-and: 43 -> 11
  CHECK(f == 43);
  CHECK(t->amo(0, 1, w64, AmoOp::xor_, 8, 0x1, 0, nullptr) == Status::ok);  // posted xor: 11 -> 10
  CHECK(t->amo(0, 1, w64, AmoOp::swap, 8, 123, 0, &f) == Status::ok);
  CHECK(f == 10);
  CHECK(t->amo(0, 1, w64, AmoOp::store, 8, 1u << 20, 0, nullptr) == Status::ok);
  uint32_t f32 = 0;
  CHECK(t->amo(0, 1, w32, AmoOp::add, 4, 0xffffffffu, 0, &f32) == Status::ok);  // 32-bit, wraps
  CHECK(f32 == 0);
  CHECK(t->amo(0, 1, w32, AmoOp::or_, 4, 0x10, 0, &f32) == Status::ok);
  CHECK(f32 == 0xffffffffu);
  CHECK(t->quiet(0) == Status::ok);
  CHECK(heap[0] == (1u << 20));
  uint32_t now32;
  std::memcpy(&now32, &heap[1], 4);
  CHECK(now32 == 0xffffffffu);
  const std::string text = capture.text();
  CHECK(text.find("UCX  ERROR") == std::string::npos);
  CHECK(text.find("cannot find remote protocol") == std::string::npos);
  t->finalize();
}

}  // namespace

TEST_CASE("ucx protocols: the transport reads which stack UCX_PROTO_ENABLE chose") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  if (api->major == 1 && api->minor < 13) {
    WARN("UCX " << api->major << "." << api->minor << " has no UCX_PROTO_ENABLE: nothing to check");
    return;
  }
  {
    ProtoEnable e("n");
    CHECK_FALSE(config_says_new(api));
  }
  {
    ProtoEnable e("y");
    CHECK(config_says_new(api));
  }
}

TEST_CASE("ucx protocols: every atomic works under the stack UCX uses by default") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  check_atomics(api);
}

TEST_CASE("ucx protocols: every atomic works under the classic stack") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  ProtoEnable e("n");
  check_atomics(api);
}

TEST_CASE("ucx protocols: every atomic works under the new stack (UCX 1.16 and later)") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  if (api->major == 1 && api->minor < 16) {
    WARN("UCX " << api->major << "." << api->minor << ": its new protocol stack is experimental, not checked");
    return;
  }
  ProtoEnable e("y");
  check_atomics(api);
}

// Which memory UCX reaches itself (ucp_context_query): host memory always; CUDA device memory only in a UCX built
// with CUDA (not Debian's), the condition for reaching GPU heaps one-sided.
TEST_CASE("ucx protocols: the transport says which memory types its UCX reaches") {
  const ucx::Api *api = load_ucx();
  if (api == nullptr) return;
  std::unique_ptr<ucx::UcxTransport> t = ucx::UcxTransport::create(api, gpushmem::test::self_peer_options(0x78));
  REQUIRE(t != nullptr);
  const std::string types = t->memory_types();
  CHECK(types.rfind("host", 0) == 0);  // host first: every UCX reaches it
  const bool cuda_listed = (", " + types + ",").find(", cuda,") != std::string::npos;
  CHECK(t->reaches_gpu_memory() == cuda_listed);
  t->finalize();
}
