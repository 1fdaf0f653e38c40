// shmem_init / shmem_init_thread / shmemx_init_attr / shmem_finalize / shmem_global_exit.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "api/api_common.hpp"
#include "boot/uniqueid.hpp"
#include "ctx/ctx_table.hpp"
#include "env/env.hpp"
#include "gpu/gpu.hpp"
#include "ibgda/ibgda_runtime.hpp"
#include "net/net.hpp"
#include "proxy/proxy_runtime.hpp"
#include "shmemx.h"
#include "sync/barrier.hpp"
#include "sync/wait.hpp"
#include "team/team.hpp"

namespace gpushmem {
namespace {

void plugin_log(int level, const char *plugin, const char *message) {
  log::Level l = level == GPUSHMEM_BOOTSTRAP_LOG_ERROR  ? log::Level::error
                 : level == GPUSHMEM_BOOTSTRAP_LOG_WARN ? log::Level::warn
                                                        : log::Level::info;
  GPUSHMEM_LOG(l, log::Subsys::bootstrap, "[%s bootstrap] %s", plugin, message);
}

// Init failures end the process: there may be no job-wide way to tell the others yet, and the launcher
// notices a PE that exits non-zero.
[[noreturn]] void init_failed(const char *call, const char *what) {
  GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: %s", call, what);
  Runtime &r = rt();
  if (r.bootstrap.table.abort != nullptr) r.bootstrap.table.abort(&r.bootstrap.table, 1, what);
  std::fflush(nullptr);
  _exit(1);
}

// At exit without shmem_finalize. Status 0 (returning from main, exit(0)): the library finalizes, as the
// specification says start_pes does and as established implementations do after shmem_init too (every PE
// that ends this way meets the others in the finalizing barrier). Any other status: the PE ends on purpose
// but abnormally, and its local peers are told so (the job then ends, as when it crashes). A child of fork()
// that exits has the PE's sockets too, but does not speak for the PE.
void exit_handler(int status, void *) {
  Runtime &r = rt();
  if (!running() || getpid() != r.pid) return;
  if (status == 0) {
    GPUSHMEM_LOG_INFO(log::Subsys::init, "PE %d exits without shmem_finalize: finalizing now", r.my_pe);
    shmem_finalize();
    return;
  }
  r.channel.say_goodbye(false);
}

// Collective over the node: maps the globals of the node's PEs when every one of them runs the same
// executable with symmetric globals (heap/data_segment.hpp; `all`: every PE's fingerprint); otherwise
// each PE keeps only its own (local waits and updates on them still work) and says why once.
void share_globals(const char *call, const std::vector<uint64_t> &all) {
  Runtime &r = rt();
  const uint64_t mine = r.data.fingerprint();
  bool everywhere = mine != 0;
  for (uint64_t theirs : all) everywhere = everywhere && theirs == mine;
  r.data_everywhere = everywhere;
  bool same = mine != 0 && net::p2p_allowed();
  for (int pe : r.topology.local_pes) same = same && all[pe] == mine;
  if (!same) {
    if (mine != 0) r.p2p.set_base(transport::Region::globals, r.my_pe, r.data.start(), r.data.size());
    if (r.topology.local_rank == 0 && r.topology.local_size > 1)
      GPUSHMEM_LOG_INFO(log::Subsys::heap,
                        "%s: global and static variables are not symmetric: the node's PEs run different "
                        "executables, or GPUSHMEM_SYMMETRIC_DATA=0 on some of them",
                        call);
    return;
  }
  // Same fingerprint: same executable, same size.
  if (r.p2p.map_node(transport::Region::globals, r.channel, r.topology, r.data.fd(), r.data.start(), r.data.size(),
                     MAP_SHARED) != Status::ok)
    init_failed(call, "cannot map the global variables of the node's other PEs");
  r.data_shared = true;
}

void print_banner() {
  const env::Values &e = env::get();
  if (e.SHMEM_VERSION || e.SHMEM_INFO)
    std::printf("gpushmem %s (OpenSHMEM %d.%d), bootstrap %s, %d PEs\n", GPUSHMEM_VERSION_STRING, SHMEM_MAJOR_VERSION,
                SHMEM_MINOR_VERSION, rt().bootstrap.table.name, rt().n_pes);
  if (e.SHMEM_INFO) {
    for (const env::Var &v : env::table())
      std::printf("  %-30s = %-10s  %s\n", v.name, env::value_text(v).c_str(), v.help);
    std::printf("  how PE %d reaches each PE:\n", rt().my_pe);
    for (int pe = 0; pe < rt().n_pes; ++pe)
      std::printf("    PE %-4d %s%s%s\n", pe, net::describe(pe).c_str(), proxy_rt::device_path(pe).c_str(),
                  ibgda_rt::device_path(pe).c_str());
  }
  std::fflush(stdout);
}

void start(const char *call, int requested, int *provided, const shmemx_init_attr_t *attr) {
  static std::mutex init_mutex;
  std::lock_guard<std::mutex> lock(init_mutex);
  Runtime &r = rt();
  int phase = r.phase.load();
  if (phase == static_cast<int>(Phase::running))
    api::fail(call, "the library is already initialised (shmem_init or shmem_init_thread was called before)");
  if (phase == static_cast<int>(Phase::finalized)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::init,
                       "%s: called after shmem_finalize; OpenSHMEM 1.5 cannot be initialised "
                       "again",
                       call);
    std::fflush(nullptr);
    _exit(1);
  }
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
    GPUSHMEM_LOG_ERROR(log::Subsys::init, "%s: requested=%d is not a thread level (SHMEM_THREAD_SINGLE..MULTIPLE)",
                       call, requested);
    std::fflush(nullptr);
    _exit(1);
  }

