// Device put-with-signal, data checked: PE pairs (0,1), (2,3), ... play ping-pong for 20 rounds; each round
// one PE fills a 64 KiB payload and sends it with a put_signal, and the other, as soon as it sees the
// signal, checks the whole payload (it must be complete: the payload is visible before the signal) and
// answers the same way. Every form: putmem_signal, TYPE_put_signal, put64_signal and the generic
// shmem_put_signal, blocking and _nbi, in thread, warp and block scope, with SHMEM_SIGNAL_SET (the round
// number) and SHMEM_SIGNAL_ADD (1 per round). shmem_signal_wait_until must return the value that released
// it and shmem_signal_fetch must read the final count. Then the same ping-pong with shmemx_signal_op alone.
#include "device_api_common.cuh"

namespace {

constexpr unsigned int kWords = 16 * 1024;  // 64 KiB of 32-bit words
constexpr unsigned int kRounds = 20;

__host__ __device__ inline unsigned int payload(int pe, unsigned int round, unsigned int i) {
  return static_cast<unsigned int>(pe) * 1000003u + round * 7919u + i;
}

struct variant {
  int scope;
  const char *name;
};
constexpr variant kVariants[] = {
    {kThread, "shmem_putmem_signal"},          {kWarp, "shmemx_putmem_signal_warp"},
    {kBlock, "shmemx_putmem_signal_block"},    {kThread, "shmem_putmem_signal_nbi"},
    {kWarp, "shmemx_putmem_signal_nbi_warp"},  {kBlock, "shmemx_putmem_signal_nbi_block"},
    {kThread, "shmem_int_put_signal"},         {kBlock, "shmemx_int_put_signal_block"},
    {kWarp, "shmemx_int_put_signal_nbi_warp"}, {kThread, "shmem_put64_signal"},
    {kWarp, "shmemx_put64_signal_nbi_warp"},   {kThread, "shmem_put_signal (generic, long)"},
};
constexpr int kVariantCount = sizeof kVariants / sizeof kVariants[0];

template <int V>
__device__ void send(unsigned int *in, const unsigned int *out, uint64_t *sig, uint64_t value, int op, int pe) {
  int *in_i = reinterpret_cast<int *>(in);
  const int *out_i = reinterpret_cast<const int *>(out);
  long *in_l = reinterpret_cast<long *>(in);
  const long *out_l = reinterpret_cast<const long *>(out);
  const size_t bytes = kWords * sizeof(unsigned int);
  switch (V) {
    case 0:
      shmem_putmem_signal(in, out, bytes, sig, value, op, pe);
      break;
    case 1:
      shmemx_putmem_signal_warp(in, out, bytes, sig, value, op, pe);
      break;
    case 2:
      shmemx_putmem_signal_block(in, out, bytes, sig, value, op, pe);
      break;
    case 3:
      shmem_putmem_signal_nbi(in, out, bytes, sig, value, op, pe);
      break;
    case 4:
      shmemx_putmem_signal_nbi_warp(in, out, bytes, sig, value, op, pe);
      break;
    case 5:
      shmemx_putmem_signal_nbi_block(in, out, bytes, sig, value, op, pe);
      break;
    case 6:
      shmem_int_put_signal(in_i, out_i, kWords, sig, value, op, pe);
      break;
    case 7:
      shmemx_int_put_signal_block(in_i, out_i, kWords, sig, value, op, pe);
      break;
    case 8:
      shmemx_int_put_signal_nbi_warp(in_i, out_i, kWords, sig, value, op, pe);
      break;
    case 9:
      shmem_put64_signal(in, out, kWords / 2, sig, value, op, pe);
      break;
    case 10:
      shmemx_put64_signal_nbi_warp(in, out, kWords / 2, sig, value, op, pe);
      break;
    default:
      shmem_put_signal(in_l, out_l, kWords / 2, sig, value, op, pe);
      break;
  }
  if (V == 3 || V == 4 || V == 5 || V == 8 || V == 10) shmem_quiet();  // the source of an nbi put waits for quiet
}

// One PE's side of the ping-pong. `in` receives the partner's payload, `out` is sent; both symmetric.
template <int V, int S>
__global__ void pingpong_kernel(unsigned int *in, unsigned int *out, uint64_t *sig, int op, int me, int partner,
                                bool starts, device_report *report) {
  const unsigned int lane = scope_rank<S>(), lanes = scope_size<S>();
  for (unsigned int r = 1; r <= kRounds; ++r) {
    if (!starts || r > 1) {  // wait for the partner's round r (the starter sends first)
      const unsigned int want_round = starts ? r - 1 : r;
      if (lane == 0) {
        const uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, want_round);
        if (got != want_round) report_failure(report, want_round, -1, want_round, static_cast<long long>(got));
      }
      scope_sync<S>();
      for (unsigned int i = lane; i < kWords; i += lanes)
        if (in[i] != payload(partner, want_round, i))
          report_failure(report, want_round, i, payload(partner, want_round, i), in[i]);
      scope_sync<S>();
    }
    for (unsigned int i = lane; i < kWords; i += lanes) out[i] = payload(me, r, i);
    scope_sync<S>();
    send<V>(in, out, sig, op == SHMEM_SIGNAL_SET ? r : 1, op, partner);
  }
  if (starts) {  // the partner's last answer
    if (lane == 0) (void)shmem_signal_wait_until(sig, SHMEM_CMP_GE, kRounds);
    scope_sync<S>();
    for (unsigned int i = lane; i < kWords; i += lanes)
      if (in[i] != payload(partner, kRounds, i))
        report_failure(report, kRounds, i, payload(partner, kRounds, i), in[i]);
  }
  if (lane == 0) {
    const uint64_t final_value = shmem_signal_fetch(sig);
    if (final_value != kRounds) report_failure(report, kRounds + 1, -2, kRounds, static_cast<long long>(final_value));
  }
}

