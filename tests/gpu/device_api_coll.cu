// Teams and team collectives on the device, in thread, warp, block and grid scope (the _grid forms, by kGridBlocks
// blocks launched with shmemx_collective_launch), on three teams: SHMEM_TEAM_WORLD,
// a split copy of it (every PE, through the team sync words instead of the world barrier's) and the even PEs
// (stride 2; the odd PEs sit it out).
//   queries: shmem_team_my_pe / n_pes / translate_pe against the host's answers;
//   team sync: 64 rounds of "put a value to the next member, quiet, sync, read the one from the previous";
//   broadcast (root: the last member), fcollect, collect (member k brings k + 1 blocks), alltoall,
//   alltoalls (dst 2, sst 3), and reductions: int sum / min / max / xor, uint64 and / or / prod, double sum,
//   in place and not; typed and mem forms, with sizes that leave the scopes' lanes uneven.
// On virtual hosts (gpu-vhost) every member but this PE is reached through the CPU proxy: the pushes go as proxy puts,
// collect and the reductions as one request each that the members' proxies execute (runtime/proxy/proxy_coll.cpp).
// Every check runs on the device and reports the first mismatch (round = step, element, expected, got).
#include "device_api_common.cuh"
#include "phase_watchdog.h"

namespace {

constexpr int kMaxPes = 16;
constexpr size_t kN = 37;  // elements per member and block: no multiple of 32 or 160

// Dispatch one collective to its thread / warp / block / grid form (only that form is compiled into scope S's kernel).
#define COLL(S, NAME, ...)                       \
  ([&]() -> int {                                \
    if constexpr (S == kThread)                  \
      return shmem_##NAME(__VA_ARGS__);          \
    else if constexpr (S == kWarp)               \
      return shmemx_##NAME##_warp(__VA_ARGS__);  \
    else if constexpr (S == kBlock)              \
      return shmemx_##NAME##_block(__VA_ARGS__); \
    else                                         \
      return shmemx_##NAME##_grid(__VA_ARGS__);  \
  }())

#define EXPECT_EQ(step, index, got, want)                                                     \
  do {                                                                                        \
    const long long got_ = static_cast<long long>(got), want_ = static_cast<long long>(want); \
    if (got_ != want_) report_failure(report, step, index, want_, got_);                      \
  } while (0)

__device__ int value(int member, int block, size_t i) {
  return member * 100000 + block * 1000 + static_cast<int>(i);
}

struct team_case {
  shmem_team_t team;
  int my_pe, n_pes;   // the host's answers
  int world_of_last;  // world PE of the last member
};

struct buffers {
  int *src, *dst;  // symmetric, kMaxPes * kN * 3 + 64 ints each
  uint64_t *usrc, *udst;
  double *dsrc, *ddst;
  int *ring;  // symmetric, one int
};

template <int S>
__device__ void team_sync(shmem_team_t team) {
  if constexpr (S == kThread)
    shmem_team_sync(team);
  else if constexpr (S == kWarp)
    shmemx_team_sync_warp(team);
  else if constexpr (S == kBlock)
    shmemx_team_sync_block(team);
  else
    shmemx_team_sync_grid(team);
}

// The caller's side of the collectives' contract: every member's dest is ready (and every member is done
// reading the last result) before anyone enters the next collective.
template <int S>
__device__ void ready(shmem_team_t team) {
  scope_sync<S>();
  team_sync<S>(team);
}

template <int S>
__device__ void run(const team_case c, const buffers b, device_report *report) {
  const unsigned lane = scope_rank<S>(), lanes = scope_size<S>();
  const shmem_team_t team = c.team;
  const int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
  if (lane == 0) {
    EXPECT_EQ(1, 0, me, c.my_pe);
    EXPECT_EQ(2, 0, n, c.n_pes);
    EXPECT_EQ(3, 0, shmem_team_translate_pe(team, n - 1, SHMEM_TEAM_WORLD), c.world_of_last);
    EXPECT_EQ(4, 0, shmem_team_translate_pe(SHMEM_TEAM_WORLD, c.world_of_last, team), n - 1);
    EXPECT_EQ(5, 0, shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  }
  // team sync: a ring of puts, each read after the sync that follows it
  const int next = shmem_team_translate_pe(team, (me + 1) % n, SHMEM_TEAM_WORLD);
  for (int round = 1; round <= 64; ++round) {
    if (lane == 0) {
      shmem_int_p(b.ring, round * 1000 + me, next);
      shmem_quiet();
    }
    scope_sync<S>();
    team_sync<S>(team);
    if (lane == 0) EXPECT_EQ(10, round, *static_cast<volatile int *>(b.ring), round * 1000 + (me + n - 1) % n);
    team_sync<S>(team);  // nobody overwrites ring before its owner read it
  }

  // broadcast from the last member
  for (size_t i = lane; i < kN; i += lanes) {
    b.src[i] = value(me, 7, i);
    b.dst[i] = -1;
  }
  ready<S>(team);
  EXPECT_EQ(20, 0, COLL(S, int_broadcast, team, b.dst, b.src, kN, n - 1), 0);
  for (size_t i = lane; i < kN; i += lanes) EXPECT_EQ(21, i, b.dst[i], value(n - 1, 7, i));
  scope_sync<S>();
  // broadcastmem, an odd byte count
  for (size_t i = lane; i < kN; i += lanes) b.dst[i] = -1;
  ready<S>(team);
  COLL(S, broadcastmem, team, b.dst, b.src, 3 * sizeof(int) + 1, 0);
  for (size_t i = lane; i < 3; i += lanes) EXPECT_EQ(22, i, b.dst[i], value(0, 7, i));
  scope_sync<S>();

  // fcollect
  for (size_t i = lane; i < kN; i += lanes) b.src[i] = value(me, 1, i);
  for (size_t i = lane; i < kN * n; i += lanes) b.dst[i] = -1;
  ready<S>(team);
  EXPECT_EQ(30, 0, COLL(S, int_fcollect, team, b.dst, b.src, kN), 0);
  for (size_t i = lane; i < kN * n; i += lanes) EXPECT_EQ(31, i, b.dst[i], value(static_cast<int>(i / kN), 1, i % kN));
  scope_sync<S>();

  // collect: member k brings k + 1 elements (through a member's proxy where it does not map every member)
  {
    for (size_t i = lane; i < static_cast<size_t>(me) + 1; i += lanes) b.src[i] = value(me, 2, i);
    const size_t total = static_cast<size_t>(n) * (n + 1) / 2;
    for (size_t i = lane; i < total; i += lanes) b.dst[i] = -1;
    ready<S>(team);
    EXPECT_EQ(40, 0, COLL(S, int_collect, team, b.dst, b.src, static_cast<size_t>(me) + 1), 0);
    for (int k = 0, at = 0; k < n; at += k + 1, ++k)
      for (size_t i = lane; i < static_cast<size_t>(k) + 1; i += lanes)
        EXPECT_EQ(41, at + i, b.dst[at + i], value(k, 2, i));
    scope_sync<S>();
  }

  // alltoall: block j of my source goes to member j
  for (size_t i = lane; i < kN * n; i += lanes) {
    b.src[i] = value(me, static_cast<int>(i / kN), i % kN);
    b.dst[i] = -1;
  }
  ready<S>(team);
  EXPECT_EQ(50, 0, COLL(S, int_alltoall, team, b.dst, b.src, kN), 0);
  for (size_t i = lane; i < kN * n; i += lanes) EXPECT_EQ(51, i, b.dst[i], value(static_cast<int>(i / kN), me, i % kN));
  scope_sync<S>();
  // alltoalls: dst stride 2, sst stride 3, 5 elements per pair
  const size_t ne = 5;
  for (size_t i = lane; i < 3 * ne * n; i += lanes)
    b.src[i] = (i % 3 == 0) ? value(me, static_cast<int>(i / 3 / ne), (i / 3) % ne) : -7;
  for (size_t i = lane; i < 2 * ne * n; i += lanes) b.dst[i] = -1;
  ready<S>(team);
  EXPECT_EQ(52, 0, COLL(S, int_alltoalls, team, b.dst, b.src, 2, 3, ne), 0);
  for (size_t i = lane; i < 2 * ne * n; i += lanes)
    EXPECT_EQ(53, i, b.dst[i], i % 2 == 0 ? value(static_cast<int>(i / 2 / ne), me, (i / 2) % ne) : -1);
  scope_sync<S>();

  // reductions (through a member's proxy where it does not map every member)
  {
    const size_t nr = kN * 3;  // more elements than members, so every member has a share
    for (size_t i = lane; i < nr; i += lanes) {
      b.src[i] = static_cast<int>(i) + me * 3 - 50;
      b.usrc[i] = (1ull << (me % 60)) | (i << 8);
      b.dsrc[i] = 0.5 * me + static_cast<double>(i);
    }
    ready<S>(team);
    COLL(S, int_sum_reduce, team, b.dst, b.src, nr);
    for (size_t i = lane; i < nr; i += lanes)
      EXPECT_EQ(60, i, b.dst[i], n * (static_cast<int>(i) - 50) + 3 * n * (n - 1) / 2);
    ready<S>(team);
    COLL(S, int_min_reduce, team, b.dst, b.src, nr);
    for (size_t i = lane; i < nr; i += lanes) EXPECT_EQ(61, i, b.dst[i], static_cast<int>(i) - 50);
    ready<S>(team);
    COLL(S, int_max_reduce, team, b.dst, b.src, nr);
    for (size_t i = lane; i < nr; i += lanes) EXPECT_EQ(62, i, b.dst[i], static_cast<int>(i) - 50 + 3 * (n - 1));
    ready<S>(team);
    COLL(S, int32_xor_reduce, team, b.dst, b.src, nr);
    for (size_t i = lane; i < nr; i += lanes) {
      int x = 0;
      for (int k = 0; k < n; ++k) x ^= static_cast<int>(i) + k * 3 - 50;
      EXPECT_EQ(63, i, b.dst[i], x);
    }
    ready<S>(team);
    COLL(S, uint64_or_reduce, team, b.udst, b.usrc, nr);
    for (size_t i = lane; i < nr; i += lanes) {
      uint64_t x = 0;
      for (int k = 0; k < n; ++k) x |= (1ull << (k % 60)) | (i << 8);
      EXPECT_EQ(64, i, b.udst[i], x);
    }
    ready<S>(team);
    COLL(S, uint64_and_reduce, team, b.udst, b.usrc, nr);
    for (size_t i = lane; i < nr; i += lanes) EXPECT_EQ(65, i, b.udst[i], n == 1 ? (1ull | (i << 8)) : (i << 8));
    ready<S>(team);
    COLL(S, double_sum_reduce, team, b.ddst, b.dsrc, nr);
    for (size_t i = lane; i < nr; i += lanes)
      EXPECT_EQ(66, i, static_cast<long long>(b.ddst[i] * 2), static_cast<long long>(0.5 * n * (n - 1) + 2.0 * n * i));
    scope_sync<S>();
    // in place (dest == source)
    ready<S>(team);
    COLL(S, int_sum_reduce, team, b.src, b.src, nr);
    for (size_t i = lane; i < nr; i += lanes)
      EXPECT_EQ(67, i, b.src[i], n * (static_cast<int>(i) - 50) + 3 * n * (n - 1) / 2);
    scope_sync<S>();
    for (size_t i = lane; i < 8; i += lanes) b.usrc[i] = 2 + (me & 1);
    ready<S>(team);
    COLL(S, uint64_prod_reduce, team, b.usrc, b.usrc, 8);
    for (size_t i = lane; i < 8; i += lanes) {
      uint64_t x = 1;
      for (int k = 0; k < n; ++k) x *= 2 + (k & 1);
      EXPECT_EQ(68, i, b.usrc[i], x);
    }
    scope_sync<S>();
  }
  // nothing to reduce or move: still collective, still returns 0
  ready<S>(team);
  EXPECT_EQ(69, 0, COLL(S, int_sum_reduce, team, b.dst, b.src, 0), 0);
  ready<S>(team);
  EXPECT_EQ(70, 0, COLL(S, fcollectmem, team, b.dst, b.src, 0), 0);
}

template <int S>
__global__ void coll_kernel(team_case c, buffers b, device_report *report) {
  run<S>(c, b, report);
}

void run_scope(int scope, const team_case &c, const buffers &b, device_report *report, cudaStream_t stream,
               const char *team_name) {
  char what[256];
  std::snprintf(what, sizeof what, "device team collectives on %s, %s scope", team_name, scope_name(scope));
  {
    phase_watchdog dog(shmem_my_pe(), what, 30);
    const unsigned threads = scope_threads(scope);
    if (scope == kThread)
      coll_kernel<kThread><<<1, threads, 0, stream>>>(c, b, report);
    else if (scope == kWarp)
      coll_kernel<kWarp><<<1, threads, 0, stream>>>(c, b, report);
    else if (scope == kBlock)
      coll_kernel<kBlock><<<1, threads, 0, stream>>>(c, b, report);
    else {
      void *args[] = {const_cast<team_case *>(&c), const_cast<buffers *>(&b), &report};
      PE_CHECK(shmemx_collective_launch(reinterpret_cast<const void *>(&coll_kernel<kGrid>), dim3(kGridBlocks),
                                        dim3(threads), args, 0, stream) == 0,
               "shmemx_collective_launch of the grid-scope kernel failed");
    }
    CUDA_CHECK(cudaGetLastError());
    dog.await(stream);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  check_device_report(report, what);
}

}  // namespace

int main() {
  const int skip = gpu_skip_status("device_api_coll");
  if (skip != 0) return skip;
  shmem_init();
  if (device_state_ready("device_api_coll")) {
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > kMaxPes) {
      PE_FAIL("device_api_coll: at most %d PEs", kMaxPes);
      shmem_global_exit(1);
    }
    const size_t ints = kMaxPes * kN * 3 + 64;
    buffers b{};
    b.src = static_cast<int *>(shmem_malloc(ints * sizeof(int)));
    b.dst = static_cast<int *>(shmem_malloc(ints * sizeof(int)));
    b.usrc = static_cast<uint64_t *>(shmem_malloc(ints * sizeof(uint64_t)));
    b.udst = static_cast<uint64_t *>(shmem_malloc(ints * sizeof(uint64_t)));
    b.dsrc = static_cast<double *>(shmem_malloc(ints * sizeof(double)));
    b.ddst = static_cast<double *>(shmem_malloc(ints * sizeof(double)));
    b.ring = static_cast<int *>(shmem_malloc(sizeof(int)));
    device_report *report = new_device_report();
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaFuncAttributes attributes;  // load the kernels now, while no PE's kernel spins (device_api_wait.cu)
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, coll_kernel<kThread>));
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, coll_kernel<kWarp>));
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, coll_kernel<kBlock>));
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, coll_kernel<kGrid>));

    shmem_team_t copy = SHMEM_TEAM_INVALID, even = SHMEM_TEAM_INVALID;
    PE_CHECK(
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, nullptr, 0, &copy) == 0 && copy != SHMEM_TEAM_INVALID,
        "shmem_team_split_strided(WORLD, 0, 1, %d) failed", npes);
    const int evens = (npes + 1) / 2;
    PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, evens, nullptr, 0, &even) == 0,
             "shmem_team_split_strided(WORLD, 0, 2, %d) failed", evens);
    PE_CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "even team handle on PE %d", me);

    struct named {
      shmem_team_t team;
      const char *name;
      int stride, size;
    } teams[] = {{SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD", 1, npes},
                 {copy, "a split copy of the world", 1, npes},
                 {even, "the even PEs", 2, evens}};
    for (int scope = kThread; scope <= kGrid; ++scope)
      for (const named &t : teams) {
        device_sync_barrier();
        if (t.team == SHMEM_TEAM_INVALID) continue;
        team_case c{t.team, me / t.stride, t.size, (t.size - 1) * t.stride};
        run_scope(scope, c, b, report, stream, t.name);
      }
    device_sync_barrier();
    if (even != SHMEM_TEAM_INVALID) shmem_team_destroy(even);
    shmem_team_destroy(copy);
    CUDA_CHECK(cudaStreamDestroy(stream));
    CUDA_CHECK(cudaFree(report));
    shmem_free(b.ring);
    shmem_free(b.ddst);
    shmem_free(b.dsrc);
    shmem_free(b.udst);
    shmem_free(b.usrc);
    shmem_free(b.dst);
    shmem_free(b.src);
  }
  return pe_finish("device_api_coll");
}
