// The team collectives on a stream (include/gpushmem/stream.h) with data checks, on SHMEM_TEAM_WORLD and on the PEs
// 1 .. n-1 (a split team whose indices differ from the world's; PE 0 sits it out), with 13-byte and 100003-byte
// blocks (an alltoall of the latter moves n x 100003 bytes from each PE: a launch of several blocks):
//   broadcastmem (root: step % members) and shmemx_short_broadcast_on_stream,
//   fcollectmem and shmemx_long_fcollect_on_stream,
//   collectmem (member j brings size + j bytes),
//   alltoallmem and shmemx_int_alltoall_on_stream,
//   alltoallsmem (dst 3, sst 2) and shmemx_int_alltoalls_on_stream (dst 2, sst 3),
//   shmemx_int_sum_reduce_on_stream and shmemx_double_max_reduce_on_stream on the team (every type and operator on
//   the world: device_reduce_types),
//   shmemx_team_sync_on_stream,
// then an alltoall and a reduction captured into a CUDA graph and launched three times with new data. Each step:
// sources uploaded and dests poisoned, a host barrier (every member's dest is ready), the call, the stream
// synchronised, every byte of dest checked, a host barrier (nobody writes a dest its owner still reads). On two
// virtual hosts (gpu-vhost) every member but this PE is reached through the CPU proxy.
#include <cstring>
#include <vector>

#include "stream_util.cuh"

