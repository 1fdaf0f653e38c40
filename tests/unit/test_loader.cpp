// The bootstrap plugin loader: the real `single` plugin loads and works; broken, mismatched, failing and
// missing plugins each give an error Status with a message naming the file and the cause (never a crash).
#include <string>

#include "boot/loader.hpp"
#include "catch.hpp"
#include "stderr_capture.hpp"

namespace boot = gpushmem::boot;
using gpushmem::Status;
using gpushmem::test::StderrCapture;

namespace {

void ignore_log(int, const char *, const char *) {}

gpushmem_bootstrap_args_t default_args() {
  gpushmem_bootstrap_args_t a{};
  a.abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  a.struct_size = sizeof a;
  a.log = ignore_log;
  a.rank = -1;
  a.listen_fd = -1;
  return a;
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Loads `path` expecting failure; returns the log it wrote.
std::string expect_load_failure(const std::string &path, int *plugin_rc = nullptr) {
  boot::Plugin p;
  StderrCapture capture;
  Status s = boot::load_plugin(path, default_args(), &p, plugin_rc);
  std::string log = capture.text();
  INFO("load_plugin(" << path << ")");
  CHECK(s == Status::bootstrap_error);
  CHECK(p.handle == nullptr);
  CHECK(p.table.allgather == nullptr);
  CHECK(contains(log, path));  // every message names the file
  return log;
}

}  // namespace

TEST_CASE("loader: the real single plugin loads and its collectives work", "[loader]") {
  boot::Plugin p;
  int rc = 12345;
  REQUIRE(boot::load_plugin(GPUSHMEM_TEST_SINGLE_PLUGIN, default_args(), &p, &rc) == Status::ok);
  CHECK(rc == GPUSHMEM_BOOTSTRAP_OK);
  CHECK(p.handle != nullptr);
  CHECK(p.path == GPUSHMEM_TEST_SINGLE_PLUGIN);
  gpushmem_bootstrap_t *b = &p.table;
  CHECK(std::string(b->name) == "single");
  CHECK(b->rank == 0);
  CHECK(b->size == 1);
  CHECK(b->abi_version == GPUSHMEM_BOOTSTRAP_ABI_VERSION);
  const char in[5] = "abcd";
  char out[5] = {};
  CHECK(b->allgather(b, in, out, 4) == GPUSHMEM_BOOTSTRAP_OK);
  CHECK(std::string(out) == "abcd");
  char out2[5] = {};
  CHECK(b->alltoall(b, in, out2, 4) == GPUSHMEM_BOOTSTRAP_OK);
  CHECK(std::string(out2) == "abcd");
  char buf[4] = {'x', 'y', 'z', 0};
  CHECK(b->bcast(b, buf, 3, 0) == GPUSHMEM_BOOTSTRAP_OK);
  CHECK(std::string(buf) == "xyz");
  CHECK(b->barrier(b) == GPUSHMEM_BOOTSTRAP_OK);
  CHECK(b->finalize(b) == GPUSHMEM_BOOTSTRAP_OK);
  boot::unload_plugin(&p);
  CHECK(p.handle == nullptr);
}

TEST_CASE("loader: a missing file is an error that says so", "[loader]") {
  std::string log = expect_load_failure("/nonexistent/libgpushmem_bootstrap_nothing.so");
  CHECK(contains(log, "not found"));
  CHECK(contains(log, "GPUSHMEM_BOOTSTRAP_PLUGIN_DIR"));
}

TEST_CASE("loader: a file that is not a shared object is an error", "[loader]") {
  // This source file exists but dlopen cannot load it.
  std::string log = expect_load_failure(__FILE__);
  CHECK(contains(log, "cannot load"));
}

TEST_CASE("loader: a library without the init symbol is an error naming the symbol", "[loader]") {
  std::string log = expect_load_failure(GPUSHMEM_TEST_PLUGIN_NO_SYMBOL);
  CHECK(contains(log, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL));
}

TEST_CASE("loader: another ABI version is refused", "[loader]") {
  std::string log = expect_load_failure(GPUSHMEM_TEST_PLUGIN_ABI_MISMATCH);
  CHECK(contains(log, "ABI version 999"));
  CHECK(contains(log, "rebuild"));
}

TEST_CASE("loader: a table smaller than this ABI's is refused", "[loader]") {
  std::string log = expect_load_failure(GPUSHMEM_TEST_PLUGIN_SHORT_TABLE);
  CHECK(contains(log, "struct size 16"));
}

TEST_CASE("loader: a plugin whose init fails returns its code", "[loader]") {
  int rc = 0;
  std::string log = expect_load_failure(GPUSHMEM_TEST_PLUGIN_ENOLAUNCHER, &rc);
  CHECK(rc == GPUSHMEM_BOOTSTRAP_ENOLAUNCHER);
  CHECK(contains(log, "launcher is not present"));

  SECTION("quietly while probing") {
    boot::Plugin p;
    StderrCapture capture;
    Status s = boot::load_plugin(GPUSHMEM_TEST_PLUGIN_ENOLAUNCHER, default_args(), &p, &rc, true);
    CHECK(s == Status::bootstrap_error);
    CHECK(rc == GPUSHMEM_BOOTSTRAP_ENOLAUNCHER);
    CHECK(capture.text().empty());
  }
}

TEST_CASE("loader: a rank outside the job is refused", "[loader]") {
  std::string log = expect_load_failure(GPUSHMEM_TEST_PLUGIN_BAD_RANK);
  CHECK(contains(log, "rank 2 of size 2"));
}

TEST_CASE("loader: entries a plugin leaves empty answer ENOTSUP", "[loader]") {
  boot::Plugin p;
  REQUIRE(boot::load_plugin(GPUSHMEM_TEST_PLUGIN_MINIMAL, default_args(), &p) == Status::ok);
  gpushmem_bootstrap_t *b = &p.table;
  char buf[8] = {};
  REQUIRE(b->allgather != nullptr);
  REQUIRE(b->alltoall != nullptr);
  REQUIRE(b->bcast != nullptr);
  REQUIRE(b->barrier != nullptr);
  REQUIRE(b->finalize != nullptr);
  REQUIRE(b->abort != nullptr);
  CHECK(b->allgather(b, buf, buf, 1) == GPUSHMEM_BOOTSTRAP_ENOTSUP);
  CHECK(b->alltoall(b, buf, buf, 1) == GPUSHMEM_BOOTSTRAP_ENOTSUP);
  CHECK(b->bcast(b, buf, 1, 0) == GPUSHMEM_BOOTSTRAP_ENOTSUP);
  CHECK(b->barrier(b) == GPUSHMEM_BOOTSTRAP_ENOTSUP);
  CHECK(b->finalize(b) == GPUSHMEM_BOOTSTRAP_ENOTSUP);
  boot::unload_plugin(&p);
}