  Status env_status = env::load_global();
  const env::Values &e = env::get();
  log::configure(e.SHMEM_DEBUG ? "DEBUG" : e.GPUSHMEM_DEBUG.c_str(), e.GPUSHMEM_DEBUG_SUBSYS.c_str());
  if (env_status != Status::ok) init_failed(call, "malformed environment variable (see above)");
  if (const std::string range = env::check_ranges(e); !range.empty()) init_failed(call, range.c_str());
  r.error_checks = GPUSHMEM_BUILT_WITH_ERROR_CHECKS && e.GPUSHMEM_ERROR_CHECKS;
  r.test_coll_rma = e.GPUSHMEM_TEST_COLL_RMA;
  if (sync::configure_waits(e.GPUSHMEM_WAIT_POLICY) != Status::ok)
    init_failed(call, "malformed environment variable (see above)");
  // Before the bootstrap starts threads: the globals' pages are copied, then replaced.
  if (e.GPUSHMEM_SYMMETRIC_DATA) r.data.create();

  // Bootstrap.
  const char *requested_boot = attr != nullptr ? attr->bootstrap : nullptr;
  if ((requested_boot == nullptr || *requested_boot == '\0') && attr != nullptr) {
    if (attr->uniqueid != nullptr)
      requested_boot = "tcp";
    else if (attr->mpi_comm != nullptr)
      requested_boot = "mpi";
  }
  boot::Choice choice = boot::choose_bootstrap(requested_boot);
  GPUSHMEM_LOG_INFO(log::Subsys::bootstrap, "%s: bootstrap '%s' (%s)", call, choice.name.c_str(), choice.why.c_str());
  const std::vector<std::string> known = {"mpi", "pmix", "tcp", "single"};
  bool is_known = false;
  for (const auto &k : known) is_known |= k == choice.name;
  if (!is_known && choice.explicit_choice) {
    std::string have;
    for (const auto &p : boot::available_plugins()) have += (have.empty() ? "" : ", ") + p;
    char why[512];
    std::snprintf(why, sizeof why, "unknown bootstrap '%s' (from %s); plugins installed: %s", choice.name.c_str(),
                  choice.why.c_str(), have.empty() ? "none" : have.c_str());
    init_failed(call, why);
  }
  // The single bootstrap under a launcher that started several processes: each would run as a job of its
  // own, computing the wrong thing with exit status 0.
  std::string size_source;
  if (const long started = boot::launcher_size(&size_source); choice.name == "single" && started > 1) {
    char why[512];
    std::snprintf(why, sizeof why,
                  "the 'single' bootstrap (from %s) makes a job of one PE, but the launcher started %ld processes "
                  "(%s): each would run alone. Unset GPUSHMEM_BOOTSTRAP or choose the launcher's (mpi, pmix, tcp)",
                  choice.why.c_str(), started, size_source.c_str());
    init_failed(call, why);
  }
  gpushmem_bootstrap_args_t args{};
  args.abi_version = GPUSHMEM_BOOTSTRAP_ABI_VERSION;
  args.struct_size = sizeof args;
  args.log = plugin_log;
  args.mpi_comm = attr != nullptr ? attr->mpi_comm : nullptr;
  args.rank = -1;
  args.size = 0;
  args.unique_id = nullptr;
  args.listen_fd = -1;
  args.timeout_s = static_cast<int32_t>(e.GPUSHMEM_BOOTSTRAP_TIMEOUT);
  if (attr != nullptr && attr->uniqueid != nullptr) {
    if (attr->size < 1 || attr->rank < 0 || attr->rank >= attr->size) {
      char why[256];
      std::snprintf(why, sizeof why, "attr->rank=%d / attr->size=%d do not describe a rank of a job", attr->rank,
                    attr->size);
      init_failed(call, why);
    }
    args.rank = attr->rank;
    args.size = attr->size;
    args.unique_id = attr->uniqueid->internal;
    args.listen_fd = boot::take_listen_fd(attr->uniqueid->internal);
  }
  if (boot::load_plugin(boot::plugin_path(choice.name), args, &r.bootstrap) != Status::ok)
    init_failed(call, ("cannot start the '" + choice.name + "' bootstrap (" + choice.why + ")").c_str());
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  r.my_pe = b->rank;
  r.n_pes = b->size;
  log::set_pe(r.my_pe);

