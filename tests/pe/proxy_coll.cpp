// The proxy's part of device collectives without a GPU (label emu): each PE's host thread plays its device code's
// group leader. It fills its symmetric source, syncs the PEs (as device code syncs the team before a reduction or
// after publishing a collect's count), posts one COLL request into a channel laid out as a GPU's
// (gpushmem/proxy_channel.h) and waits for it; this PE's proxy service executes it with the runtime's backend
// (runtime/proxy/proxy_coll.cpp), reaching the members on the other virtual host through UCX and the node's own
// through the shared heap. Then every PE checks its whole dest against what it computes from every PE's pattern.
//   - reductions of every element class and width the device has, every operator, counts below the team size
//     (members with an empty share), one piece and several (coll::rma_coll::kPieceBytes), in place (dest == source);
//   - collect with a count per PE, one of them 0, and one block larger than a piece;
//   - the same over a strided team (the odd PEs, one on each virtual host with 4 PEs);
//   - `pe_proxy_coll bad_team`: a request naming another PE as its member ends the job naming the proxy channel
//     and what is wrong, instead of reading or writing anything.
// With GPUSHMEM_TEST_HEAP_AGENT=1 every transfer to the other node goes through the target's memory agent, as
// to a GPU heap without GPUDirect.
#include <shmem.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "coll/rma_coll.hpp"
#include "gpushmem/proxy_producer.hpp"
#include "heap/internal_area.hpp"
#include "pe_check.h"
#include "proxy/proxy_coll.hpp"
#include "proxy/proxy_service.hpp"
#include "proxy/runtime_backend.hpp"
#include "proxy_host_mem.hpp"
#include "proxy_requests.hpp"
#include "state.hpp"
#include "transport.hpp"

namespace {

using gpushmem::test::HostChannel;
using gpushmem::test::issue;
using gpushmem::test::wait_completed;
namespace proxy = gpushmem::proxy;

constexpr size_t kMaxBytes = (size_t{5} << 20) + 64;  // each symmetric buffer

struct Team {
  int start, stride, size, index;  // index -1: this PE is not a member
  int pe(int i) const { return start + i * stride; }
};

uint64_t remote_of(const void *sym) {
  const char *base = gpushmem::rt().heap.base();
  return gpushmem_proxy_remote(static_cast<uint64_t>(static_cast<const char *>(sym) - base),
                               static_cast<uint32_t>(gpushmem::transport::Region::heap));
}

// What a group leader does: one COLL slot, waited for.
void post_coll(const gpushmem_proxy_channel_t &c, const Team &t, uint32_t kind, uint32_t elem, uint32_t op, void *dest,
               const void *source, uint64_t count, const uint64_t *count_word, const char *what) {
  gpushmem_proxy_slot_t s{};
  s.remote = remote_of(dest);
  s.local = remote_of(source);
  s.size_event = count;
  const uint64_t counts =
      count_word == nullptr ? 0 : gpushmem_proxy_remote_offset(remote_of(static_cast<const void *>(count_word)));
  s.signal = gpushmem_proxy_coll(counts, static_cast<uint32_t>(gpushmem::transport::Region::heap), kind, elem, op);
  s.value = gpushmem_proxy_pair(t.start, t.stride);
  s.compare = gpushmem_proxy_pair(t.size, t.index);
  wait_completed(c, issue(c, s, GPUSHMEM_PROXY_OP_COLL, 0, shmem_my_pe()) + 1, what, 60);
}

template <class T>
constexpr uint32_t elem_of() {
  const uint32_t cls = static_cast<T>(1) / static_cast<T>(2) != static_cast<T>(0) ? GPUSHMEM_PROXY_ELEM_FLOAT
                       : static_cast<T>(-1) < static_cast<T>(0)                   ? GPUSHMEM_PROXY_ELEM_SIGNED
                                                                                  : GPUSHMEM_PROXY_ELEM_UNSIGNED;
  return cls << 2 | (sizeof(T) == 1 ? 0u : sizeof(T) == 2 ? 1u : sizeof(T) == 4 ? 2u : 3u);
}

// Element k of PE pe's source for case salt: 1 to 3, or 65 to 67 at odd k, so a product over 4 PEs fits an
// int32_t (narrower types wrap the same way in the proxy and here: both compute in int and convert back).
template <class T>
T input(int pe, int salt, size_t k) {
  const unsigned v = static_cast<unsigned>(pe * 7 + salt * 13) + static_cast<unsigned>(k % 1009) * 5u;
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v % 3 + 1) * static_cast<T>(0.5);
  return static_cast<T>(v % 3 + 1 + (k % 2 == 0 ? 0 : 64 * (v % 2)));
}

