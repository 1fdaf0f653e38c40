// The ucx transport's endpoint blob: what a PE publishes (worker address, regions, rkeys) is accepted back,
// and a blob of another job, version or PE, or a cut one, is refused naming the PE; operations outside the
// peer's registered region are refused before they reach UCX. Needs UCX at run time (skipped without it).
#include <cstddef>
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

struct Fixture {
  const ucx::Api *api = nullptr;
  std::unique_ptr<ucx::UcxTransport> t;
  std::vector<char> region = std::vector<char>(1 << 16);
  std::vector<uint8_t> blob;

  Fixture() {
    setenv("UCX_NET_DEVICES", "lo", 0);  // loopback only
    std::string why;
    api = ucx::load("libucp.so.0", &why);
    if (api == nullptr) return;
    ucx::Options o = gpushmem::test::self_peer_options(0x1234);
    t = ucx::UcxTransport::create(api, o);
    REQUIRE(t != nullptr);
    REQUIRE(t->register_region(transport::Region::heap, region.data(), region.size()) == Status::ok);
    REQUIRE(t->local_blob(&blob) == Status::ok);
  }
  // PE 1's blob: this PE's own, relabelled, so connect() reaches this process's worker.
  std::vector<uint8_t> as_pe1() const { return gpushmem::test::blob_relabelled(blob, 1); }
  Status connect_with(const std::vector<uint8_t> &pe1, std::string *log) {
    StderrCapture capture;
    Status s = t->connect({blob, pe1}, {false, true});
    *log = capture.text();
    return s;
  }
};

ucx::BlobHeader header_of(const std::vector<uint8_t> &b) {
  ucx::BlobHeader h;
  std::memcpy(&h, b.data(), sizeof h);
  return h;
}

}  // namespace

TEST_CASE("ucx blob: the header says what the blob holds") {
  Fixture f;
  if (f.api == nullptr) {
    WARN("UCX is not installed here: nothing to check");
    return;
  }
  const ucx::BlobHeader h = header_of(f.blob);
  CHECK(h.magic == ucx::kBlobMagic);
  CHECK(h.version == ucx::kBlobVersion);
  CHECK(h.pe == 0);
  CHECK(h.job_key == 0x1234);
  CHECK(h.base[0] == reinterpret_cast<uintptr_t>(f.region.data()));
  CHECK(h.size[0] == f.region.size());
  CHECK(h.size[1] == 0);
  CHECK(h.rkey_bytes[0] > 0);
  CHECK(h.rma_bytes[0] == 0);  // a region UCX reaches whole has no one-sided part to name
  CHECK(f.blob.size() == sizeof h + h.address_bytes + h.rkey_bytes[0] + h.rkey_bytes[1] + h.rkey_bytes[2]);
}

TEST_CASE("ucx blob: a matching blob connects") {
  Fixture f;
  if (f.api == nullptr) {
    WARN("UCX is not installed here: nothing to check");
    return;
  }
  std::string log;
  REQUIRE(f.connect_with(f.as_pe1(), &log) == Status::ok);
  CHECK(f.t->reaches(1));
  CHECK_FALSE(f.t->reaches(0));
  // Outside PE 1's heap (its registered size): refused before UCX sees it.
  char buf[16] = {};
  StderrCapture capture;
  CHECK(f.t->put(0, 1, {transport::Region::heap, f.region.size() - 8}, buf, 16, transport::Completion::local,
                 nullptr) == Status::invalid_argument);
  CHECK(f.t->get(0, 1, buf, {transport::Region::globals, 0}, 8) == Status::invalid_argument);
  const std::string text = capture.text();
  CHECK(text.find("outside it") != std::string::npos);
  f.t->finalize();
}

TEST_CASE("ucx blob: a blob that does not belong to this job is refused naming the PE") {
  Fixture f;
  if (f.api == nullptr) {
    WARN("UCX is not installed here: nothing to check");
    return;
  }
  struct Case {
    const char *what;
    void (*spoil)(std::vector<uint8_t> &);
    const char *expect;
  };
  const Case cases[] = {
      {"magic", [](std::vector<uint8_t> &b) { b[0] ^= 0xff; }, "it is not a gpushmem ucx endpoint blob"},
      {"version", [](std::vector<uint8_t> &b) { b[4] ^= 0x7; }, "it comes from another version of gpushmem"},
      {"pe", [](std::vector<uint8_t> &b) { b[8] = 5; }, "it names another PE"},
      {"job", [](std::vector<uint8_t> &b) { b[16] ^= 0x1; }, "it belongs to another job"},
      {"cut", [](std::vector<uint8_t> &b) { b.resize(b.size() - 3); }, "its lengths do not add up"},
      {"short", [](std::vector<uint8_t> &b) { b.resize(10); }, "it is shorter than a ucx endpoint blob"},
      // A one-sided part of the heap, which is no agent region here.
      {"one-sided",
       [](std::vector<uint8_t> &b) {
         const uint64_t bytes = 4096;
         std::memcpy(b.data() + offsetof(ucx::BlobHeader, rma_bytes), &bytes, sizeof bytes);
       },
       "it names a one-sided part of a region that is not an agent region"},
  };
  for (const Case &c : cases) {
    INFO("spoilt: " << c.what);
    std::vector<uint8_t> b = f.as_pe1();
    c.spoil(b);
    std::string log;
    CHECK(f.connect_with(b, &log) == Status::invalid_argument);
    CHECK(log.find("the UCX address of PE 1 does not match this job") != std::string::npos);
    CHECK(log.find(c.expect) != std::string::npos);
    CHECK_FALSE(f.t->reaches(1));
  }
}
