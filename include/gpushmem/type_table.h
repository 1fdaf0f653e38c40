/*
 * The one type table. Every typed OpenSHMEM name (declarations, definitions, C11 _Generic maps, C++
 * overloads, test type lists) is stamped from these lists; nothing typed is written out by hand.
 * Each X(TYPE, TYPENAME) entry is a C type and the name fragment the specification gives it.
 */
#ifndef GPUSHMEM_TYPE_TABLE_H
#define GPUSHMEM_TYPE_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* The lists are laid out by hand (clang-format 14 does not reach a fixed point on long macro bodies). */
/* clang-format off */
/* Small groups, composed below the way the specification's tables are. */
#define GPUSHMEM_TYPES_FLOATING(X) X(float, float) X(double, double) X(long double, longdouble)
#define GPUSHMEM_TYPES_CHARS(X) X(char, char) X(signed char, schar) X(unsigned char, uchar)
#define GPUSHMEM_TYPES_SIGNED(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define GPUSHMEM_TYPES_UNSIGNED(X) \
  X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define GPUSHMEM_TYPES_FIXED_SIGNED(X) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define GPUSHMEM_TYPES_FIXED_UNSIGNED(X) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)
#define GPUSHMEM_TYPES_SIZES(X) X(size_t, size) X(ptrdiff_t, ptrdiff)

/* T-RMA: the standard RMA types (24). */
#define GPUSHMEM_RMA_TYPES(X) \
  GPUSHMEM_TYPES_FLOATING(X)  \
  GPUSHMEM_TYPES_CHARS(X)     \
  GPUSHMEM_TYPES_SIGNED(X)    \
  GPUSHMEM_TYPES_UNSIGNED(X) GPUSHMEM_TYPES_FIXED_SIGNED(X) GPUSHMEM_TYPES_FIXED_UNSIGNED(X) GPUSHMEM_TYPES_SIZES(X)

/* The distinct C types among T-RMA: the fixed-width and size types are typedefs of these, and a _Generic
   selection or an overload set may list each type once. */
#define GPUSHMEM_RMA_GENERIC_TYPES(X) \
  GPUSHMEM_TYPES_FLOATING(X) GPUSHMEM_TYPES_CHARS(X) GPUSHMEM_TYPES_SIGNED(X) GPUSHMEM_TYPES_UNSIGNED(X)

/* The same 14 types again under a name of its own, for the _Generic selections in shmem.h only. The
   preprocessor never expands a macro inside its own expansion, so if the selections used the group macros
   above, a program that stamps code with GPUSHMEM_RMA_TYPES and calls shmem_put inside it would not
   compile. Keep the two lists identical (tests/unit checks every T-RMA type through the generic names). */
#define GPUSHMEM_GENERIC_SELECTION_TYPES(X)                                                                          \
  X(float, float)                                                                                                    \
  X(double, double)                                                                                                  \
  X(long double, longdouble) X(char, char) X(signed char, schar) X(unsigned char, uchar) X(short, short) X(int, int) \
      X(long, long) X(long long, longlong) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)   \
          X(unsigned long long, ulonglong)

/* T-AMO: the standard AMO types (12). */
#define GPUSHMEM_AMO_TYPES(X)                                                                                        \
  X(int, int)                                                                                                        \
  X(long, long)                                                                                                      \
  X(long long, longlong)                                                                                             \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64) \
      X(uint32_t, uint32) X(uint64_t, uint64) GPUSHMEM_TYPES_SIZES(X)

/* T-AMOX: the extended AMO types (14), for fetch, set and swap. */
#define GPUSHMEM_AMOX_TYPES(X) GPUSHMEM_AMO_TYPES(X) X(float, float) X(double, double)

