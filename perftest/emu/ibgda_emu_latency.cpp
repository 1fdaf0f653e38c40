// ibgda_emu_latency: the NIC emulator's own costs, measured from host producers (no GPU, no PEs; issue 14). These
// are the emulator's figures, never IBGDA's: they say how long tests over emulated IBGDA take.
//   dependent op   one producer posts an 8-byte inline WRITE (or an 8-byte READ) and waits for its CQE before the
//                  next: the emulator's latency per operation (target <= 5 us, transports-notes.md §11.8)
//   posting rate   T producer threads post 8-byte inline WRITEs through one QP with the producer protocol
//                  (gpushmem/ibgda_producer.hpp) at each doorbell batch size: WQEs per second from the first post to
//                  the last completion, and doorbells per WQE
// Each figure is the median over the repeats, printed as a table row and a "json:" line. Every WQE's data is checked
// (exit 1 on a wrong byte or an error CQE).
//   ibgda_emu_latency [-n OPS] [-r REPEATS] [-t THREADS] [-q BLOCKS] [-B BATCH,...]
//   defaults: -n 20000 -r 5 -t 4 -q 1024 -B 1,4,16,64
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gpushmem/ibgda_producer.hpp"
#include "ibgda/emu/nic_emulator.hpp"
#include "ibgda_host_mem.hpp"
#include "ibgda_host_qp.hpp"

namespace emu = gpushmem::ibgda::emu;
namespace ibgda = gpushmem::ibgda;
namespace mlx5 = gpushmem::mlx5;
using Mem = gpushmem::test::IbgdaHostMem;

namespace {

double now_s() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "ibgda_emu_latency: %s\n", what);
  std::exit(1);
}

// One QP over host memory with an emulator serving it.
struct Rig {
  emu::KeyTable local_keys, remote_keys;
  emu::LocalTarget target{&remote_keys};
  std::vector<uint8_t> local, remote;
  uint32_t lkey, rkey;
  gpushmem::test::IbgdaHostQp host;
  gpushmem_ibgda_qp_t &qp = host.qp;
  gpushmem_ibgda_qp_words_t &words = host.words;
  emu::NicEmulator nic;

  Rig(uint32_t wqebbs, uint32_t batch, size_t bytes) : local(bytes), remote(bytes), host(0x42, wqebbs, batch) {
    lkey = local_keys.add(local.data(), local.size(), emu::kLocalWrite);
    rkey = remote_keys.add(remote.data(), remote.size(), emu::kAllAccess);
    nic.add_qp(host.config(&local_keys, &target));
    nic.start();
  }
  mlx5::Remote r(size_t off) { return {reinterpret_cast<uint64_t>(remote.data() + off), rkey}; }
  mlx5::Local l(size_t off) { return {reinterpret_cast<uint64_t>(local.data() + off), lkey}; }
};

constexpr uint64_t kTimeout = 30'000'000'000ull;

// Microseconds per dependent operation (post, then wait for its completion), `ops` of them.
double dependent(bool read, int ops) {
  Rig rig(64, 1, 1 << 16);
  const double start = now_s();
  for (int i = 0; i < ops; ++i) {
    const uint64_t value = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull;
    const size_t slot = static_cast<size_t>(i % 1024) * 8;
    if (read) std::memcpy(&rig.remote[slot], &value, 8);
    const ibgda::Outcome o = ibgda::post<Mem>(
        rig.qp, 1,
        [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
          if (read)
            (void)mlx5::build_read(w, p, rig.r(slot), rig.l(slot), 8);
          else
            mlx5::build_write_inline(w, p, rig.r(slot), &value, 8);
        },
        false, kTimeout);
    if (o != ibgda::Outcome::ok || ibgda::quiet<Mem>(rig.qp, kTimeout) != ibgda::Outcome::ok) fail("a post failed");
    uint64_t got;
    std::memcpy(&got, read ? &rig.local[slot] : &rig.remote[slot], 8);
    if (got != value) fail(read ? "a READ brought back the wrong value" : "a WRITE left the wrong value");
  }
  return (now_s() - start) * 1e6 / ops;
}

