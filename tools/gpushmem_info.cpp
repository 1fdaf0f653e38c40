// gpushmem-info: what this gpushmem was built with, which bootstrap plugins it finds, the GPUs it sees and
// how PEs on them reach each other, and every environment variable it reads with its value, default and help.
// `--markdown` prints the variable table that docs/env.md is generated from (target gpushmem-env-doc);
// `--peers`, run as the PEs of a job, prints how every PE reaches every other.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "boot/loader.hpp"
#include "env/env.hpp"
#include "gpu/gpu.hpp"
#include "gpushmem/config.h"
#include "ibgda/ibgda_runtime.hpp"
#include "ibgda/mlx5/mlx5_probe.hpp"
#include "net/net.hpp"
#include "proxy/proxy_runtime.hpp"
#include "shmem.h"
#if GPUSHMEM_BUILT_WITH_UCX
#include "ucx/ucx_api.hpp"
#endif

namespace {

using gpushmem::env::Var;

constexpr int kWrapColumn = 100;

const char *on_off(int v) {
  return v ? "ON" : "OFF";
}

std::string join(const std::vector<std::string> &items, const char *none) {
  if (items.empty()) return none;
  std::string out;
  for (const std::string &s : items) out += (out.empty() ? "" : " ") + s;
  return out;
}

// Prints `text` word-wrapped at kWrapColumn, each line starting with `indent`.
void print_wrapped(const char *indent, std::string_view text) {
  std::string line = indent;
  const size_t empty = line.size();
  while (!text.empty()) {
    size_t space = text.find(' ');
    std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (line.size() > empty && line.size() + 1 + word.size() > kWrapColumn) {
      std::printf("%s\n", line.c_str());
      line = indent;
    }
    if (line.size() > empty) line += ' ';
    line += word;
  }
  if (line.size() > empty) std::printf("%s\n", line.c_str());
}

// Where this gpushmem-info (and the library beside it) lives: <prefix>/bin of an installed tree (its
// <prefix>/include/shmem.h is there), or a build tree. The prefix configured at build time may differ
// (`cmake --install --prefix`, or a moved tree).
std::string where_installed() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return "unknown (/proc/self/exe unreadable)";
  std::string dir(exe, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));
  const size_t slash = dir.rfind('/');
  const std::string prefix = slash == std::string::npos ? std::string(".") : dir.substr(0, slash);
  struct stat st {};
  if (dir.size() >= 4 && dir.compare(dir.size() - 4, 4, "/bin") == 0 &&
      stat((prefix + "/include/shmem.h").c_str(), &st) == 0)
    return prefix;
  return "not installed: run from the build tree " + dir.substr(0, slash);
}

void print_build() {
  std::printf("gpushmem %s\n\nBuild\n", GPUSHMEM_VERSION_STRING);
  std::printf("  %-24s %s\n", "build type", GPUSHMEM_INFO_BUILD_TYPE);
  std::printf("  %-24s %s\n", "C++ compiler", GPUSHMEM_INFO_CXX_COMPILER);
  std::printf("  %-24s %s\n", "configured prefix", GPUSHMEM_INFO_INSTALL_PREFIX);
  std::printf("  %-24s %s\n", "installed at", where_installed().c_str());
  std::printf("  %-24s %s\n", "GPUSHMEM_WITH_MPI", on_off(GPUSHMEM_BUILT_WITH_MPI));
  std::printf("  %-24s %s\n", "GPUSHMEM_WITH_PMIX", on_off(GPUSHMEM_BUILT_WITH_PMIX));
  std::printf("  %-24s %s\n", "GPUSHMEM_WITH_CUDA", on_off(GPUSHMEM_BUILT_WITH_CUDA));
  if (GPUSHMEM_BUILT_WITH_CUDA) std::printf("  %-24s %s\n", "CUDA architectures", GPUSHMEM_INFO_CUDA_ARCHITECTURES);
  std::printf("  %-24s %s\n", "GPUSHMEM_WITH_IBVERBS", on_off(GPUSHMEM_BUILT_WITH_IBVERBS));
  std::printf("  %-24s %s\n", "GPUSHMEM_WITH_UCX", on_off(GPUSHMEM_BUILT_WITH_UCX));
  std::printf("  %-24s %s\n", "GPUSHMEM_ERROR_CHECKS", on_off(GPUSHMEM_BUILT_WITH_ERROR_CHECKS));
}