template <class T>
T apply(uint32_t op, T a, T b) {
  switch (op) {
    case GPUSHMEM_PROXY_REDUCE_MIN:
      return b < a ? b : a;
    case GPUSHMEM_PROXY_REDUCE_MAX:
      return a < b ? b : a;
    case GPUSHMEM_PROXY_REDUCE_SUM:
      return static_cast<T>(a + b);
    case GPUSHMEM_PROXY_REDUCE_PROD:
      return static_cast<T>(a * b);
    default:
      break;
  }
  if constexpr (std::is_integral_v<T>) {
    if (op == GPUSHMEM_PROXY_REDUCE_AND) return static_cast<T>(a & b);
    if (op == GPUSHMEM_PROXY_REDUCE_OR) return static_cast<T>(a | b);
    return static_cast<T>(a ^ b);
  }
  return a;
}

const char *op_name(uint32_t op) {
  static const char *const names[] = {"and", "or", "xor", "min", "max", "sum", "prod"};
  return op < GPUSHMEM_PROXY_REDUCE_COUNT ? names[op] : "?";
}

struct Rig {
  const gpushmem_proxy_channel_t *c;
  Team team;
  char *a, *b;  // symmetric buffers of kMaxBytes
  uint64_t *count_word;
};

// One reduction on rig.team: every member checks every element of its dest. `in_place`: dest is source.
template <class T>
void reduce_case(const Rig &r, uint32_t op, size_t n, int salt, bool in_place) {
  const int me = shmem_my_pe();
  T *source = reinterpret_cast<T *>(r.a);
  T *dest = in_place ? source : reinterpret_cast<T *>(r.b);
  if (r.team.index >= 0) {
    for (size_t k = 0; k < n; ++k) source[k] = input<T>(me, salt, k);
    if (!in_place) std::memset(static_cast<void *>(dest), 0xa5, n * sizeof(T));
  }
  shmem_barrier_all();  // every member's source is ready (device code: the team sync before a reduction)
  if (r.team.index >= 0)
    post_coll(*r.c, r.team, GPUSHMEM_PROXY_COLL_REDUCE, elem_of<T>(), op, dest, source, n, nullptr, "a reduction");
  shmem_barrier_all();  // every member's share is stored (device code: quiet and team sync)
  for (size_t k = 0; r.team.index >= 0 && k < n; ++k) {
    T want = input<T>(r.team.pe(0), salt, k);
    for (int i = 1; i < r.team.size; ++i) want = apply<T>(op, want, input<T>(r.team.pe(i), salt, k));
    if (std::memcmp(&dest[k], &want, sizeof(T)) != 0) {
      PE_FAIL("reduce %s of %zu elements of %zu bytes (class %u)%s, team of %d: element %zu is %g, expected %g",
              op_name(op), n, sizeof(T), elem_of<T>() >> 2, in_place ? " in place" : "", r.team.size, k,
              static_cast<double>(dest[k]), static_cast<double>(want));
      break;
    }
  }
  shmem_barrier_all();  // nobody refills a source another member's proxy still reads
}

size_t collect_bytes(int pe, bool large) {
  if (pe == 1) return 0;
  return large && pe == 0 ? (size_t{1} << 20) + 333 : 700 * static_cast<size_t>(pe) + 13;
}

unsigned char fill(int pe, size_t k) {
  return static_cast<unsigned char>(pe * 41 + k * 7 + 3);
}

void check_collect(const Rig &r, bool large);

void collect_case(const Rig &r, bool large) {
  const int me = shmem_my_pe();
  const size_t mine = collect_bytes(me, large);
  if (r.team.index >= 0) {
    for (size_t k = 0; k < mine; ++k) r.a[k] = static_cast<char>(fill(me, k));
    std::memset(r.b, 0x5a, kMaxBytes);
    *r.count_word = mine;  // device code publishes its count in its internal area
  }
  shmem_barrier_all();  // every count is published (device code: the team sync after publishing)
  if (r.team.index >= 0)
    post_coll(*r.c, r.team, GPUSHMEM_PROXY_COLL_COLLECT, 0, 0, r.b, r.a, mine, r.count_word, "a collect");
  shmem_barrier_all();
  if (r.team.index >= 0) check_collect(r, large);
  shmem_barrier_all();
}