// WQEs per second and doorbells per WQE: `threads` producers, `ops` posts each.
void rate(int threads, int ops, uint32_t wqebbs, uint32_t batch, double *per_s, double *doorbells_per_wqe) {
  const size_t total = static_cast<size_t>(threads) * static_cast<size_t>(ops);
  Rig rig(wqebbs, batch, total * 8);
  std::vector<std::thread> pool;
  std::atomic<int> failures{0};
  const double start = now_s();
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < ops; ++i) {
        const uint64_t value = static_cast<uint64_t>(t) * static_cast<uint64_t>(ops) + static_cast<uint64_t>(i);
        if (ibgda::post<Mem>(
                rig.qp, 1,
                [&](gpushmem_mlx5_wqe_t *w, const mlx5::Post &p) {
                  mlx5::build_write_inline(w, p, rig.r(static_cast<size_t>(value) * 8), &value, 8);
                },
                false, kTimeout) != ibgda::Outcome::ok)
          failures.fetch_add(1);
      }
    });
  for (auto &th : pool) th.join();
  if (failures.load() != 0 || ibgda::quiet<Mem>(rig.qp, kTimeout) != ibgda::Outcome::ok) fail("a post failed");
  const double seconds = now_s() - start;
  for (size_t v = 0; v < total; ++v) {
    uint64_t got;
    std::memcpy(&got, &rig.remote[v * 8], 8);
    if (got != v) fail("a posted WRITE left the wrong value");
  }
  *per_s = static_cast<double>(total) / seconds;
  *doorbells_per_wqe = static_cast<double>(rig.words.doorbells) / static_cast<double>(total);
}

}  // namespace

int main(int argc, char **argv) {
  int ops = 20000, repeats = 5, threads = 4;
  uint32_t blocks = 1024;
  std::vector<uint32_t> batches = {1, 4, 16, 64};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "-h" || a == "--help") {
      std::printf("usage: ibgda_emu_latency [-n OPS] [-r REPEATS] [-t THREADS] [-q BLOCKS] [-B BATCH,...]\n");
      return 0;
    }
    if (v == nullptr) {
      std::fprintf(stderr, "ibgda_emu_latency: %s needs a value (try -h)\n", a.c_str());
      return 64;
    }
    ++i;
    if (a == "-n")
      ops = std::atoi(v);
    else if (a == "-r")
      repeats = std::atoi(v);
    else if (a == "-t")
      threads = std::atoi(v);
    else if (a == "-q")
      blocks = static_cast<uint32_t>(std::atoi(v));
    else if (a == "-B") {
      batches.clear();
      std::stringstream in(v);
      for (std::string b; std::getline(in, b, ',');) batches.push_back(static_cast<uint32_t>(std::atoi(b.c_str())));
    } else {
      std::fprintf(stderr, "ibgda_emu_latency: unknown option %s (try -h)\n", a.c_str());
      return 64;
    }
  }
  if (ops < 1 || repeats < 1 || threads < 1 || blocks < 4 || (blocks & (blocks - 1)) != 0 || blocks > 32768 ||
      batches.empty()) {
    std::fprintf(stderr, "ibgda_emu_latency: -n, -r, -t must be >= 1, -q a power of two from 4 to 32768\n");
    return 64;
  }
  std::printf("# ibgda_emu_latency: the NIC emulator's costs from host producers (not IBGDA's), median of %d repeats\n",
              repeats);
  std::printf("%-26s %-10s %14s %16s\n", "figure", "threads", "value", "doorbells/WQE");
  for (const bool read : {false, true}) {
    std::vector<double> us;
    for (int r = 0; r < repeats; ++r) us.push_back(dependent(read, ops));
    const char *name = read ? "dependent READ 8 B" : "dependent WRITE 8 B";
    std::printf("%-26s %-10d %11.2f us %16s\n", name, 1, median(us), "");
    std::printf("json: {\"bench\":\"ibgda_emu_latency\",\"figure\":\"%s\",\"ops\":%d,\"repeats\":%d,\"lat_us\":%.3f}\n",
                read ? "dependent_read" : "dependent_write", ops, repeats, median(us));
  }
  for (const uint32_t batch : batches) {
    std::vector<double> rates, doorbells;
    for (int r = 0; r < repeats; ++r) {
      double per_s = 0, d = 0;
      rate(threads, ops, blocks, batch, &per_s, &d);
      rates.push_back(per_s);
      doorbells.push_back(d);
    }
    char label[48];
    std::snprintf(label, sizeof label, "posting rate, batch %u", batch);
    std::printf("%-26s %-10d %9.3f M/s %16.3f\n", label, threads, median(rates) / 1e6, median(doorbells));
    std::printf(
        "json: {\"bench\":\"ibgda_emu_latency\",\"figure\":\"posting_rate\",\"batch\":%u,\"threads\":%d,\"blocks\":%u,"
        "\"ops\":%d,\"repeats\":%d,\"mwqe_per_s\":%.4f,\"doorbells_per_wqe\":%.4f}\n",
        batch, threads, blocks, ops, repeats, median(rates) / 1e6, median(doorbells));
  }
  return 0;
}
