/*
 * The CPU proxy's channels: how a GPU thread hands a network operation to the proxy thread of its PE. One
 * definition, included by the host compiler (the proxy and the runtime) and by nvcc (the device producer),
 * with its layout pinned by static assertions on both sides. design.md §4 (CPU proxy), transports-notes.md
 * §11.4.
 *
 * A channel is a ring of `capacity` (a power of two) 64-byte request slots in pinned host memory that the
 * GPU maps, plus a few words:
 *   head        device memory. Producers reserve slot indices with an atomic add on it (a warp's lanes
 *               together: one add of n). Monotonic 64-bit; slot index i lives at ring[i % capacity].
 *   tail_cache  device memory. The producers' last view of `tail` (raised with an atomic max).
 *   tail        host memory (the control block). The proxy's count of slots it consumed: slot i may be
 *               rewritten once tail > i. Producers read it over PCIe only when head - tail_cache reaches
 *               the high-water mark.
 *   completed   host memory. How many of the channel's requests, in slot order, are complete (a put's
 *               source reusable and its data on the way in order; a get's data delivered; a fetching AMO's
 *               value written). Quiet and event waits compare it with slot indices.
 *   help        host memory. A producer that found the ring above its high-water mark raises it: the
 *               proxy stops napping and drains this channel in batches until it is below again.
 *
 * Publishing a slot: the producer writes words 1..7, then word 0 (the header) with a system-scope release.
 * The header carries the low 32 bits of the slot's index (`seq`), so the proxy accepts slot i only when the
 * header at ring[i % capacity] says seq == (uint32_t)i: no zeroing between laps, no ABA, and a torn or stale
 * slot is never taken. The proxy copies a slot out before it raises `tail` past it.
 *
 * Slot states (diagnosis, never flow control: the GPU does not read host memory on its fast path):
 *   FREE -> WRITTEN (the producer's header) -> CONSUMED (the proxy handed it to the backend) -> COMPLETED.
 * The ring holds the producer's part (a slot whose header seq is i is WRITTEN); CONSUMED and COMPLETED
 * live in the proxy's own record of the requests it has in flight, because once tail passes a slot the
 * producer may already be rewriting it. The watchdog reads both.
 */
#ifndef GPUSHMEM_PROXY_CHANNEL_H
#define GPUSHMEM_PROXY_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define GPUSHMEM_PROXY_SLOT_BYTES 64
#define GPUSHMEM_PROXY_DEFAULT_CAPACITY 4096u /* slots per channel: 256 KiB */
/* Bytes of pinned host memory that go with each slot position (the bounce area, see below). */
#define GPUSHMEM_PROXY_BOUNCE_BYTES 256u

/* What a slot asks for. */
enum gpushmem_proxy_op {
  GPUSHMEM_PROXY_OP_NOP = 0,        /* nothing (a producer that reserved more than it used, tests) */
  GPUSHMEM_PROXY_OP_PUT = 1,        /* size bytes from local to remote */
  GPUSHMEM_PROXY_OP_GET = 2,        /* size bytes from remote to local */
  GPUSHMEM_PROXY_OP_PUT_SIGNAL = 3, /* PUT, then the signal word updated after the payload */
  GPUSHMEM_PROXY_OP_SIGNAL = 4,     /* the signal word alone (after earlier ops of the channel) */
  GPUSHMEM_PROXY_OP_AMO = 5,        /* amo_op on a size-byte word at remote, operand (and compare) */
  GPUSHMEM_PROXY_OP_AMO_FETCH = 6,  /* the same, the old value written to local */
  GPUSHMEM_PROXY_OP_FENCE = 7,      /* order the channel's earlier ops to pe before its later ones */
  GPUSHMEM_PROXY_OP_QUIET = 8,      /* complete every earlier op of the channel (completed then passes it) */
  GPUSHMEM_PROXY_OP_COLL = 9,       /* this PE's part of a team collective, executed by the proxy (below) */
  GPUSHMEM_PROXY_OP_COUNT = 10
};