/* T-AMOB: the bitwise AMO types (7), for and, or, xor and their fetch forms. */
#define GPUSHMEM_AMOB_TYPES(X)                                                                                  \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)                               \
  X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* The distinct C types of the AMO tables (LP64: int32_t is int, int64_t and ptrdiff_t are long, uint32_t is
   unsigned int, uint64_t and size_t are unsigned long), for overload sets, which may list each type once. */
#define GPUSHMEM_AMO_GENERIC_TYPES(X)                                                                           \
  X(int, int) X(long, long) X(long long, longlong)                                                              \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define GPUSHMEM_AMOX_GENERIC_TYPES(X) GPUSHMEM_AMO_GENERIC_TYPES(X) X(float, float) X(double, double)
#define GPUSHMEM_AMOB_GENERIC_TYPES(X)                                                                          \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)

/* Deprecated AMO names (shmem_TYPE_fetch / set / swap and shmem_TYPE_cswap / finc / inc / fadd / add). */
#define GPUSHMEM_DEPRECATED_AMOX_TYPES(X) X(float, float) X(double, double) X(int, int) X(long, long) X(long long, longlong)
#define GPUSHMEM_DEPRECATED_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
/* Deprecated point-to-point types: short and ushort still have wait_until and test (T-P2P beyond T-AMO);
   shmem_TYPE_wait exists for short, int, long and longlong. */
#define GPUSHMEM_P2P_EXTRA_TYPES(X) X(short, short) X(unsigned short, ushort)
#define GPUSHMEM_DEPRECATED_WAIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)

/* The generic selections of shmem.h for the AMO and wait names, written out under names of their own for the
   reason given at GPUSHMEM_GENERIC_SELECTION_TYPES (LP64: int32_t is int, int64_t is long, uint32_t is
   unsigned int, uint64_t and size_t are unsigned long, ptrdiff_t is long). */
#define GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong)
#define GPUSHMEM_GENERIC_SELECTION_AMOX_TYPES(X) \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(float, float) X(double, double)
/* C++ overloads of shmem_wait_until: long is the deprecated C symbol itself, which the overloads join. */
#define GPUSHMEM_WAIT_UNTIL_OVERLOAD_TYPES(X) \
  X(int, int) X(long long, longlong) X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define GPUSHMEM_GENERIC_SELECTION_AMOB_TYPES(X) \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)

/* Device code has no long double (nvcc treats it as double, with another size than the host's), so CUDA
   translation units get the longdouble names as host-only functions and every other T-RMA type on both
   sides. These three lists split T-RMA and its generic types that way. */
#define GPUSHMEM_DEVICE_RMA_TYPES(X)                                                                            \
  X(float, float) X(double, double)                                                                             \
  GPUSHMEM_TYPES_CHARS(X) GPUSHMEM_TYPES_SIGNED(X) GPUSHMEM_TYPES_UNSIGNED(X)                                   \
  GPUSHMEM_TYPES_FIXED_SIGNED(X) GPUSHMEM_TYPES_FIXED_UNSIGNED(X) GPUSHMEM_TYPES_SIZES(X)
#define GPUSHMEM_DEVICE_RMA_GENERIC_TYPES(X)                                                                    \
  X(float, float) X(double, double) GPUSHMEM_TYPES_CHARS(X) GPUSHMEM_TYPES_SIGNED(X) GPUSHMEM_TYPES_UNSIGNED(X)
#define GPUSHMEM_HOST_ONLY_RMA_TYPES(X) X(long double, longdouble)

/* T-RED: the reduction types, by operator (the specification's reduction-type table). */
/* AND, OR, XOR: the unsigned and fixed-width integers and size_t (14). */
#define GPUSHMEM_REDUCE_BITWISE_TYPES(X) \
  X(unsigned char, uchar) GPUSHMEM_TYPES_UNSIGNED(X) GPUSHMEM_TYPES_FIXED_SIGNED(X) GPUSHMEM_TYPES_FIXED_UNSIGNED(X) \
  X(size_t, size)