namespace {

constexpr size_t kMaxBlock = 100003;
constexpr int kMaxPes = 8;

struct team_view {
  shmem_team_t team;
  const char *name;
  int first;  // world PE of member 0 (the members are consecutive)
  int size;
  int me;  // this PE's index, -1 outside
  int world(int index) const { return first + index; }
};

struct bufs {
  unsigned char *src, *dst;  // symmetric, kMaxPes * 3 * kMaxBlock + 64 bytes each
  size_t bytes;
  cudaStream_t stream;
};

unsigned char pattern(int writer, int step, size_t k) {
  return stream_pattern(writer, step, k);
}

// Uploads host bytes into this PE's src, poisons its dst, then the host barrier that makes every member's dest
// ready and every source complete before anyone's collective starts.
void prepare(const bufs &b, const std::vector<unsigned char> &src) {
  if (!src.empty()) stream_upload(b.src, src.data(), src.size());
  STREAM_CUDA_OK(cudaMemset(b.dst, 0xee, b.bytes));
  STREAM_CUDA_OK(cudaDeviceSynchronize());
  shmem_barrier_all();
}

// Waits for the stream, checks `want` against dest's first bytes, then the barrier after which dests may be
// rewritten.
void verify(const bufs &b, const char *what, const std::vector<unsigned char> &want) {
  STREAM_CUDA_OK(cudaStreamSynchronize(b.stream));
  std::vector<unsigned char> got(want.size());
  STREAM_CUDA_OK(cudaMemcpy(got.data(), b.dst, got.size(), cudaMemcpyDefault));
  long bad = 0;
  for (size_t k = 0; k < want.size(); ++k)
    if (got[k] != want[k] && bad++ < 3) PE_FAIL("%s: byte %zu: expected 0x%02x, got 0x%02x", what, k, want[k], got[k]);
  if (bad > 3) PE_FAIL("%s: %ld of %zu bytes differ", what, bad, want.size());
}

void done() {
  STREAM_CUDA_OK(cudaDeviceSynchronize());
  shmem_barrier_all();
}

// One of each collective on team `t` with blocks of `size` bytes; `step` makes the patterns new.
void run_team(const bufs &b, const team_view &t, size_t size, int step) {
  const bool in = t.me >= 0;
  const int me_world = shmem_my_pe(), n = t.size;
  char what[192];
  const auto label = [&](const char *call) {
    std::snprintf(what, sizeof what, "%s on %s, %zu-byte blocks, step %d", call, t.name, size, step);
    return what;
  };

  {  // broadcastmem
    const int root = step % n;
    std::vector<unsigned char> src(size), want(size);
    for (size_t k = 0; k < size; ++k) {
      src[k] = pattern(me_world, step, k);
      want[k] = pattern(t.world(root), step, k);
    }
    prepare(b, src);
    if (in) {
      PE_CHECK(shmemx_broadcastmem_on_stream(t.team, b.dst, b.src, size, root, b.stream) == 0, "broadcastmem rc");
      verify(b, label("shmemx_broadcastmem_on_stream"), want);
    }
    done();
  }
  {  // typed broadcast of shorts
    const size_t count = size / sizeof(short), bytes = count * sizeof(short);
    const int root = (step + 1) % n;
    std::vector<unsigned char> src(bytes), want(bytes);
    for (size_t k = 0; k < bytes; ++k) {
      src[k] = pattern(me_world, step + 1, k);
      want[k] = pattern(t.world(root), step + 1, k);
    }
    prepare(b, src);
    if (in) {
      PE_CHECK(shmemx_short_broadcast_on_stream(t.team, reinterpret_cast<short *>(b.dst),
                                                reinterpret_cast<const short *>(b.src), count, root, b.stream) == 0,
               "short_broadcast rc");
      verify(b, label("shmemx_short_broadcast_on_stream"), want);
    }
    done();
  }
  {  // fcollectmem and the typed fcollect of longs
    for (int typed = 0; typed < 2; ++typed) {
      const size_t count = typed ? size / sizeof(long) : size, bytes = typed ? count * sizeof(long) : size;
      std::vector<unsigned char> src(bytes), want(bytes * n);
      for (size_t k = 0; k < bytes; ++k) src[k] = pattern(me_world, step + typed, k);
      for (int j = 0; j < n; ++j)
        for (size_t k = 0; k < bytes; ++k) want[j * bytes + k] = pattern(t.world(j), step + typed, k);
      prepare(b, src);
      if (in) {
        const int rc = typed ? shmemx_long_fcollect_on_stream(t.team, reinterpret_cast<long *>(b.dst),
                                                              reinterpret_cast<const long *>(b.src), count, b.stream)
                             : shmemx_fcollectmem_on_stream(t.team, b.dst, b.src, bytes, b.stream);
        PE_CHECK(rc == 0, "fcollect rc %d", rc);
        verify(b, label(typed ? "shmemx_long_fcollect_on_stream" : "shmemx_fcollectmem_on_stream"), want);
      }
      done();
    }
  }
  {  // collectmem: member j brings size + j bytes
    const size_t mine = in ? size + static_cast<size_t>(t.me) : 0;
    std::vector<unsigned char> src(mine), want;
    for (size_t k = 0; k < mine; ++k) src[k] = pattern(me_world, step, k);
    for (int j = 0; j < n; ++j)
      for (size_t k = 0; k < size + static_cast<size_t>(j); ++k) want.push_back(pattern(t.world(j), step, k));
    prepare(b, src);
    if (in) {
      PE_CHECK(shmemx_collectmem_on_stream(t.team, b.dst, b.src, mine, b.stream) == 0, "collectmem rc");
      verify(b, label("shmemx_collectmem_on_stream"), want);
    }
    done();
  }
  {  // alltoallmem and the typed alltoall of ints: block j of my source goes to member j
    for (int typed = 0; typed < 2; ++typed) {
      const size_t count = typed ? size / sizeof(int) : size, bytes = typed ? count * sizeof(int) : size;
      std::vector<unsigned char> src(bytes * n), want(bytes * n);
      for (int j = 0; j < n; ++j)
        for (size_t k = 0; k < bytes; ++k) {
          src[j * bytes + k] = pattern(me_world * 8 + j, step + typed, k);
          if (in) want[j * bytes + k] = pattern(t.world(j) * 8 + t.me, step + typed, k);
        }
      prepare(b, src);
      if (in) {
        const int rc = typed ? shmemx_int_alltoall_on_stream(t.team, reinterpret_cast<int *>(b.dst),
                                                             reinterpret_cast<const int *>(b.src), count, b.stream)
                             : shmemx_alltoallmem_on_stream(t.team, b.dst, b.src, bytes, b.stream);
        PE_CHECK(rc == 0, "alltoall rc %d", rc);
        verify(b, label(typed ? "shmemx_int_alltoall_on_stream" : "shmemx_alltoallmem_on_stream"), want);
      }
      done();
    }
  }
  {  // alltoalls: bytes (dst 3, sst 2) and ints (dst 2, sst 3); elements between the strided ones keep the poison
    for (int typed = 0; typed < 2; ++typed) {
      const size_t elem = typed ? sizeof(int) : 1, dst = typed ? 2 : 3, sst = typed ? 3 : 2;
      const size_t ne = size / elem / 3;  // elements per pair: the strided spans fit the buffers
      std::vector<unsigned char> src(sst * ne * n * elem, 0x5a), want(dst * ne * n * elem, 0xee);
      for (int j = 0; j < n; ++j)
        for (size_t e = 0; e < ne; ++e)
          for (size_t k = 0; k < elem; ++k) {
            src[((j * ne + e) * sst) * elem + k] = pattern(me_world * 8 + j, step, e * elem + k);
            if (in) want[((j * ne + e) * dst) * elem + k] = pattern(t.world(j) * 8 + t.me, step, e * elem + k);
          }
      prepare(b, src);
      if (in) {
        const int rc = typed ? shmemx_int_alltoalls_on_stream(t.team, reinterpret_cast<int *>(b.dst),
                                                              reinterpret_cast<const int *>(b.src), 2, 3, ne, b.stream)
                             : shmemx_alltoallsmem_on_stream(t.team, b.dst, b.src, 3, 2, ne, b.stream);
        PE_CHECK(rc == 0, "alltoalls rc %d", rc);
        verify(b, label(typed ? "shmemx_int_alltoalls_on_stream" : "shmemx_alltoallsmem_on_stream"), want);
      }
      done();
    }
  }
  {  // reductions on the team: int sum (in place on odd steps) and double max
    const size_t count = size / sizeof(int);
    std::vector<int> src(count), want(count);
    for (size_t i = 0; i < count; ++i) {
      src[i] = static_cast<int>(i % 1000) * (in ? t.me + 1 : 0) - step;
      want[i] = static_cast<int>(i % 1000) * n * (n + 1) / 2 - n * step;
    }
    std::vector<unsigned char> src_bytes(count * sizeof(int)), want_bytes(count * sizeof(int));
    std::memcpy(src_bytes.data(), src.data(), src_bytes.size());
    std::memcpy(want_bytes.data(), want.data(), want_bytes.size());
    const bool in_place = step % 2 == 1;
    prepare(b, src_bytes);
    if (in) {
      int *d = reinterpret_cast<int *>(in_place ? b.src : b.dst), *s = reinterpret_cast<int *>(b.src);
      PE_CHECK(shmemx_int_sum_reduce_on_stream(t.team, d, s, count, b.stream) == 0, "int_sum_reduce rc");
      if (in_place) STREAM_CUDA_OK(cudaMemcpyAsync(b.dst, b.src, count * sizeof(int), cudaMemcpyDefault, b.stream));
      verify(b, label(in_place ? "shmemx_int_sum_reduce_on_stream in place" : "shmemx_int_sum_reduce_on_stream"),
             want_bytes);
    }
    done();

    const size_t dcount = size / sizeof(double);
    std::vector<double> dsrc(dcount), dwant(dcount);
    for (size_t i = 0; i < dcount; ++i) {
      dsrc[i] = 0.5 * static_cast<double>((i * 7 + static_cast<size_t>(in ? t.me : 0) * 13) % 101);
      double m = 0;
      for (int j = 0; j < n; ++j) {
        const double v = 0.5 * static_cast<double>((i * 7 + static_cast<size_t>(j) * 13) % 101);
        m = j == 0 || v > m ? v : m;
      }
      dwant[i] = m;
    }
    std::vector<unsigned char> ds(dcount * sizeof(double)), dw(dcount * sizeof(double));
    std::memcpy(ds.data(), dsrc.data(), ds.size());
    std::memcpy(dw.data(), dwant.data(), dw.size());
    prepare(b, ds);
    if (in) {
      PE_CHECK(shmemx_double_max_reduce_on_stream(t.team, reinterpret_cast<double *>(b.dst),
                                                  reinterpret_cast<const double *>(b.src), dcount, b.stream) == 0,
               "double_max_reduce rc");
      verify(b, label("shmemx_double_max_reduce_on_stream"), dw);
    }
    done();
  }
  if (in) {  // team sync: every member's stream passes it
    PE_CHECK(shmemx_team_sync_on_stream(t.team, b.stream) == 0, "team_sync rc");
    STREAM_CUDA_OK(cudaStreamSynchronize(b.stream));
  }
  done();
}

// An alltoall and a sum reduction on the world, captured once and launched three times with new sources.
void run_graph(const bufs &b) {
  const int me = shmem_my_pe(), n = shmem_n_pes();
  const size_t bytes = 4099, count = 1000;
  // The reduction's buffers after the alltoall's, on a 16-byte boundary (the vector path).
  int *sum_src = reinterpret_cast<int *>(b.src + bytes * n + 64);
  int *sum_dst = reinterpret_cast<int *>(b.dst + bytes * n + 64);
  sum_src = reinterpret_cast<int *>(reinterpret_cast<uintptr_t>(sum_src) & ~uintptr_t{15});
  sum_dst = reinterpret_cast<int *>(reinterpret_cast<uintptr_t>(sum_dst) & ~uintptr_t{15});
  cudaGraph_t graph = nullptr;
  STREAM_CUDA_OK(cudaStreamBeginCapture(b.stream, cudaStreamCaptureModeGlobal));
  PE_CHECK(shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, b.dst, b.src, bytes, b.stream) == 0, "captured alltoall");
  PE_CHECK(shmemx_int_sum_reduce_on_stream(SHMEM_TEAM_WORLD, sum_dst, sum_src, count, b.stream) == 0,
           "captured reduce");
  STREAM_CUDA_OK(cudaStreamEndCapture(b.stream, &graph));
  cudaGraphExec_t exec = nullptr;
  STREAM_CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 3; ++launch) {
    const int step = 40 + launch;
    std::vector<unsigned char> src(bytes * n), want(bytes * n);
    for (int j = 0; j < n; ++j)
      for (size_t k = 0; k < bytes; ++k) {
        src[j * bytes + k] = pattern(me * 8 + j, step, k);
        want[j * bytes + k] = pattern(j * 8 + me, step, k);
      }
    std::vector<int> ints(count);
    for (size_t i = 0; i < count; ++i) ints[i] = static_cast<int>(i) + me * launch;
    stream_upload(b.src, src.data(), src.size());
    stream_upload(sum_src, ints.data(), count * sizeof(int));
    STREAM_CUDA_OK(cudaMemset(b.dst, 0xee, b.bytes));
    STREAM_CUDA_OK(cudaDeviceSynchronize());
    shmem_barrier_all();
    STREAM_CUDA_OK(cudaGraphLaunch(exec, b.stream));
    STREAM_CUDA_OK(cudaStreamSynchronize(b.stream));
    char what[96];
    std::snprintf(what, sizeof what, "the captured alltoallmem, launch %d", launch);
    std::vector<unsigned char> got(bytes * n);
    STREAM_CUDA_OK(cudaMemcpy(got.data(), b.dst, got.size(), cudaMemcpyDefault));
    PE_CHECK(std::memcmp(got.data(), want.data(), got.size()) == 0, "%s: dest differs", what);
    std::vector<int> sums(count);
    STREAM_CUDA_OK(cudaMemcpy(sums.data(), sum_dst, count * sizeof(int), cudaMemcpyDefault));
    for (size_t i = 0; i < count; ++i) {
      const int want_sum = n * static_cast<int>(i) + launch * n * (n - 1) / 2;
      if (sums[i] != want_sum) {
        PE_FAIL("the captured int_sum_reduce, launch %d: element %zu: expected %d, got %d", launch, i, want_sum,
                sums[i]);
        break;
      }
    }
    shmem_barrier_all();
  }
  STREAM_CUDA_OK(cudaGraphExecDestroy(exec));
  STREAM_CUDA_OK(cudaGraphDestroy(graph));
}

}  // namespace