/*
 * A COLL slot: this PE's part of a device team collective whose team has a member device code cannot map. Every
 * member's device code syncs the team first (each source is ready), then each member's group posts one COLL and
 * waits for it; its proxy reaches every member with the host API's RMA (mapped members through their mapping,
 * the others through the network and their memory agents) and completes it once its stores are complete at their
 * targets; the device code then ends the collective as over P2P (quiet, team sync).
 *   REDUCE   member m combines its share of the elements (the m-th of `size` near-equal slices, as device
 *            code over P2P does) from every member's source, in team order, and stores it into every
 *            member's dest: shares are disjoint, so dest may be source;
 *   COLLECT  member m reads the byte counts members 0 .. m-1 published in their count words, and stores its
 *            `count` bytes of source at their sum in every member's dest.
 * Words: remote = dest (offset | region), local = source (offset | region), size_event = the element count
 * (REDUCE) or byte count (COLLECT), all 64 bits, signal = the count word (offset | region, COLLECT) and the
 * kind, element type and operator (gpushmem_proxy_coll), value = team start (low 32) | stride (high 32, both
 * signed), compare = team size (low 32) | my index (high 32). The header's pe is the posting PE.
 */
enum gpushmem_proxy_coll_kind { GPUSHMEM_PROXY_COLL_REDUCE = 0, GPUSHMEM_PROXY_COLL_COLLECT = 1 };
/* A reduction's element type: class << 2 | log2(bytes); classes signed (0), unsigned (1), floating (2). */
enum gpushmem_proxy_elem_class {
  GPUSHMEM_PROXY_ELEM_SIGNED = 0,
  GPUSHMEM_PROXY_ELEM_UNSIGNED = 1,
  GPUSHMEM_PROXY_ELEM_FLOAT = 2
};
/* A reduction's operator, by the specification's names. */
enum gpushmem_proxy_reduce_op {
  GPUSHMEM_PROXY_REDUCE_AND = 0,
  GPUSHMEM_PROXY_REDUCE_OR = 1,
  GPUSHMEM_PROXY_REDUCE_XOR = 2,
  GPUSHMEM_PROXY_REDUCE_MIN = 3,
  GPUSHMEM_PROXY_REDUCE_MAX = 4,
  GPUSHMEM_PROXY_REDUCE_SUM = 5,
  GPUSHMEM_PROXY_REDUCE_PROD = 6,
  GPUSHMEM_PROXY_REDUCE_COUNT = 7
};

/* The atomic of an AMO / AMO_FETCH slot (word 4's high byte), and the signal update of a SIGNAL slot
   (STORE: set, ADD: add). */
enum gpushmem_proxy_amo {
  GPUSHMEM_PROXY_AMO_LOAD = 0, /* fetch only */
  GPUSHMEM_PROXY_AMO_STORE = 1,
  GPUSHMEM_PROXY_AMO_SWAP = 2,
  GPUSHMEM_PROXY_AMO_CSWAP = 3, /* word 6 holds the compare value */
  GPUSHMEM_PROXY_AMO_ADD = 4,
  GPUSHMEM_PROXY_AMO_AND = 5,
  GPUSHMEM_PROXY_AMO_OR = 6,
  GPUSHMEM_PROXY_AMO_XOR = 7,
  GPUSHMEM_PROXY_AMO_COUNT = 8
};

/* The three diagnostic states after FREE (see above). */
enum gpushmem_proxy_state {
  GPUSHMEM_PROXY_FREE = 0,
  GPUSHMEM_PROXY_WRITTEN = 1,
  GPUSHMEM_PROXY_CONSUMED = 2,
  GPUSHMEM_PROXY_COMPLETED = 3
};

/* Header flags. */
#define GPUSHMEM_PROXY_FLAG_NBI 0x01u       /* the producer does not wait for completion */
#define GPUSHMEM_PROXY_FLAG_INLINE 0x02u    /* the payload (<= 8 bytes) is in word 6 instead of at local */
#define GPUSHMEM_PROXY_FLAG_EVENT 0x04u     /* event_slot names an event word to bump on completion */
#define GPUSHMEM_PROXY_FLAG_SIG_ADD 0x08u   /* the signal is added, not set */
#define GPUSHMEM_PROXY_FLAG_LOCAL_GPU 0x10u /* local is a GPU address (staged), not host memory */

