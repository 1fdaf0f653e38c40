// Device barrier_all and sync_all, 1000 rounds each, in thread, warp and block scope (the warp and block
// forms: the whole group calls, one thread does the work). Checked every round:
//   barrier_all: every lane p's (round + 1) into a slot on every PE and lane 0 increments a counter on PE 0;
//     after the barrier each lane finds every PE's value in its slots (the barrier's quiet completed all
//     puts) and lane 0 reads exactly the counter the rounds so far must give;
//   sync_all: every lane stores (round + 1) into its own slot with a plain store; after the sync it reads
//     every PE's slot with shmem_g (the sync published the stores), and lane 0 checks a counter its
//     fetch_inc (complete when it returns) fed.
// Slots and counters alternate between two banks, so a PE already in round r + 1 cannot disturb a slower
// PE still checking round r (it cannot reach round r + 2 before the slower one passes round r + 1).
#include "device_api_common.cuh"

namespace {

constexpr int kRounds = 1000;
constexpr unsigned int kMaxLanes = 160;

// slots: [2 banks][npes][kMaxLanes] ints; counters: [2] long long, used on PE 0.
template <int S, bool Barrier>
__global__ void loop_kernel(int *slots, long long *counters, device_report *report) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const unsigned int lane = scope_rank<S>();
  for (int round = 0; round < kRounds; ++round) {
    const int bank = round % 2, value = round + 1;
    int *bank_slots = slots + static_cast<size_t>(bank) * npes * kMaxLanes;
    if (Barrier) {
      for (int pe = 0; pe < npes; ++pe) shmem_int_p(bank_slots + me * kMaxLanes + lane, value, pe);
      if (lane == 0) shmem_longlong_atomic_inc(counters + bank, 0);
    } else {
      bank_slots[me * kMaxLanes + lane] = value;
      if (lane == 0) (void)shmem_longlong_atomic_fetch_inc(counters + bank, 0);
    }

    if (Barrier) {
      if (S == kThread) shmem_barrier_all();
      if (S == kWarp) shmemx_barrier_all_warp();
      if (S == kBlock) shmemx_barrier_all_block();
    } else {
      if (S == kThread) shmem_sync_all();
      if (S == kWarp) shmemx_sync_all_warp();
      if (S == kBlock) shmemx_sync_all_block();
    }

    for (int pe = 0; pe < npes; ++pe) {
      const int got = Barrier ? bank_slots[pe * kMaxLanes + lane] : shmem_int_g(bank_slots + pe * kMaxLanes + lane, pe);
      if (got != value) report_failure(report, round, pe * kMaxLanes + lane, value, got);
    }
    if (lane == 0) {
      const long long want = static_cast<long long>(round / 2 + 1) * npes;
      const long long got = shmem_longlong_atomic_fetch(counters + bank, 0);
      if (got != want) report_failure(report, round, -1, want, got);
    }
  }
}

template <int S, bool Barrier>
void run(int *slots, long long *counters, device_report *report) {
  CUDA_CHECK(cudaMemset(slots, 0, 2 * static_cast<size_t>(shmem_n_pes()) * kMaxLanes * sizeof(int)));
  CUDA_CHECK(cudaMemset(counters, 0, 2 * sizeof(long long)));
  device_sync_barrier();
  const double start = pe_now_s();
  loop_kernel<S, Barrier><<<1, scope_threads(S)>>>(slots, counters, report);
  device_sync_barrier();
  char what[200];
  std::snprintf(what, sizeof what, "%d rounds of %s in %s scope (element: PE * %u + lane, -1: the counter on PE 0)",
                kRounds, Barrier ? "barrier_all" : "sync_all", scope_name(S), kMaxLanes);
  check_device_report(report, what);
  if (shmem_my_pe() == 0)
    std::printf("device_api_barrier: %s, %s scope: %d rounds in %.3f s\n", Barrier ? "barrier_all" : "sync_all",
                scope_name(S), kRounds, pe_now_s() - start);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_barrier");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_barrier")) {
    int *slots = static_cast<int *>(shmem_malloc(2 * static_cast<size_t>(shmem_n_pes()) * kMaxLanes * sizeof(int)));
    long long *counters = static_cast<long long *>(shmem_malloc(2 * sizeof(long long)));
    device_report *report = new_device_report();
    run<kThread, true>(slots, counters, report);
    run<kWarp, true>(slots, counters, report);
    run<kBlock, true>(slots, counters, report);
    run<kThread, false>(slots, counters, report);
    run<kWarp, false>(slots, counters, report);
    run<kBlock, false>(slots, counters, report);
    CUDA_CHECK(cudaFree(report));
    shmem_free(counters);
    shmem_free(slots);
  }
  return pe_finish("device_api_barrier");
}