template <int V>
void run_variant(unsigned int *in, unsigned int *out, uint64_t *sig, int op, device_report *report) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const int partner = me ^ 1;
  CUDA_CHECK(cudaMemset(sig, 0, sizeof *sig));
  CUDA_CHECK(cudaMemset(in, 0, kWords * sizeof *in));
  device_sync_barrier();
  constexpr int S = kVariants[V].scope;
  if (partner < npes)
    pingpong_kernel<V, S><<<1, scope_threads(S)>>>(in, out, sig, op, me, partner, me % 2 == 0, report);
  device_sync_barrier();
  char what[256];
  std::snprintf(what, sizeof what,
                "%s with %s ping-pong (element -1: the value signal_wait_until returned, -2: "
                "the final signal_fetch)",
                kVariants[V].name, op == SHMEM_SIGNAL_SET ? "SHMEM_SIGNAL_SET" : "SHMEM_SIGNAL_ADD");
  check_device_report(report, what);
}

template <int V>
void run_variants(unsigned int *in, unsigned int *out, uint64_t *sig, device_report *report) {
  if constexpr (V < kVariantCount) {
    run_variant<V>(in, out, sig, SHMEM_SIGNAL_SET, report);
    run_variant<V>(in, out, sig, SHMEM_SIGNAL_ADD, report);
    run_variants<V + 1>(in, out, sig, report);
  }
}

// shmemx_signal_op alone: 100 rounds of set (or add) and wait.
__global__ void signal_op_kernel(uint64_t *sig, int op, int partner, bool starts, device_report *report) {
  constexpr unsigned int rounds = 100;
  for (unsigned int r = 1; r <= rounds; ++r) {
    if (!starts) (void)shmem_signal_wait_until(sig, SHMEM_CMP_GE, r);
    shmemx_signal_op(sig, op == SHMEM_SIGNAL_SET ? r : 1, op, partner);
    if (starts) {
      const uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, r);
      if (got != r) report_failure(report, r, -1, r, static_cast<long long>(got));
    }
  }
  shmem_quiet();
  if (shmem_signal_fetch(sig) != rounds)
    report_failure(report, rounds, -2, rounds, static_cast<long long>(shmem_signal_fetch(sig)));
}

void run_signal_op(uint64_t *sig, int op, device_report *report) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  CUDA_CHECK(cudaMemset(sig, 0, sizeof *sig));
  device_sync_barrier();
  if ((me ^ 1) < npes) signal_op_kernel<<<1, 1>>>(sig, op, me ^ 1, me % 2 == 0, report);
  device_sync_barrier();
  check_device_report(report,
                      op == SHMEM_SIGNAL_SET ? "shmemx_signal_op SET ping-pong" : "shmemx_signal_op ADD ping-pong");
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_signal");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_signal")) {
    if (shmem_n_pes() % 2 != 0 && shmem_my_pe() == 0)
      std::fprintf(stderr, "device_api_signal: %d PEs: the last PE has no partner and only watches\n", shmem_n_pes());
    unsigned int *in = static_cast<unsigned int *>(shmem_malloc(kWords * sizeof(unsigned int)));
    unsigned int *out = static_cast<unsigned int *>(shmem_malloc(kWords * sizeof(unsigned int)));
    uint64_t *sig = static_cast<uint64_t *>(shmem_malloc(sizeof(uint64_t)));
    device_report *report = new_device_report();
    run_variants<0>(in, out, sig, report);
    run_signal_op(sig, SHMEM_SIGNAL_SET, report);
    run_signal_op(sig, SHMEM_SIGNAL_ADD, report);
    CUDA_CHECK(cudaFree(report));
    shmem_free(sig);
    shmem_free(out);
    shmem_free(in);
  }
  return pe_finish("device_api_signal");
}