/* MIN, MAX: every integer and floating type (24). */
#define GPUSHMEM_REDUCE_MINMAX_TYPES(X) \
  X(char, char) X(signed char, schar) GPUSHMEM_TYPES_SIGNED(X) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) \
  GPUSHMEM_TYPES_UNSIGNED(X) GPUSHMEM_TYPES_FIXED_SIGNED(X) GPUSHMEM_TYPES_FIXED_UNSIGNED(X) X(size_t, size) \
  GPUSHMEM_TYPES_FLOATING(X)
/* SUM, PROD: MIN/MAX's types and the two complex types (26); the complex ones are listed apart, for C only
   (GPUSHMEM_REDUCE_COMPLEX_TYPES: their C++ and CUDA spellings differ). */
#define GPUSHMEM_REDUCE_ARITH_TYPES(X) GPUSHMEM_REDUCE_MINMAX_TYPES(X)
#define GPUSHMEM_REDUCE_COMPLEX_TYPES(X) X(float _Complex, complexf) X(double _Complex, complexd)
/* Device reductions: the same without long double and the complex types. */
#define GPUSHMEM_DEVICE_REDUCE_BITWISE_TYPES(X) GPUSHMEM_REDUCE_BITWISE_TYPES(X)
#define GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(X) \
  X(char, char) X(signed char, schar) GPUSHMEM_TYPES_SIGNED(X) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar) \
  GPUSHMEM_TYPES_UNSIGNED(X) GPUSHMEM_TYPES_FIXED_SIGNED(X) GPUSHMEM_TYPES_FIXED_UNSIGNED(X) X(size_t, size) \
  X(float, float) X(double, double)
#define GPUSHMEM_DEVICE_REDUCE_ARITH_TYPES(X) GPUSHMEM_DEVICE_REDUCE_MINMAX_TYPES(X)

/* T-REDA (deprecated active-set reductions, shmem_TYPE_OP_to_all): AND, OR, XOR over short, int, long and
   long long; MIN, MAX, SUM, PROD over those and the floating types; SUM and PROD also over the complex types
   (GPUSHMEM_REDUCE_COMPLEX_TYPES). */
#define GPUSHMEM_TO_ALL_BITWISE_TYPES(X) GPUSHMEM_TYPES_SIGNED(X)
#define GPUSHMEM_TO_ALL_ARITH_TYPES(X) GPUSHMEM_TYPES_SIGNED(X) GPUSHMEM_TYPES_FLOATING(X)

/* The distinct C types of T-RED, written out for the generic reduction names (the reason is given at
   GPUSHMEM_GENERIC_SELECTION_TYPES; LP64: int8_t is signed char, int16_t short, int32_t int, int64_t and
   ptrdiff_t long, uint8_t unsigned char, uint16_t unsigned short, uint32_t unsigned int, uint64_t and size_t
   unsigned long). The typed function each type selects is the one the spec names for it. */
#define GPUSHMEM_GENERIC_SELECTION_REDUCE_BITWISE_TYPES(X) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(signed char, int8) X(short, int16) X(int, int32) X(long, int64)
#define GPUSHMEM_GENERIC_SELECTION_REDUCE_MINMAX_TYPES(X) \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(float, float) X(double, double) X(long double, longdouble)
/* The same lists for C++ overload sets. */
#define GPUSHMEM_REDUCE_BITWISE_OVERLOAD_TYPES(X) \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong) \
  X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define GPUSHMEM_REDUCE_MINMAX_OVERLOAD_TYPES(X) \
  GPUSHMEM_TYPES_CHARS(X) GPUSHMEM_TYPES_SIGNED(X) GPUSHMEM_TYPES_UNSIGNED(X) GPUSHMEM_TYPES_FLOATING(X)

/* The element sizes of the putSIZE / getSIZE forms, in bits. */
#define GPUSHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* clang-format on */

#endif /* GPUSHMEM_TYPE_TABLE_H */