/* One request: 64 bytes, one cache line, eight 64-bit words. */
typedef struct gpushmem_proxy_slot {
  uint64_t header;     /* word 0, written last: seq:32 | state:2 | op:6 | flags:8 | pe:16 (bit 0 = seq's) */
  uint64_t remote;     /* word 1: offset in the target's region (48 bits) | region id (16, high bits) */
  uint64_t local;      /* word 2: the local address (host pointer, or a GPU address with FLAG_LOCAL_GPU) */
  uint64_t size_event; /* word 3: size in bytes (32, low) | event slot (32, high) */
  uint64_t signal;     /* word 4: signal offset (48) | signal region id (8) | amo op (8, high) */
  uint64_t value;      /* word 5: the signal value, or the AMO operand */
  uint64_t compare;    /* word 6: the compare-and-swap compare value, or an inline payload */
  uint64_t cookie;     /* word 7: who and when: smid:8 | warp:8 | cta:16 | issue time low 32 bits (ns) */
} gpushmem_proxy_slot_t;

/* The host-side words of a channel, each on a cache line of its own (the proxy writes tail and completed,
   producers write help). */
typedef struct gpushmem_proxy_control {
  uint64_t tail;
  uint64_t pad0[7];
  uint64_t completed;
  uint64_t pad1[7];
  uint64_t help;
  uint64_t pad2[7];
} gpushmem_proxy_control_t;

/* The device-memory words of a channel. */
typedef struct gpushmem_proxy_device_words {
  uint64_t head;
  uint64_t tail_cache;
  uint64_t completed_cache; /* the producers' last view of control->completed (raised with an atomic max) */
  uint64_t quieted;         /* head when the last device quiet of this channel completed (skip it if unchanged) */
  uint64_t poller;          /* 1 while a producer waiting for room reads control->tail for all (0 otherwise) */
} gpushmem_proxy_device_words_t;

/* What device code needs of one channel (in the device state's channel table). */
typedef struct gpushmem_proxy_channel {
  gpushmem_proxy_slot_t *ring;          /* capacity slots, host memory mapped into the GPU */
  gpushmem_proxy_control_t *control;    /* host memory mapped into the GPU */
  gpushmem_proxy_device_words_t *words; /* device memory (host memory in host-only tests) */
  uint32_t capacity;                    /* a power of two */
  uint32_t high_water;                  /* slots in flight above which a producer reads tail (3/4 capacity) */
  /* The bounce area (NULL in the ring-only tests): GPUSHMEM_PROXY_BOUNCE_BYTES of pinned host memory per slot
     position, at bounce + (index % capacity) * GPUSHMEM_PROXY_BOUNCE_BYTES. A small put's payload is copied
     there by the producer's threads (so the network sends from host memory without a staging copy, and a
     source in shared memory works), and a small get's data or a fetching AMO's old value is delivered there
     for the producer to copy out. Rules, so that no lap overwrites what another still needs:
       - before writing position p for index i, a producer waits until completed > i - capacity (the
         previous lap's put has been sent) and owner[p] == 0 (no reader holds it);
       - a get or fetching AMO owns its position (owner[p] = i + 1, set with a compare-and-swap from 0) from
         before it publishes until it has copied its data out. */
  uint8_t *bounce; /* host memory mapped into the GPU: capacity * GPUSHMEM_PROXY_BOUNCE_BYTES */
  uint64_t *owner; /* device memory: capacity words, 0 or the owning index + 1 */
} gpushmem_proxy_channel_t;

#define GPUSHMEM_PROXY_SEQ_BITS 32
#define GPUSHMEM_PROXY_OFFSET_BITS 48

#if defined(__CUDACC__)
#define GPUSHMEM_PROXY_INLINE static inline constexpr __host__ __device__
#elif defined(__cplusplus)
#define GPUSHMEM_PROXY_INLINE static inline constexpr
#else
#define GPUSHMEM_PROXY_INLINE static inline
#endif