void check_collect(const Rig &r, bool large) {
  size_t at = 0;
  for (int i = 0; i < r.team.size; ++i) {
    const int pe = r.team.pe(i);
    for (size_t k = 0; k < collect_bytes(pe, large); ++k)
      if (static_cast<unsigned char>(r.b[at + k]) != fill(pe, k)) {
        PE_FAIL("collect%s, team of %d: byte %zu of member %d's block (at %zu) is %u, expected %u",
                large ? " (large)" : "", r.team.size, k, i, at, static_cast<unsigned char>(r.b[at + k]), fill(pe, k));
        return;
      }
    at += collect_bytes(pe, large);
  }
  if (static_cast<unsigned char>(r.b[at]) != 0x5a)
    PE_FAIL("collect%s: the byte after the last block was written (%u)", large ? " (large)" : "",
            static_cast<unsigned char>(r.b[at]));
}

void run_cases(const Rig &r) {
  const size_t piece_floats = gpushmem::coll::rma_coll::kPieceBytes / sizeof(float);
  const size_t counts[] = {1, 3, 1000, piece_floats * 2 + 17};
  int salt = 0;
  for (size_t n : counts) {
    ++salt;
    reduce_case<int64_t>(r, GPUSHMEM_PROXY_REDUCE_SUM, n, salt, false);
    reduce_case<float>(r, GPUSHMEM_PROXY_REDUCE_SUM, n, salt, false);
  }
  for (uint32_t op = 0; op < GPUSHMEM_PROXY_REDUCE_COUNT; ++op) {
    ++salt;
    reduce_case<int8_t>(r, op, 101, salt, false);
    reduce_case<uint16_t>(r, op, 77, salt, false);
    reduce_case<int32_t>(r, op, 1000, salt, op % 2 == 0);
    reduce_case<uint64_t>(r, op, 5, salt, false);
    if (op >= GPUSHMEM_PROXY_REDUCE_MIN) {
      reduce_case<double>(r, op, 333, salt, op == GPUSHMEM_PROXY_REDUCE_PROD);
      reduce_case<float>(r, op, 9, salt, false);
    }
    reduce_case<uint8_t>(r, op, 64, salt, false);
    reduce_case<int16_t>(r, op, 2, salt, false);
    reduce_case<uint32_t>(r, op, 31, salt, false);
    reduce_case<int64_t>(r, op, 12, salt, true);
  }
  collect_case(r, false);
  collect_case(r, true);
}

}  // namespace

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  if (npes < 2) {
    PE_FAIL("run with 2 PEs or more (got %d)", npes);
    return pe_finish("proxy_coll");
  }
  char *a = static_cast<char *>(shmem_malloc(kMaxBytes));
  char *b = static_cast<char *>(shmem_malloc(kMaxBytes));
  // The count word in the heap's runtime area, as device code's is in its GPU heap's (the last word, which the host
  // runtime does not use): the proxy reads it where the host API's symmetric-address checks would refuse it.
  static_assert(sizeof(gpushmem::heap::InternalArea) <= gpushmem::heap::kInternalAreaBytes - sizeof(uint64_t));
  auto *count_word =
      reinterpret_cast<uint64_t *>(gpushmem::rt().heap.base() + gpushmem::heap::kInternalAreaBytes - sizeof(uint64_t));
  PE_CHECK(a != nullptr && b != nullptr, "shmem_malloc failed");

  HostChannel ring(64);
  gpushmem::test::RuntimeProxy runtime_proxy({&ring.c}, 20000000000ull);

  if (argc > 1 && std::strcmp(argv[1], "bad_team") == 0) {
    // This PE names itself member 1 of the world team: its proxy refuses the request and ends the job.
    const Team wrong{0, 1, npes, me == 0 ? 1 : 0};
    shmem_barrier_all();
    post_coll(ring.c, wrong, GPUSHMEM_PROXY_COLL_REDUCE, elem_of<int>(), GPUSHMEM_PROXY_REDUCE_SUM, b, a, 4, nullptr,
              "a malformed reduction");
    PE_FAIL("the malformed request completed");
    return pe_finish("proxy_coll bad_team");
  }

  Rig world{&ring.c, Team{0, 1, npes, me}, a, b, count_word};
  run_cases(world);
  // The odd PEs (with 4 PEs on 2 virtual hosts, one on each), members by a stride of 2.
  Rig odd = world;
  odd.team = Team{1, 2, npes / 2, me % 2 == 1 ? me / 2 : -1};
  if (npes >= 4) run_cases(odd);

  shmem_barrier_all();
  runtime_proxy.service.stop();
  shmem_free(b);
  shmem_free(a);
  return pe_finish("proxy_coll");
}
