/*
 * Strided RMA in C11: shmem_TYPE_iput / iget for every type of the type table (through the C names and the
 * _Generic names shmem_iput / shmem_iget) and shmem_iputSIZE / igetSIZE, to every PE including this one.
 * Each phase moves several shapes at once (nelems 1, 7, 300, 64 with strides (dst, sst) of (1,1), (2,3),
 * (3,1), (1,2)) into buffers poisoned beforehand; every PE then checks every element of every span: the
 * strided positions hold the pattern of the PE that wrote them, the gaps between them still hold poison.
 */
#include <stdint.h>
#include <string.h>

#include "pe_check.h"

typedef void (*strided_fn)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);

typedef struct {
  const char *name; /* as reported on failure */
  size_t size;      /* bytes per element */
  strided_fn iput, iget;
} strided_case;

/* The C names and the _Generic names, stamped from the type table. */
#define STAMP(T, N)                                                                                      \
  static void iput_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {         \
    shmem_##N##_iput((T *)d, (const T *)s, dst, sst, n, pe);                                             \
  }                                                                                                      \
  static void iget_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) {         \
    shmem_##N##_iget((T *)d, (const T *)s, dst, sst, n, pe);                                             \
  }                                                                                                      \
  static void generic_iput_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    shmem_iput((T *)d, (const T *)s, dst, sst, n, pe);                                                   \
  }                                                                                                      \
  static void generic_iget_##N(void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) { \
    shmem_iget((T *)d, (const T *)s, dst, sst, n, pe);                                                   \
  }
GPUSHMEM_RMA_TYPES(STAMP)
#undef STAMP

#define CASE_NAMED(T, N) {"shmem_" #N "_iput/iget", sizeof(T), iput_##N, iget_##N},
#define CASE_GENERIC(T, N) {"shmem_iput/iget (_Generic, " #T ")", sizeof(T), generic_iput_##N, generic_iget_##N},
#define CASE_SIZED(S) {"shmem_iput" #S "/iget" #S, (S) / 8, shmem_iput##S, shmem_iget##S},
static const strided_case kCases[] = {GPUSHMEM_RMA_TYPES(CASE_NAMED) GPUSHMEM_RMA_TYPES(CASE_GENERIC)
                                          GPUSHMEM_RMA_SIZES(CASE_SIZED)};
#undef CASE_NAMED
#undef CASE_GENERIC
#undef CASE_SIZED

/* The shapes every phase moves. */
typedef struct {
  size_t n;
  ptrdiff_t dst, sst;
} shape;
static const shape kShapes[] = {{1, 1, 1}, {7, 2, 3}, {300, 3, 1}, {64, 1, 2}};
enum { kNumShapes = 4 };

static size_t span(size_t n, ptrdiff_t stride) {
  return (n - 1) * (size_t)stride + 1;
}
/* Elements of one PE's slot on the dest side / on the source side, and where each shape starts in it. */
static size_t dest_offset(int s) {
  size_t off = 0;
  for (int j = 0; j < s; ++j) off += span(kShapes[j].n, kShapes[j].dst);
  return off;
}
static size_t source_offset(int s) {
  size_t off = 0;
  for (int j = 0; j < s; ++j) off += span(kShapes[j].n, kShapes[j].sst);
  return off;
}

enum { kPoison = 0xff }; /* pattern bytes stay below 0x7f, so a missing write never looks written */

static unsigned char pattern(int src, size_t i, int salt, size_t byte) {
  return (unsigned char)((131u * (unsigned)src + 7u * (unsigned)i + 29u * (unsigned)salt + 3u * (unsigned)byte + 1u) %
                         127u);
}

/* Writes the pattern of `src` into the strided positions of every shape's source region. */
static void fill_sources(char *base, size_t size, int src, int salt) {
  for (int s = 0; s < kNumShapes; ++s)
    for (size_t i = 0; i < kShapes[s].n; ++i)
      for (size_t b = 0; b < size; ++b)
        base[(source_offset(s) + i * (size_t)kShapes[s].sst) * size + b] = (char)pattern(src, i, salt + s, b);
}

