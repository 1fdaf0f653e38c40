/*
 * Byte and sized RMA: shmem_putmem / getmem and their _nbi forms at unaligned offsets and lengths on both
 * sides (checking the bytes around the target are untouched), and shmem_put8..put128 / get8..get128 with
 * their _nbi forms moving exactly nelems * SIZE/8 bytes. To every PE including this one.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

enum { kSlot = 8192, kGuard = 0xEE, kPoison = 0x5A };

static unsigned char byte_pattern(int src, size_t i, int salt) {
  return (unsigned char)(src * 37 + (int)(i % 251) * 13 + salt * 7 + 1);
}

/* Checks that slot[off, off+len) holds the pattern of `src` (starting at pattern index 0) and every other
   byte of the slot is `guard`. */
static void check_slot(const unsigned char *slot, size_t off, size_t len, int src, int salt, unsigned char guard,
                       const char *what, int peer) {
  long bad = 0;
  for (size_t i = 0; i < kSlot; ++i) {
    int inside = i >= off && i < off + len;
    unsigned char want = inside ? byte_pattern(src, i - off, salt) : guard;
    if (slot[i] != want && bad++ < 3)
      PE_FAIL("%s (offset %zu, %zu bytes, peer PE %d): byte %zu (%s the range): expected 0x%02x, got 0x%02x", what, off,
              len, peer, i, inside ? "inside" : "outside", want, slot[i]);
  }
}

typedef void (*byte_rma)(void *dest, const void *source, size_t nelems, int pe);

/* Every PE copies `len` bytes from local offset `soff` into its slot of every PE's `sym` at offset `off`. */
static void put_case(byte_rma put, int nbi, const char *what, unsigned char *sym, unsigned char *local, size_t off,
                     size_t soff, size_t len, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  memset(sym, kGuard, (size_t)npes * kSlot);
  for (size_t i = 0; i < len; ++i) local[soff + i] = byte_pattern(me, i, salt);
  shmem_barrier_all();
  for (int k = 0; k < npes; ++k) put(sym + (size_t)me * kSlot + off, local + soff, len, (me + k) % npes);
  if (nbi) shmem_quiet();
  shmem_barrier_all();
  for (int s = 0; s < npes; ++s) check_slot(sym + (size_t)s * kSlot, off, len, s, salt, kGuard, what, s);
}

/* Every PE reads `len` bytes at offset `off` of every PE's first slot into its local buffer at `soff`. */
static void get_case(byte_rma get, int nbi, const char *what, unsigned char *sym, unsigned char *local, size_t off,
                     size_t soff, size_t len, int salt) {
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  for (size_t i = 0; i < kSlot; ++i) sym[i] = (i >= off && i < off + len) ? byte_pattern(me, i - off, salt) : kGuard;
  memset(local, kPoison, (size_t)npes * kSlot);
  shmem_barrier_all();
  for (int k = 0; k < npes; ++k) {
    int pe = (me + k) % npes;
    get(local + (size_t)pe * kSlot + soff, sym + off, len, pe);
  }
  if (nbi) shmem_quiet();
  for (int s = 0; s < npes; ++s) check_slot(local + (size_t)s * kSlot, soff, len, s, salt, kPoison, what, s);
  shmem_barrier_all();
}

/* The sized forms take element counts; wrap them as byte counts for the cases above. */
#define SIZED(S)                                                             \
  static void put##S##_bytes(void *d, const void *s, size_t b, int pe) {     \
    shmem_put##S(d, s, b / (S / 8), pe);                                     \
  }                                                                          \
  static void get##S##_bytes(void *d, const void *s, size_t b, int pe) {     \
    shmem_get##S(d, s, b / (S / 8), pe);                                     \
  }                                                                          \
  static void put##S##_nbi_bytes(void *d, const void *s, size_t b, int pe) { \
    shmem_put##S##_nbi(d, s, b / (S / 8), pe);                               \
  }                                                                          \
  static void get##S##_nbi_bytes(void *d, const void *s, size_t b, int pe) { \
    shmem_get##S##_nbi(d, s, b / (S / 8), pe);                               \
  }
GPUSHMEM_RMA_SIZES(SIZED)
#undef SIZED

typedef struct {
  const char *name;
  size_t unit; /* bytes per element */
  byte_rma put, get, put_nbi, get_nbi;
} sized_case;

#define SIZED_CASE(S) {#S, S / 8, put##S##_bytes, get##S##_bytes, put##S##_nbi_bytes, get##S##_nbi_bytes},
static const sized_case kSized[] = {GPUSHMEM_RMA_SIZES(SIZED_CASE)};
#undef SIZED_CASE

int main(void) {
  shmem_init();
  const int npes = shmem_n_pes();
  unsigned char *sym = (unsigned char *)shmem_malloc((size_t)npes * kSlot);
  unsigned char *local = (unsigned char *)malloc((size_t)npes * kSlot);
  if (sym == NULL || local == NULL) {
    PE_FAIL("cannot allocate %zu bytes", (size_t)npes * kSlot);
    return pe_finish("rma_bytes");
  }
  int salt = 0;

  /* putmem / getmem and _nbi: odd offsets and lengths on both sides. */
  const size_t offsets[] = {0, 1, 3, 7, 61};
  const size_t lengths[] = {1, 2, 13, 64, 4097};
  for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; ++o) {
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; ++l) {
      size_t off = offsets[o], len = lengths[l], soff = (off * 5 + 3) % 17;
      put_case(shmem_putmem, 0, "shmem_putmem", sym, local, off, soff, len, ++salt);
      put_case(shmem_putmem_nbi, 1, "shmem_putmem_nbi", sym, local, off, soff, len, ++salt);
      get_case(shmem_getmem, 0, "shmem_getmem", sym, local, off, soff, len, ++salt);
      get_case(shmem_getmem_nbi, 1, "shmem_getmem_nbi", sym, local, off, soff, len, ++salt);
    }
  }
  /* Zero bytes move nothing (and must not fault on any address check). */
  put_case(shmem_putmem, 0, "shmem_putmem(0 bytes)", sym, local, 5, 0, 0, ++salt);
  get_case(shmem_getmem, 0, "shmem_getmem(0 bytes)", sym, local, 5, 0, 0, ++salt);

  /* putSIZE / getSIZE: 1 and 37 elements at element-aligned offsets; a wrong element size shows as a
     short or long copy, which the guard bytes catch. */
  for (size_t c = 0; c < sizeof kSized / sizeof kSized[0]; ++c) {
    const sized_case *sc = &kSized[c];
    char what[4][32];
    snprintf(what[0], sizeof what[0], "shmem_put%s", sc->name);
    snprintf(what[1], sizeof what[1], "shmem_put%s_nbi", sc->name);
    snprintf(what[2], sizeof what[2], "shmem_get%s", sc->name);
    snprintf(what[3], sizeof what[3], "shmem_get%s_nbi", sc->name);
    for (size_t nelems = 1; nelems <= 37; nelems += 36) {
      size_t len = nelems * sc->unit, off = 3 * sc->unit;
      put_case(sc->put, 0, what[0], sym, local, off, 2 * sc->unit, len, ++salt);
      put_case(sc->put_nbi, 1, what[1], sym, local, off, 2 * sc->unit, len, ++salt);
      get_case(sc->get, 0, what[2], sym, local, off, 2 * sc->unit, len, ++salt);
      get_case(sc->get_nbi, 1, what[3], sym, local, off, 2 * sc->unit, len, ++salt);
    }
  }
  free(local);
  shmem_free(sym);
  return pe_finish("rma_bytes");
}