// The network transport: whether UCX loads here, which one.
void print_network(const gpushmem::env::Values &values) {
  std::printf("\nNetwork\n");
#if GPUSHMEM_BUILT_WITH_UCX
  std::string why;
  if (const gpushmem::ucx::Api *api = gpushmem::ucx::load(values.GPUSHMEM_UCX_LIBRARY, &why))
    std::printf("  %-24s UCX %u.%u.%u (%s)\n", "ucx", api->major, api->minor, api->release, api->path.c_str());
  else
    std::printf("  %-24s not usable: %s\n", "ucx", why.c_str());
#else
  std::printf("  %-24s not built (configure with UCX's headers installed: Debian's libucx-dev)\n", "ucx");
#endif
  std::printf("  %-24s %s\n", "peers",
              "run `mpirun -np N gpushmem-info --peers` to see how each PE reaches the others");
}

// --peers: run as a PE of a job; every PE prints, in PE order, the transport it uses for every other PE and why.
int print_peers() {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me) {
      std::printf("PE %d of %d (host %s)\n", me, n, gpushmem::net::host_of(me).c_str());
      for (int peer = 0; peer < n; ++peer)
        std::printf("  -> PE %-4d %s%s%s\n", peer, gpushmem::net::describe(peer).c_str(),
                    gpushmem::proxy_rt::device_path(peer).c_str(), gpushmem::ibgda_rt::device_path(peer).c_str());
      std::fflush(stdout);
    }
    shmem_barrier_all();
  }
  shmem_finalize();
  return 0;
}

void print_bootstrap() {
  namespace boot = gpushmem::boot;
  boot::Choice choice = boot::choose_bootstrap(nullptr);
  std::printf("\nBootstrap\n");
  std::printf("  %-24s %s\n", "plugin folder", boot::plugin_dir().c_str());
  std::printf("  %-24s %s\n", "plugins found", join(boot::available_plugins(), "none").c_str());
  std::printf("  %-24s %s\n", "launchers detected", join(boot::detect_launchers(), "none").c_str());
  std::printf("  %-24s %s (%s)\n", "shmem_init would use", choice.name.c_str(), choice.why.c_str());
}

// The transport a PE on GPU i uses to reach a PE on GPU j, as shmem_init would choose it.
const char *transport_cell(gpushmem::gpu::Link link) {
  return link == gpushmem::gpu::Link::unreachable ? "none yet" : gpushmem::gpu::link_name(link);
}