/* Checks one PE's dest slot: strided positions hold `from`'s pattern, gaps hold poison. */
static void verify_slot(const char *slot, size_t size, int from, int salt, const char *what, const char *dir) {
  for (int s = 0; s < kNumShapes; ++s) {
    const shape *sh = &kShapes[s];
    const size_t len = span(sh->n, sh->dst);
    long bad = 0;
    for (size_t j = 0; j < len; ++j) {
      const int written = j % (size_t)sh->dst == 0;
      for (size_t b = 0; b < size; ++b) {
        const unsigned char want = written ? pattern(from, j / (size_t)sh->dst, salt + s, b) : (unsigned char)kPoison;
        const unsigned char got = (unsigned char)slot[(dest_offset(s) + j) * size + b];
        if (got != want) {
          if (bad++ < 3)
            PE_FAIL(
                "%s %s (nelems=%zu dst=%td sst=%td, peer PE %d): element %zu (%s) byte %zu: expected 0x%02x, "
                "got 0x%02x",
                what, dir, sh->n, sh->dst, sh->sst, from, j, written ? "written" : "gap", b, want, got);
          break;
        }
      }
    }
  }
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  const size_t max_size = 16, dslot = dest_offset(kNumShapes), sslot = source_offset(kNumShapes);
  char *sym_dest = (char *)shmem_malloc(dslot * max_size * (size_t)npes);
  char *sym_source = (char *)shmem_malloc(sslot * max_size);
  char *local_dest = (char *)malloc(dslot * max_size * (size_t)npes);
  char *local_source = (char *)malloc(sslot * max_size);
  if (sym_dest == NULL || sym_source == NULL || local_dest == NULL || local_source == NULL) {
    PE_FAIL("cannot allocate the buffers");
    return pe_finish("rma_strided");
  }
  int salt = 0;
  for (size_t c = 0; c < sizeof kCases / sizeof kCases[0]; ++c) {
    const strided_case *t = &kCases[c];
    const size_t z = t->size;
    salt = (salt + 5) % 60;
    /* iput: every PE writes its slot of sym_dest on every PE. */
    memset(local_source, kPoison, sslot * z);
    fill_sources(local_source, z, me, salt);
    memset(sym_dest, kPoison, dslot * z * (size_t)npes);
    shmem_barrier_all();
    for (int k = 0; k < npes; ++k) {
      const int pe = (me + k) % npes;
      for (int s = 0; s < kNumShapes; ++s)
        t->iput(sym_dest + ((size_t)me * dslot + dest_offset(s)) * z, local_source + source_offset(s) * z,
                kShapes[s].dst, kShapes[s].sst, kShapes[s].n, pe);
    }
    shmem_barrier_all();
    for (int from = 0; from < npes; ++from)
      verify_slot(sym_dest + (size_t)from * dslot * z, z, from, salt, t->name, "iput");
    /* iget: every PE reads every PE's sym_source into its local slot for that PE. */
    memset(sym_source, kPoison, sslot * z);
    fill_sources(sym_source, z, me, salt + 1);
    memset(local_dest, kPoison, dslot * z * (size_t)npes);
    shmem_barrier_all();
    for (int k = 0; k < npes; ++k) {
      const int pe = (me + k) % npes;
      for (int s = 0; s < kNumShapes; ++s)
        t->iget(local_dest + ((size_t)pe * dslot + dest_offset(s)) * z, sym_source + source_offset(s) * z,
                kShapes[s].dst, kShapes[s].sst, kShapes[s].n, pe);
    }
    for (int from = 0; from < npes; ++from)
      verify_slot(local_dest + (size_t)from * dslot * z, z, from, salt + 1, t->name, "iget");
    shmem_barrier_all(); /* nobody refills sym_source while another PE still reads it */
  }
  /* nelems 0 moves nothing, whatever the strides (even invalid pointers are never touched). */
  kCases[0].iput(sym_dest, NULL, 1, 1, 0, me);
  kCases[0].iget(NULL, sym_source, 1, 1, 0, me);
  free(local_source);
  free(local_dest);
  shmem_free(sym_source);
  shmem_free(sym_dest);
  return pe_finish("rma_strided");
}