  // Every PE must size its heap alike: offsets are only symmetric if the allocators agree. The same
  // allgather carries each PE's globals fingerprint (share_globals).
  struct Shape {
    uint64_t heap_bytes, globals, net_scratch;
  };
  const uint64_t heap_bytes = e.SHMEM_SYMMETRIC_SIZE;
  const Shape mine{heap_bytes, r.data.fingerprint(), e.GPUSHMEM_COLL_NET_SCRATCH};
  std::vector<Shape> shapes(r.n_pes);
  if (b->allgather(b, &mine, shapes.data(), sizeof mine) != GPUSHMEM_BOOTSTRAP_OK)
    init_failed(call, "bootstrap allgather failed");
  std::vector<uint64_t> globals(r.n_pes);
  for (int pe = 0; pe < r.n_pes; ++pe) {
    globals[pe] = shapes[pe].globals;
    const uint64_t theirs = shapes[pe].heap_bytes;
    if (theirs != heap_bytes) {
      char why[256];
      std::snprintf(why, sizeof why,
                    "SHMEM_SYMMETRIC_SIZE differs between PEs (%llu here, %llu on PE %d): set the "
                    "same value for every PE",
                    static_cast<unsigned long long>(heap_bytes), static_cast<unsigned long long>(theirs), pe);
      init_failed(call, why);
    }
    // It sizes every team area in the heap's tail (in a job that spans nodes), so it must agree too.
    if (shapes[pe].net_scratch != mine.net_scratch) {
      char why[256];
      std::snprintf(why, sizeof why,
                    "GPUSHMEM_COLL_NET_SCRATCH differs between PEs (%llu here, %llu on PE %d): set the same value "
                    "for every PE",
                    static_cast<unsigned long long>(mine.net_scratch),
                    static_cast<unsigned long long>(shapes[pe].net_scratch), pe);
      init_failed(call, why);
    }
  }

