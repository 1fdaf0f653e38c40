// The proxy with a target that does not answer like a healthy one (label emu), through the runtime's backend over
// UCX to a PE on another virtual host; PE 0's proxy executes what a kernel would issue, PE 1 is the target.
//
// serve (default): a PE whose own thread computes, with no progress thread (GPUSHMEM_PROGRESS_THREAD=off), still
//   takes the puts other PEs' proxies send it, because its proxy thread progresses the network between its polls
//   (runtime/proxy/runtime_backend.cpp, RuntimeBackend::progress); a GPU program's host thread sits in
//   cudaStreamSynchronize in the same way while its kernel waits for a signal. PE 0 runs 200 rounds of a PUT then
//   a QUIET to PE 1 (UCX over TCP: a put lands only when the target progresses), then a PUT of the word PE 1
//   watches; PE 1 spins on that word in its own memory for up to 20 s without calling the library. Without a
//   thread serving PE 1's network, PE 0's first quiet waits until PE 1 gives up.
// stalled: PE 1 stops its proxy and computes for 4 s (nothing serves its network): PE 0's watchdog
//   (GPUSHMEM_PROXY_TIMEOUT of 1 s here) names the put it handed to the network and says PE 1 or the network is
//   stalled; then PE 1 serves again and everything completes (the job succeeds, stderr holds the report).
// killed: PE 1 kills itself (SIGKILL) while PE 0's proxy keeps sending: the job ends within 10 s naming PE 1.
// lost: run with GPUSHMEM_FAULT_INJECT=ucx-endpoint:1:N: PE 0's endpoint to PE 1 fails mid-run, and the proxy's
//   request ends the job naming the device operation, PE 1 and the cause.
#include <shmem.h>

#include <signal.h>

#include <cstdint>
#include <cstring>
#include <thread>

#include "gpushmem/proxy_producer.hpp"
#include "pe_check.h"
#include "proxy/proxy_service.hpp"
#include "proxy/runtime_backend.hpp"
#include "proxy_host_mem.hpp"
#include "state.hpp"
#include "transport.hpp"

namespace {

using gpushmem::test::HostChannel;
using gpushmem::test::HostMem;
namespace proxy = gpushmem::proxy;

constexpr int kRounds = 200;

struct Sym {
  uint64_t value;
  uint64_t done;
};

uint64_t issue(const gpushmem_proxy_channel_t &c, uint64_t remote, uint64_t inline_value, uint32_t op) {
  gpushmem_proxy_slot_t s{};
  s.remote = remote;
  s.size_event = gpushmem_proxy_size_event(op == GPUSHMEM_PROXY_OP_PUT ? 8u : 0u, 0);
  s.compare = inline_value;
  uint64_t index = 0;
  if (proxy::reserve<HostMem>(c, 1, &index, 20000000000ull) != proxy::Room::ok) PE_FAIL("no room in the ring for 20 s");
  const uint32_t flags = op == GPUSHMEM_PROXY_OP_PUT ? GPUSHMEM_PROXY_FLAG_INLINE | GPUSHMEM_PROXY_FLAG_NBI : 0u;
  proxy::publish<HostMem>(c, index, s, op, flags, 1);
  return index;
}

uint64_t remote_of(const void *sym) {
  const char *base = gpushmem::rt().heap.base();
  return gpushmem_proxy_remote(static_cast<uint64_t>(static_cast<const char *>(sym) - base),
                               static_cast<uint32_t>(gpushmem::transport::Region::heap));
}

}  // namespace

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "serve";
  if (std::strcmp(mode, "serve") != 0 && std::strcmp(mode, "stalled") != 0 && std::strcmp(mode, "killed") != 0 &&
      std::strcmp(mode, "lost") != 0) {
    PE_FAIL("unknown mode '%s' (serve, stalled, killed, lost)", mode);
    return pe_finish("proxy_serve");
  }
  shmem_init();
  if (shmem_n_pes() != 2) {
    PE_FAIL("run with 2 PEs (got %d)", shmem_n_pes());
    return pe_finish("proxy_serve");
  }
  const int me = shmem_my_pe();
  auto *sym = static_cast<Sym *>(shmem_calloc(1, sizeof(Sym)));
  HostChannel ring(64);
  gpushmem::proxy_rt::RuntimeBackend backend({});
  proxy::ServiceOptions options;
  options.watchdog_ns = std::strcmp(mode, "stalled") == 0 ? 1000000000ull : 0;
  proxy::Service service(&backend, options);
  service.add_channel(ring.c);
  service.start();
  shmem_barrier_all();

  if (me == 1 && std::strcmp(mode, "killed") == 0) {
    std::fprintf(stderr, "proxy_serve: PE 1 raises SIGKILL\n");
    raise(SIGKILL);
  }
  if (me == 1 && std::strcmp(mode, "stalled") == 0) {
    service.stop();  // nothing serves this PE's network for 4 s (no progress thread, no library call)
    const double start = pe_now_s();
    while (pe_now_s() - start < 4) std::this_thread::yield();
    service.start();
  }
  if (me == 0) {
    for (int k = 0; k < kRounds; ++k) {
      issue(ring.c, remote_of(&sym->value), static_cast<uint64_t>(k) + 1, GPUSHMEM_PROXY_OP_PUT);
      const uint64_t q = issue(ring.c, 0, 0, GPUSHMEM_PROXY_OP_QUIET);
      const double start = pe_now_s();
      while (!proxy::completed_before<HostMem>(ring.c, q + 1)) {
        if (pe_now_s() - start > 30) {
          PE_FAIL("round %d: the quiet is not complete after 30 s", k);
          break;
        }
        std::this_thread::yield();
      }
    }
    const uint64_t q = issue(ring.c, remote_of(&sym->done), 1, GPUSHMEM_PROXY_OP_PUT);
    (void)q;
  } else {
    // Compute: no library call, so nothing but the proxy thread progresses this PE's network.
    const volatile uint64_t *done = &sym->done;
    const double start = pe_now_s();
    while (*done == 0 && pe_now_s() - start < 20) std::this_thread::yield();
    if (*done == 0)
      PE_FAIL("PE 0's puts did not land in 20 s while this PE computed: nothing served its network");
    else if (sym->value != kRounds)
      PE_FAIL("the last put left %llu, expected %d", static_cast<unsigned long long>(sym->value), kRounds);
  }
  shmem_barrier_all();
  service.stop();
  shmem_barrier_all();
  shmem_free(sym);
  return pe_finish("proxy_serve");
}
