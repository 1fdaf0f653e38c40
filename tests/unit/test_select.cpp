// choose_bootstrap: an explicit request beats GPUSHMEM_BOOTSTRAP, which beats the launcher detected from
// the environment, which beats "single"; a detected launcher whose plugin is missing is insisted on.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "boot/loader.hpp"
#include "catch.hpp"
#include "env/env.hpp"
#include "stderr_capture.hpp"

namespace boot = gpushmem::boot;
namespace env = gpushmem::env;
using gpushmem::test::ScopedEnv;

namespace {

// Every variable detection looks at, cleared for the test's scope so the result does not depend on how
// the test was started (for example from inside an mpirun job).
const char *const kLauncherVars[] = {
    "GPUSHMEMRUN_UNIQUEID", "PMIX_RANK",         "PMIX_SERVER_URI4",     "PMIX_SERVER_URI3", "PMIX_SERVER_URI2",
    "PMIX_SERVER_URI21",    "PMIX_SERVER_URI41", "OMPI_COMM_WORLD_SIZE", "PMI_RANK",         "PMI_SIZE",
    "MPI_LOCALNRANKS",      "GPUSHMEM_BOOTSTRAP"};

// A plugin folder holding empty files named like the given plugins (selection only lists names).
class FakePluginDir {
 public:
  explicit FakePluginDir(const std::vector<std::string> &names) {
    char tmpl[] = "/tmp/gpushmem_unit_select.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir_ = tmpl;
    for (const auto &n : names) touch("libgpushmem_bootstrap_" + n + ".so");
    // Names that are not plugins and must be ignored.
    touch("libgpushmem_bootstrap_.so");
    touch("libgpushmem_bootstrap_x.so.1");
    touch("README");
    env_ = std::make_unique<ScopedEnv>("GPUSHMEM_BOOTSTRAP_PLUGIN_DIR", dir_.c_str());
    (void)env::load_global();
  }
  ~FakePluginDir() {
    for (const auto &f : files_) unlink(f.c_str());
    rmdir(dir_.c_str());
    env_.reset();
    (void)env::load_global();
  }
  const std::string &path() const { return dir_; }

 private:
  void touch(const std::string &name) {
    std::string f = dir_ + "/" + name;
    std::FILE *fp = std::fopen(f.c_str(), "w");
    REQUIRE(fp != nullptr);
    std::fclose(fp);
    files_.push_back(f);
  }
  std::string dir_;
  std::vector<std::string> files_;
  std::unique_ptr<ScopedEnv> env_;
};

struct CleanLauncherEnv {
  CleanLauncherEnv() {
    for (const char *v : kLauncherVars) saved.push_back(std::make_unique<ScopedEnv>(v, nullptr));
    (void)env::load_global();
  }
  ~CleanLauncherEnv() {
    saved.clear();
    (void)env::load_global();
  }
  // setenv + reload, as shmem_init does before choosing.
  void set(const char *name, const char *value) {
    setenv(name, value, 1);
    (void)env::load_global();
  }
  std::vector<std::unique_ptr<ScopedEnv>> saved;
};

}  // namespace

TEST_CASE("select: plugin folder listing and paths", "[select]") {
  CleanLauncherEnv clean;
  FakePluginDir dir({"tcp", "mpi", "single", "pmix"});
  CHECK(boot::plugin_dir() == dir.path());
  CHECK(boot::plugin_path("mpi") == dir.path() + "/libgpushmem_bootstrap_mpi.so");
  CHECK(boot::available_plugins() == std::vector<std::string>{"mpi", "pmix", "single", "tcp"});
}

TEST_CASE("select: without a plugin folder setting, the build tree's plugins are found", "[select]") {
  CleanLauncherEnv clean;
  ScopedEnv unset("GPUSHMEM_BOOTSTRAP_PLUGIN_DIR", nullptr);
  (void)env::load_global();
  std::vector<std::string> have = boot::available_plugins();
  INFO("plugin_dir() = " << boot::plugin_dir());
  CHECK(std::find(have.begin(), have.end(), "single") != have.end());
}