  if (node::discover(b, &r.topology) != Status::ok) init_failed(call, "cannot discover the node's PEs");
  // Every PE sees the same topology and the same GPUSHMEM_TRANSPORTS, so all choose the same staging size.
  if (const char *why = team::choose_layout(r.n_pes, r.topology.local_size != r.n_pes || !net::p2p_allowed()))
    init_failed(call, why);
  if (r.heap.create(heap::kInternalAreaBytes + heap_bytes, team::tail_bytes()) != Status::ok)
    init_failed(call, "cannot create the symmetric heap");
  if (r.channel.connect(b, r.topology) != Status::ok) init_failed(call, "cannot connect to the node's other PEs");
  r.p2p.reset(r.n_pes);
  r.p2p.set_base(transport::Region::heap, r.my_pe, r.heap.base(), r.heap.mapped_bytes());
  // GPUSHMEM_TRANSPORTS without p2p: the node's PEs keep their sockets (liveness, global exit) but map
  // nothing of each other, so every byte between them goes through the network.
  if (net::p2p_allowed()) {
    // Every PE sizes its heap from the same variable (checked above), so each peer's segment is our size.
    if (r.p2p.map_node(transport::Region::heap, r.channel, r.topology, r.heap.fd(), r.heap.base(),
                       r.heap.mapped_bytes(), MAP_SHARED | MAP_NORESERVE) != Status::ok)
      init_failed(call, "cannot map the heaps of the node's other PEs");
  }
  share_globals(call, globals);
  r.all_pes_mapped = true;
  for (int pe = 0; pe < r.n_pes; ++pe) r.all_pes_mapped = r.all_pes_mapped && r.p2p.reaches(pe);
  // GPU mode when every PE has a usable GPU: shmem_malloc then allocates from the GPU heap, which grows in
  // chunks, so the allocator starts with what is mapped now. Before the network, which serves the GPU heap
  // to the PEs it does not map.
  if (gpu::init(call, heap_bytes) != Status::ok)
    init_failed(call,
                "cannot set up the GPU symmetric heap (the cause is above); GPUSHMEM_DISABLE_CUDA=1 runs without "
                "the GPU");
  // Every PE the mappings do not reach goes through the network transport (collective over the job).
  if (net::init(call, r.data_everywhere) != Status::ok) init_failed(call, "cannot reach every PE (the cause is above)");
  // Device code reaches the PEs the network reaches through IBGDA where GPUSHMEM_TRANSPORTS lists it, through the
  // CPU proxy otherwise (GPU mode).
  if (ibgda_rt::start(call) != Status::ok)
    init_failed(call, "cannot set up IBGDA for device code (the cause is above)");
  if (proxy_rt::start(call) != Status::ok)
    init_failed(call, "cannot start the CPU proxy for device code (the cause is above)");
  team::init();
  // Count the node's CPUs, not this process's affinity: launchers bind each PE to one core.
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int usable_cpus = online > 0 ? static_cast<int>(online) : 1;
  // PEs of every virtual host on this machine share its CPUs.
  r.oversubscribed = std::max(r.topology.local_size, r.topology.machine_size) > usable_cpus;
  // Device code sees the predefined teams too (before the bootstrap barrier below, as a split's claim is
  // before its parent barrier).
  if (team::publish_all(call) != Status::ok)
    init_failed(call,
                "cannot publish the teams to the GPU (the cause is above); GPUSHMEM_DISABLE_CUDA=1 runs "
                "without the GPU");
  r.allocator.reset(heap::kInternalAreaBytes, r.gpu.base != nullptr ? gpu::user_bytes_mapped() : heap_bytes);
  r.thread_level = requested;
  r.pid = getpid();
  if (provided != nullptr) *provided = r.thread_level;

  static std::once_flag exit_handler_once;
  std::call_once(exit_handler_once, [] { on_exit(exit_handler, nullptr); });
  r.phase.store(static_cast<int>(Phase::running), std::memory_order_release);
  if (b->barrier(b) != GPUSHMEM_BOOTSTRAP_OK) init_failed(call, "bootstrap barrier failed");
  if (r.my_pe == 0) print_banner();
  // Misspelt variables would otherwise be ignored without a word (PE 0 speaks for the job).
  if (r.my_pe == 0)
    for (const std::string &line : env::unknown_variables()) GPUSHMEM_LOG_WARN(log::Subsys::env, "%s", line.c_str());
  GPUSHMEM_LOG_INFO(
      log::Subsys::init, "%s: PE %d of %d, node-local %d of %d, heap %llu bytes at %p (%s)", call, r.my_pe, r.n_pes,
      r.topology.local_rank, r.topology.local_size, static_cast<unsigned long long>(heap_bytes),
      static_cast<void *>(r.gpu.base != nullptr ? r.gpu.base : r.heap.base()), r.gpu.base != nullptr ? "GPU" : "host");
}

}  // namespace
}  // namespace gpushmem

using namespace gpushmem;

GPUSHMEM_EXPORT void shmem_init(void) {
  start("shmem_init", SHMEM_THREAD_SINGLE, nullptr, nullptr);
}