int main() {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (npes > kMaxPes) {
    PE_FAIL("stream_coll: at most %d PEs", kMaxPes);
    shmem_global_exit(1);
  }
  bufs b{};
  b.bytes = kMaxPes * 3 * kMaxBlock + 64;
  b.src = static_cast<unsigned char *>(shmem_malloc(b.bytes));
  b.dst = static_cast<unsigned char *>(shmem_malloc(b.bytes));
  PE_CHECK(b.src != nullptr && b.dst != nullptr, "shmem_malloc failed");
  if (b.src == nullptr || b.dst == nullptr || !stream_gpu_mode(b.dst, (me + 1) % npes)) return pe_finish("stream_coll");
  STREAM_CUDA_OK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));

  shmem_team_t upper = SHMEM_TEAM_INVALID;
  const int upper_size = npes > 1 ? npes - 1 : 1;
  PE_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 1, upper_size, nullptr, 0, &upper) == 0,
           "shmem_team_split_strided(WORLD, 1, 1, %d) failed", upper_size);
  const int upper_first = npes > 1 ? 1 : 0;
  const team_view teams[] = {
      {SHMEM_TEAM_WORLD, "SHMEM_TEAM_WORLD", 0, npes, me},
      {upper, "the PEs 1 .. n-1", upper_first, upper_size, upper != SHMEM_TEAM_INVALID ? me - upper_first : -1}};
  int step = 1;
  for (const team_view &t : teams)
    for (size_t size : {size_t{13}, kMaxBlock}) run_team(b, t, size, step++);
  run_graph(b);

  done();
  if (upper != SHMEM_TEAM_INVALID) shmem_team_destroy(upper);
  STREAM_CUDA_OK(cudaStreamDestroy(b.stream));
  shmem_free(b.dst);
  shmem_free(b.src);
  return pe_finish("stream_coll");
}