TEST_CASE("select: precedence of request, variable, detection and default", "[select]") {
  CleanLauncherEnv clean;
  FakePluginDir dir({"mpi", "pmix", "single", "tcp"});

  SECTION("nothing set: single, not an explicit choice") {
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "single");
    CHECK_FALSE(c.explicit_choice);
    CHECK(boot::detect_launchers().empty());
  }
  SECTION("an empty request counts as none") {
    CHECK(boot::choose_bootstrap("").name == "single");
  }
  SECTION("the request wins over the variable and the launcher") {
    clean.set("GPUSHMEM_BOOTSTRAP", "mpi");
    clean.set("GPUSHMEMRUN_UNIQUEID", "127.0.0.1:5000");
    boot::Choice c = boot::choose_bootstrap("pmix");
    CHECK(c.name == "pmix");
    CHECK(c.explicit_choice);
    CHECK(c.why.find("shmemx_init_attr") != std::string::npos);
  }
  SECTION("the variable wins over the launcher") {
    clean.set("OMPI_COMM_WORLD_SIZE", "4");
    clean.set("GPUSHMEM_BOOTSTRAP", "tcp");
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "tcp");
    CHECK(c.explicit_choice);
    CHECK(c.why == "GPUSHMEM_BOOTSTRAP");
  }
  SECTION("an unknown name in the variable is passed on for init to reject") {
    clean.set("GPUSHMEM_BOOTSTRAP", "nonsense");
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "nonsense");
    CHECK(c.explicit_choice);
  }
  SECTION("Open MPI's environment selects mpi") {
    clean.set("OMPI_COMM_WORLD_SIZE", "2");
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "mpi");
    CHECK_FALSE(c.explicit_choice);
  }
  SECTION("MPICH's PMI variables select mpi") {
    clean.set("PMI_RANK", "0");
    CHECK(boot::choose_bootstrap(nullptr).name == "mpi");
  }
  SECTION("a PMIx server is preferred over the MPI environment") {
    clean.set("OMPI_COMM_WORLD_SIZE", "2");
    clean.set("PMIX_RANK", "0");
    clean.set("PMIX_SERVER_URI4", "pmix-server.1;tcp4://127.0.0.1:1");
    CHECK(boot::detect_launchers() == std::vector<std::string>{"pmix", "mpi"});
    CHECK(boot::choose_bootstrap(nullptr).name == "pmix");
  }
  SECTION("PMIX_RANK without a server address is not a PMIx launch") {
    clean.set("PMIX_RANK", "0");
    CHECK(boot::detect_launchers().empty());
    CHECK(boot::choose_bootstrap(nullptr).name == "single");
  }
  SECTION("gpushmemrun is preferred over everything else detected") {
    clean.set("OMPI_COMM_WORLD_SIZE", "2");
    clean.set("PMIX_RANK", "0");
    clean.set("PMIX_SERVER_URI41", "x");
    clean.set("GPUSHMEMRUN_UNIQUEID", "127.0.0.1:5000");
    CHECK(boot::detect_launchers().front() == "tcp");
    CHECK(boot::choose_bootstrap(nullptr).name == "tcp");
  }
}

TEST_CASE("select: a detected launcher whose plugin is missing", "[select]") {
  CleanLauncherEnv clean;
  SECTION("falls through to the next detected launcher that has a plugin") {
    FakePluginDir dir({"mpi", "single"});
    clean.set("OMPI_COMM_WORLD_SIZE", "2");
    clean.set("PMIX_RANK", "0");
    clean.set("PMIX_SERVER_URI3", "x");
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "mpi");
    CHECK_FALSE(c.explicit_choice);
  }
  SECTION("is insisted on when none has a plugin, rather than running N unrelated single PEs") {
    FakePluginDir dir({"single"});
    clean.set("OMPI_COMM_WORLD_SIZE", "2");
    boot::Choice c = boot::choose_bootstrap(nullptr);
    CHECK(c.name == "mpi");
    CHECK(c.explicit_choice);
  }
}