GPUSHMEM_EXPORT int shmem_init_thread(int requested, int *provided) {
  start("shmem_init_thread", requested, provided, nullptr);
  return 0;
}

GPUSHMEM_EXPORT int shmemx_init_attr(int requested, int *provided, const shmemx_init_attr_t *attr) {
  start("shmemx_init_attr", requested, provided, attr);
  return 0;
}

GPUSHMEM_EXPORT void shmemx_query_initialized(int *initialized) {
  if (initialized != nullptr) *initialized = running() ? 1 : 0;
}

GPUSHMEM_EXPORT void shmemx_query_finalized(int *finalized) {
  if (finalized != nullptr)
    *finalized = rt().phase.load(std::memory_order_acquire) == static_cast<int>(Phase::finalized) ? 1 : 0;
}

GPUSHMEM_EXPORT void start_pes(int) {
  // Deprecated: later calls have no effect, and the library finalizes at exit (exit_handler).
  if (!running()) start("start_pes", SHMEM_THREAD_SINGLE, nullptr, nullptr);
}

GPUSHMEM_EXPORT void shmem_finalize(void) {
  api::require_running("shmem_finalize");
  Runtime &r = rt();
  gpu::drain("shmem_finalize");         // this PE's kernels and copies no longer touch any heap
  proxy_rt::stop("shmem_finalize");     // and what they handed to the proxy is executed
  ibgda_rt::stop("shmem_finalize");     // and what they posted to their queue pairs
  sync::barrier_all("shmem_finalize");  // completes this PE's RMA too: host puts complete at the barrier's fence
  team::check_pending();                // every PE's last broadcast pushes have landed (the barrier)
  // The barrier's last arrivals through the network are posted: complete them at their targets before the
  // goodbye on the node's sockets, which could otherwise overtake them (GPUSHMEM_TRANSPORTS=ucx on one node).
  if (net::active() != nullptr) {
    net::quiet("shmem_finalize", transport::Transport::kAllChannels);
    net::quiet("shmem_finalize", net::kRuntimeChan);
  }
  r.channel.say_goodbye(true);
  ctx::finalize();  // contexts still alive end with the library (their network operations complete first)
  // Peers on other nodes close their endpoints once past the next barrier: that is no longer an error.
  net::prepare_finalize();
  r.phase.store(static_cast<int>(Phase::finalized), std::memory_order_release);
  gpushmem_bootstrap_t *b = &r.bootstrap.table;
  // Every PE has said goodbye before any closes its sockets, so none mistakes the close for a crash.
  int rc = b->barrier(b);
  // Nobody uses the network any more (every PE is past its last barrier_all), a real NIC's queue pairs included.
  ibgda_rt::release();
  net::finalize();
  // Every PE has drained its GPU before that barrier: nobody uses a GPU heap any more.
  gpu::finalize();
  team::finalize();
  r.channel.close();
  r.p2p.finalize();  // the peers' mappings; every PE is past the barrier above
  r.data_shared = false;
  r.data_everywhere = false;
  r.data.destroy();
  r.heap.destroy();
  if (rc == GPUSHMEM_BOOTSTRAP_OK) rc = b->finalize(b);
  if (rc != GPUSHMEM_BOOTSTRAP_OK)
    GPUSHMEM_LOG_WARN(log::Subsys::init, "shmem_finalize: the %s bootstrap did not finalise cleanly (code %d)", b->name,
                      rc);
  boot::unload_plugin(&r.bootstrap);
}

GPUSHMEM_EXPORT void shmem_global_exit(int status) {
  api::require_running("shmem_global_exit");
  gpu::report_device_error_at_exit();  // often the reason: a kernel trapped by a failed device call
  std::fflush(nullptr);
  // A process reports only the low 8 bits of its status: 256 would read as success. A failure stays one.
  const int code = status != 0 && (status & 0xff) == 0 ? 1 : status;
  char why[128];
  if (code != status)
    std::snprintf(why, sizeof why, "PE %d called shmem_global_exit(%d), which exits with 1 (%d reads as 0)", rt().my_pe,
                  status, status);
  else
    std::snprintf(why, sizeof why, "PE %d called shmem_global_exit(%d)", rt().my_pe, status);
  abort_job(code, why);
}