/* Header packing, the one place the bit positions are written. */
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_header(uint64_t index, uint32_t op, uint32_t flags, uint32_t pe) {
  return (index & 0xffffffffull) | ((uint64_t)GPUSHMEM_PROXY_WRITTEN << 32) | ((uint64_t)(op & 0x3fu) << 34) |
         ((uint64_t)(flags & 0xffu) << 40) | ((uint64_t)(pe & 0xffffu) << 48);
}
/* What a ring slot holds before its first use: the header of the index one lap before the first one the
   proxy expects there (state FREE), which never matches that index's seq. Slot position p of a channel whose
   tail starts at `start` first receives index i0 = the smallest index >= start with i0 % capacity == p. */
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_free_header(uint64_t start, uint32_t capacity, uint32_t p) {
  return ((start + (((uint64_t)p - start) & (uint64_t)(capacity - 1)) - capacity) & 0xffffffffull);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_header_seq(uint64_t h) {
  return (uint32_t)(h & 0xffffffffull);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_header_state(uint64_t h) {
  return (uint32_t)((h >> 32) & 0x3u);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_header_op(uint64_t h) {
  return (uint32_t)((h >> 34) & 0x3fu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_header_flags(uint64_t h) {
  return (uint32_t)((h >> 40) & 0xffu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_header_pe(uint64_t h) {
  return (uint32_t)(h >> 48);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_remote(uint64_t offset, uint32_t region) {
  return (offset & ((1ull << GPUSHMEM_PROXY_OFFSET_BITS) - 1)) | ((uint64_t)(region & 0xffffu) << 48);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_remote_offset(uint64_t w) {
  return w & ((1ull << GPUSHMEM_PROXY_OFFSET_BITS) - 1);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_remote_region(uint64_t w) {
  return (uint32_t)(w >> 48);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_signal_region(uint64_t w) {
  return (uint32_t)((w >> 48) & 0xffu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_signal_amo(uint64_t w) {
  return (uint32_t)(w >> 56);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_size_event(uint32_t size, uint32_t event_slot) {
  return (uint64_t)size | ((uint64_t)event_slot << 32);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_signal(uint64_t offset, uint32_t region, uint32_t amo_op) {
  return (offset & ((1ull << GPUSHMEM_PROXY_OFFSET_BITS) - 1)) | ((uint64_t)(region & 0xffu) << 48) |
         ((uint64_t)(amo_op & 0xffu) << 56);
}
/* A COLL slot's signal word: the count word (offset 40 bits | region 8) | kind:4 | elem:4 | op:8 (high). */
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_coll(uint64_t offset, uint32_t region, uint32_t kind, uint32_t elem,
                                                   uint32_t op) {
  return (offset & ((1ull << 40) - 1)) | ((uint64_t)(region & 0xffu) << 40) | ((uint64_t)(kind & 0xfu) << 48) |
         ((uint64_t)(elem & 0xfu) << 52) | ((uint64_t)(op & 0xffu) << 56);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_coll_offset(uint64_t w) {
  return w & ((1ull << 40) - 1);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_coll_region(uint64_t w) {
  return (uint32_t)((w >> 40) & 0xffu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_coll_kind(uint64_t w) {
  return (uint32_t)((w >> 48) & 0xfu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_coll_elem(uint64_t w) {
  return (uint32_t)((w >> 52) & 0xfu);
}
GPUSHMEM_PROXY_INLINE uint32_t gpushmem_proxy_coll_op(uint64_t w) {
  return (uint32_t)(w >> 56);
}
/* A COLL slot's team words. */
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_pair(int32_t low, int32_t high) {
  return (uint64_t)(uint32_t)low | ((uint64_t)(uint32_t)high << 32);
}
GPUSHMEM_PROXY_INLINE int32_t gpushmem_proxy_pair_low(uint64_t w) {
  return (int32_t)(uint32_t)(w & 0xffffffffull);
}
GPUSHMEM_PROXY_INLINE int32_t gpushmem_proxy_pair_high(uint64_t w) {
  return (int32_t)(uint32_t)(w >> 32);
}
GPUSHMEM_PROXY_INLINE uint64_t gpushmem_proxy_cookie(uint32_t smid, uint32_t warp, uint32_t cta, uint32_t t_ns) {
  return (uint64_t)(smid & 0xffu) | ((uint64_t)(warp & 0xffu) << 8) | ((uint64_t)(cta & 0xffffu) << 16) |
         ((uint64_t)t_ns << 32);
}

/* The layout both compilers must agree on. */
#ifdef __cplusplus
static_assert(sizeof(gpushmem_proxy_slot_t) == GPUSHMEM_PROXY_SLOT_BYTES, "a proxy slot is one cache line");
static_assert(offsetof(gpushmem_proxy_slot_t, header) == 0 && offsetof(gpushmem_proxy_slot_t, remote) == 8 &&
                  offsetof(gpushmem_proxy_slot_t, size_event) == 24 && offsetof(gpushmem_proxy_slot_t, cookie) == 56,
              "proxy slot layout changed");
static_assert(sizeof(gpushmem_proxy_control_t) == 192 && offsetof(gpushmem_proxy_control_t, completed) == 64 &&
                  offsetof(gpushmem_proxy_control_t, help) == 128,
              "proxy control layout changed");
static_assert(sizeof(gpushmem_proxy_channel_t) == 48 && offsetof(gpushmem_proxy_channel_t, bounce) == 32,
              "proxy channel layout changed");
static_assert(sizeof(gpushmem_proxy_device_words_t) == 40, "proxy device words layout changed");
static_assert(gpushmem_proxy_header_pe(gpushmem_proxy_header(0x1234567890ull, GPUSHMEM_PROXY_OP_AMO, 0x5a, 0xbeef)) ==
                  0xbeef,
              "header packing");
static_assert(gpushmem_proxy_header_op(gpushmem_proxy_header(7, GPUSHMEM_PROXY_OP_QUIET, 0xff, 0xffff)) ==
                  GPUSHMEM_PROXY_OP_QUIET,
              "header packing");
static_assert(gpushmem_proxy_header_seq(gpushmem_proxy_header(0x1234567890ull, 0, 0, 0)) == 0x34567890u,
              "header packing");
static_assert(gpushmem_proxy_free_header(13, 8, 5) == 5 && gpushmem_proxy_free_header(13, 8, 6) == 6 &&
                  gpushmem_proxy_free_header(0, 8, 0) == 0xfffffff8u,
              "a free slot's header is the index one lap before the first one expected there");
static_assert(gpushmem_proxy_coll_offset(gpushmem_proxy_coll(0x12345678ull, 3, 1, 0xb, 6)) == 0x12345678ull &&
                  gpushmem_proxy_coll_region(gpushmem_proxy_coll(0x12345678ull, 3, 1, 0xb, 6)) == 3 &&
                  gpushmem_proxy_coll_kind(gpushmem_proxy_coll(0, 0, 1, 0xb, 6)) == 1 &&
                  gpushmem_proxy_coll_elem(gpushmem_proxy_coll(0, 0, 1, 0xb, 6)) == 0xb &&
                  gpushmem_proxy_coll_op(gpushmem_proxy_coll(0, 0, 1, 0xb, 6)) == 6,
              "coll word packing");
static_assert(gpushmem_proxy_pair_low(gpushmem_proxy_pair(-3, 7)) == -3 &&
                  gpushmem_proxy_pair_high(gpushmem_proxy_pair(5, -2)) == -2,
              "team words packing");
#else
_Static_assert(sizeof(gpushmem_proxy_slot_t) == GPUSHMEM_PROXY_SLOT_BYTES, "a proxy slot is one cache line");
_Static_assert(sizeof(gpushmem_proxy_control_t) == 192, "proxy control layout changed");
#endif

#undef GPUSHMEM_PROXY_INLINE

#endif /* GPUSHMEM_PROXY_CHANNEL_H */