void print_gpus() {
  namespace gpu = gpushmem::gpu;
  gpu::NodeReport report = gpu::probe();
  std::printf("\nGPUs\n");
  if (!report.built_with_cuda) {
    std::printf("  %-24s %s\n", "GPUs", report.why_not.c_str());
    return;
  }
  std::printf("  %-24s %s\n", "CUDA runtime (built in)", report.runtime_version.c_str());
  std::printf("  %-24s %s\n", "CUDA driver", report.driver_version.c_str());
  if (!report.available) {
    std::printf("  %-24s none: %s\n", "GPUs", report.why_not.c_str());
    std::printf("  %-24s host heap\n", "shmem_malloc would use");
    return;
  }
  bool all_shareable = true;
  for (const gpu::DeviceInfo &d : report.devices) {
    char label[32];
    std::snprintf(label, sizeof label, "GPU %d", d.ordinal);
    std::printf("  %-24s %s, %s, %.1f GiB, sm_%d%d, VMM %s, POSIX fd export %s\n", label, d.name.c_str(),
                d.pci_bus_id.c_str(), static_cast<double>(d.memory_bytes) / (1024.0 * 1024.0 * 1024.0), d.cc_major,
                d.cc_minor, d.vmm ? "yes" : "no", d.posix_fd ? "yes" : "no");
    all_shareable &= d.vmm && d.posix_fd;
  }
  const gpushmem::env::Values &ev = gpushmem::env::get();
  const char *heap = ev.GPUSHMEM_DISABLE_CUDA               ? "host heap (GPUSHMEM_DISABLE_CUDA is set)"
                     : ev.GPUSHMEM_SYMMETRIC_HEAP == "host" ? "host heap (GPUSHMEM_SYMMETRIC_HEAP=host)"
                     : !all_shareable                       ? "host heap (a GPU cannot share VMM memory)"
                     : ev.GPUSHMEM_SYMMETRIC_HEAP == "gpu"  ? "GPU heap (device memory, CUDA VMM)"
                                                            : "GPU heap for programs with device code (a CUDA file "
                                                              "including <shmem.h>), host heap otherwise";
  std::printf("  %-24s %s\n", "shmem_malloc would use", heap);
  std::printf("\n  Transport a PE on GPU <row> uses to reach a PE on GPU <column>:\n  %-8s", "");
  for (const gpu::DeviceInfo &d : report.devices) std::printf(" GPU %-10d", d.ordinal);
  std::printf("\n");
  for (size_t i = 0; i < report.devices.size(); ++i) {
    std::printf("  GPU %-4d", report.devices[i].ordinal);
    for (size_t j = 0; j < report.devices.size(); ++j) std::printf(" %-14s", transport_cell(report.link[i][j]));
    std::printf("\n");
  }
  std::printf(
      "  (p2p-nvlink: peer access with native atomics; p2p-pcie: peer access without them; none yet: no\n"
      "   transport reaches that pair until a network/proxy transport exists)\n");
}

void print_env() {
  std::printf("\nEnvironment variables (* = value differs from the default)\n");
  for (const Var &v : gpushmem::env::table()) {
    std::string value = gpushmem::env::value_text(v);
    bool changed = value != v.default_text;
    std::printf("%c %s = %s\n", changed ? '*' : ' ', v.name, value.empty() ? "(empty)" : value.c_str());
    std::printf("      %s, default %s, %s\n", gpushmem::env::type_name(v.type),
                *v.default_text != '\0' ? v.default_text : "(empty)", v.category);
    print_wrapped("      ", v.help);
  }
}

// Markdown table cells cannot hold '|' or line breaks, and <word> would be read as an HTML tag.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|' || c == '<') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// The text of docs/env.md. Depends only on the table (never on this process's environment or build
// options), so the checked-in copy can be compared against it on any machine.
void print_markdown() {
  std::printf(
      "# Environment variables\n"
      "\n"
      "<!-- Generated by `gpushmem-info --markdown` from runtime/env/env_table.def: do not edit. Change the\n"
      "     table, then run `cmake --build build --target gpushmem-env-doc`. -->\n"
      "\n"
      "Every environment variable libgpushmem reads. `SHMEM_*` names are the OpenSHMEM specification's,\n"
      "`GPUSHMEM_*` names are this implementation's. A malformed value is reported at `shmem_init` with the\n"
      "variable, the text read and what was expected; a `GPUSHMEM_*` variable that is not in this list (a\n"
      "misspelling) is named in a warning by PE 0, with the variable it probably meant. `gpushmem-info --env`\n"
      "prints the value each variable has in the current environment.\n"
      "\n"
      "Types: **flag** is on when the variable is set at all, whatever its value (as the specification\n"
      "defines `SHMEM_DEBUG`, `SHMEM_INFO`, `SHMEM_VERSION`); **bool** takes 0/1, yes/no, true/false or\n"
      "on/off; **int** a decimal integer; **size** a number of bytes, possibly fractional, with an optional\n"
      "k, m, g or t suffix (powers of 1024: `512M`, `1.5G`); **string** any text. The specification's\n"
      "variables also accept their deprecated `SMA_*` spelling; the `SHMEM_*` name wins when both are set.\n"
      "\n"
      "The bootstrap plugins also read their own launcher's variables (for example `OMPI_COMM_WORLD_SIZE`,\n"
      "`PMIX_RANK`); those are set by the launcher, not by users, and are not listed here.\n"
      "\n"
      "| Variable | Type | Default | Category | Description |\n"
      "|---|---|---|---|---|\n");
  for (const Var &v : gpushmem::env::table()) {
    std::string def = *v.default_text != '\0' ? "`" + cell(v.default_text) + "`" : "(empty)";
    std::printf("| `%s` | %s | %s | %s | %s |\n", v.name, gpushmem::env::type_name(v.type), def.c_str(), v.category,
                cell(v.help).c_str());
  }
}

// --ibgda: would GPU-posted RDMA (IBGDA) work on this host? Each requirement with what was found and what to
// change; the last line says what gpushmem does with network peers here.
int print_ibgda() {
  gpushmem::env::Values values;
  (void)gpushmem::env::load(&values);
  int dma_buf = -1;
  const gpushmem::gpu::NodeReport gpus = gpushmem::gpu::probe();
  if (gpus.available && !gpus.devices.empty()) dma_buf = gpus.devices.front().dma_buf ? 1 : 0;
  namespace nic = gpushmem::ibgda::mlx5nic;
  const nic::Probe p = nic::probe(values.GPUSHMEM_HCA, dma_buf);
  std::printf("IBGDA requirements on this host\n");
  for (const nic::Check &c : p.checks) {
    std::printf("  %-36s %-7s %s\n", c.name.c_str(), nic::result_name(c.result), c.detail.c_str());
    if (!c.fix.empty()) std::printf("  %-36s %-7s to change: %s\n", "", "", c.fix.c_str());
  }
  std::printf("verdict: %s\n", p.verdict.c_str());
  return 0;
}

void usage(FILE *to) {
  std::fprintf(to,
               "usage: gpushmem-info [--env | --markdown | --peers | --ibgda | --help]\n"
               "  (no option)  version, build options, bootstrap plugins, GPUs and environment variables\n"
               "  --env        only the environment variables, with value, default, type and help\n"
               "  --markdown   the environment variables as the Markdown table of docs/env.md\n"
               "  --peers      as one PE of a job (mpirun -np N gpushmem-info --peers): the transport every PE uses\n"
               "               to reach every other, and why\n"
               "  --ibgda      whether GPU-posted RDMA (IBGDA) would work here: each requirement, what was found and\n"
               "               what to change\n"
               "  --help       this text\n");
}

}  // namespace

int main(int argc, char **argv) {
  bool env_only = false;
  bool markdown = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--env") == 0) {
      env_only = true;
    } else if (std::strcmp(argv[i], "--markdown") == 0) {
      markdown = true;
    } else if (std::strcmp(argv[i], "--peers") == 0) {
      return print_peers();
    } else if (std::strcmp(argv[i], "--ibgda") == 0) {
      return print_ibgda();
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "gpushmem-info: unknown argument '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (markdown) {
    print_markdown();
    return 0;
  }

  // Parsing reports each malformed variable (name, text, what was expected) through the logger.
  gpushmem::env::Values values;
  bool malformed = gpushmem::env::load(&values) != gpushmem::Status::ok;

  if (!env_only) {
    print_build();
    print_bootstrap();
    print_network(values);
    print_gpus();
  }
  print_env();
  if (malformed) {
    std::fprintf(stderr,
                 "gpushmem-info: some variables above are malformed (see the errors): shmem_init would "
                 "fail until they are fixed\n");
    return 1;
  }
  return 0;
}
