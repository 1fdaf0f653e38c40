/*
 * Part of <shmem.h> (include <shmem.h>, never this file), C11 only: the _Generic names of the routines that
 * also take a context: shmem_put, shmem_get, shmem_put_nbi, shmem_get_nbi, shmem_p, shmem_g, shmem_iput,
 * shmem_iget, shmem_put_signal (+ _nbi) and shmem_atomic_<op> (+ _nbi). Each accepts an optional leading
 * shmem_ctx_t: shmem_put(dest, source, nelems, pe) and shmem_put(ctx, dest, source, nelems, pe) both work.
 * The form is told apart by the number of arguments, then the routine by the type of *dest (or *source).
 *
 * Every association list comes from a GPUSHMEM_GENERIC_SELECTION_* table of type_table.h, never from the
 * group macros GPUSHMEM_RMA_TYPES and friends expand through: a program may call these names inside code it
 * stamps with those tables (a macro is not expanded again inside its own expansion).
 */
#ifndef GPUSHMEM_API_GENERIC_C11_H
#define GPUSHMEM_API_GENERIC_C11_H

#ifndef GPUSHMEM_SHMEM_H
#error "gpushmem/api/generic_c11.h is part of <shmem.h>: include <shmem.h> instead"
#endif

/* NAME(args...) becomes GPUSHMEMI_C11_NAME_<number of args>(args...). */
#define GPUSHMEMI_C11_NARGS(...) GPUSHMEMI_C11_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GPUSHMEMI_C11_NARGS_(a1, a2, a3, a4, a5, a6, a7, a8, a9, n, ...) n
#define GPUSHMEMI_C11_CAT(a, b) GPUSHMEMI_C11_CAT_(a, b)
#define GPUSHMEMI_C11_CAT_(a, b) a##b
#define GPUSHMEMI_C11_DISPATCH(NAME, ...) \
  GPUSHMEMI_C11_CAT(GPUSHMEMI_C11_##NAME##_, GPUSHMEMI_C11_NARGS(__VA_ARGS__))(__VA_ARGS__)

/* Association lists: each entry is emitted with a leading comma, so a list needs no terminator. */
#define GPUSHMEM_GENERIC_put(T, N) , T : shmem_##N##_put
#define GPUSHMEM_GENERIC_get(T, N) , T : shmem_##N##_get
#define GPUSHMEM_GENERIC_put_nbi(T, N) , T : shmem_##N##_put_nbi
#define GPUSHMEM_GENERIC_get_nbi(T, N) , T : shmem_##N##_get_nbi
#define GPUSHMEM_GENERIC_p(T, N) , T : shmem_##N##_p
#define GPUSHMEM_GENERIC_g(T, N) , T : shmem_##N##_g
#define GPUSHMEM_GENERIC_iput(T, N) , T : shmem_##N##_iput
#define GPUSHMEM_GENERIC_iget(T, N) , T : shmem_##N##_iget
#define GPUSHMEM_GENERIC_put_signal(T, N) , T : shmem_##N##_put_signal
#define GPUSHMEM_GENERIC_put_signal_nbi(T, N) , T : shmem_##N##_put_signal_nbi
#define GPUSHMEM_GENERIC_ctx_put(T, N) , T : shmem_ctx_##N##_put
#define GPUSHMEM_GENERIC_ctx_get(T, N) , T : shmem_ctx_##N##_get
#define GPUSHMEM_GENERIC_ctx_put_nbi(T, N) , T : shmem_ctx_##N##_put_nbi
#define GPUSHMEM_GENERIC_ctx_get_nbi(T, N) , T : shmem_ctx_##N##_get_nbi
#define GPUSHMEM_GENERIC_ctx_p(T, N) , T : shmem_ctx_##N##_p
#define GPUSHMEM_GENERIC_ctx_g(T, N) , T : shmem_ctx_##N##_g
#define GPUSHMEM_GENERIC_ctx_iput(T, N) , T : shmem_ctx_##N##_iput
#define GPUSHMEM_GENERIC_ctx_iget(T, N) , T : shmem_ctx_##N##_iget
#define GPUSHMEM_GENERIC_ctx_put_signal(T, N) , T : shmem_ctx_##N##_put_signal
#define GPUSHMEM_GENERIC_ctx_put_signal_nbi(T, N) , T : shmem_ctx_##N##_put_signal_nbi

/* The routine for *(E) among the T-RMA types: NAME is the association list's suffix. */
#define GPUSHMEMI_C11_RMA(NAME, E) _Generic(*(E)GPUSHMEM_GENERIC_SELECTION_TYPES(GPUSHMEM_GENERIC_##NAME))
#define GPUSHMEMI_C11_AMO(NAME, E) _Generic(*(E)GPUSHMEM_GENERIC_SELECTION_AMO_TYPES(GPUSHMEM_GENERIC_##NAME))
#define GPUSHMEMI_C11_AMOX(NAME, E) _Generic(*(E)GPUSHMEM_GENERIC_SELECTION_AMOX_TYPES(GPUSHMEM_GENERIC_##NAME))
#define GPUSHMEMI_C11_AMOB(NAME, E) _Generic(*(E)GPUSHMEM_GENERIC_SELECTION_AMOB_TYPES(GPUSHMEM_GENERIC_##NAME))

/* ---- RMA ------------------------------------------------------------------------------------------------ */
#define shmem_put(...) GPUSHMEMI_C11_DISPATCH(put, __VA_ARGS__)
#define shmem_get(...) GPUSHMEMI_C11_DISPATCH(get, __VA_ARGS__)
#define shmem_put_nbi(...) GPUSHMEMI_C11_DISPATCH(put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...) GPUSHMEMI_C11_DISPATCH(get_nbi, __VA_ARGS__)
#define shmem_p(...) GPUSHMEMI_C11_DISPATCH(p, __VA_ARGS__)
#define shmem_g(...) GPUSHMEMI_C11_DISPATCH(g, __VA_ARGS__)
#define shmem_iput(...) GPUSHMEMI_C11_DISPATCH(iput, __VA_ARGS__)
#define shmem_iget(...) GPUSHMEMI_C11_DISPATCH(iget, __VA_ARGS__)
#define shmem_put_signal(...) GPUSHMEMI_C11_DISPATCH(put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) GPUSHMEMI_C11_DISPATCH(put_signal_nbi, __VA_ARGS__)

#define GPUSHMEMI_C11_put_4(dest, source, nelems, pe) GPUSHMEMI_C11_RMA(put, dest)(dest, source, nelems, pe)
#define GPUSHMEMI_C11_put_5(ctx, dest, source, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_put, dest)(ctx, dest, source, nelems, pe)
#define GPUSHMEMI_C11_get_4(dest, source, nelems, pe) GPUSHMEMI_C11_RMA(get, dest)(dest, source, nelems, pe)
#define GPUSHMEMI_C11_get_5(ctx, dest, source, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_get, dest)(ctx, dest, source, nelems, pe)
#define GPUSHMEMI_C11_put_nbi_4(dest, source, nelems, pe) GPUSHMEMI_C11_RMA(put_nbi, dest)(dest, source, nelems, pe)
#define GPUSHMEMI_C11_put_nbi_5(ctx, dest, source, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_put_nbi, dest)(ctx, dest, source, nelems, pe)
#define GPUSHMEMI_C11_get_nbi_4(dest, source, nelems, pe) GPUSHMEMI_C11_RMA(get_nbi, dest)(dest, source, nelems, pe)
#define GPUSHMEMI_C11_get_nbi_5(ctx, dest, source, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_get_nbi, dest)(ctx, dest, source, nelems, pe)
#define GPUSHMEMI_C11_p_3(dest, value, pe) GPUSHMEMI_C11_RMA(p, dest)(dest, value, pe)
#define GPUSHMEMI_C11_p_4(ctx, dest, value, pe) GPUSHMEMI_C11_RMA(ctx_p, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_g_2(source, pe) GPUSHMEMI_C11_RMA(g, source)(source, pe)
#define GPUSHMEMI_C11_g_3(ctx, source, pe) GPUSHMEMI_C11_RMA(ctx_g, source)(ctx, source, pe)
#define GPUSHMEMI_C11_iput_6(dest, source, dst, sst, nelems, pe) \
  GPUSHMEMI_C11_RMA(iput, dest)(dest, source, dst, sst, nelems, pe)
#define GPUSHMEMI_C11_iput_7(ctx, dest, source, dst, sst, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_iput, dest)(ctx, dest, source, dst, sst, nelems, pe)
#define GPUSHMEMI_C11_iget_6(dest, source, dst, sst, nelems, pe) \
  GPUSHMEMI_C11_RMA(iget, dest)(dest, source, dst, sst, nelems, pe)
#define GPUSHMEMI_C11_iget_7(ctx, dest, source, dst, sst, nelems, pe) \
  GPUSHMEMI_C11_RMA(ctx_iget, dest)(ctx, dest, source, dst, sst, nelems, pe)
#define GPUSHMEMI_C11_put_signal_7(dest, source, nelems, sig_addr, signal, sig_op, pe) \
  GPUSHMEMI_C11_RMA(put_signal, dest)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define GPUSHMEMI_C11_put_signal_8(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
  GPUSHMEMI_C11_RMA(ctx_put_signal, dest)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define GPUSHMEMI_C11_put_signal_nbi_7(dest, source, nelems, sig_addr, signal, sig_op, pe) \
  GPUSHMEMI_C11_RMA(put_signal_nbi, dest)(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define GPUSHMEMI_C11_put_signal_nbi_8(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
  GPUSHMEMI_C11_RMA(ctx_put_signal_nbi, dest)(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)

/* ---- AMOs ----------------------------------------------------------------------------------------------- */
#define GPUSHMEM_GENERIC_atomic_fetch(T, N) , T : shmem_##N##_atomic_fetch
#define GPUSHMEM_GENERIC_atomic_fetch_nbi(T, N) , T : shmem_##N##_atomic_fetch_nbi
#define GPUSHMEM_GENERIC_atomic_set(T, N) , T : shmem_##N##_atomic_set
#define GPUSHMEM_GENERIC_atomic_swap(T, N) , T : shmem_##N##_atomic_swap
#define GPUSHMEM_GENERIC_atomic_swap_nbi(T, N) , T : shmem_##N##_atomic_swap_nbi
#define GPUSHMEM_GENERIC_atomic_compare_swap(T, N) , T : shmem_##N##_atomic_compare_swap
#define GPUSHMEM_GENERIC_atomic_compare_swap_nbi(T, N) , T : shmem_##N##_atomic_compare_swap_nbi
#define GPUSHMEM_GENERIC_atomic_fetch_inc(T, N) , T : shmem_##N##_atomic_fetch_inc
#define GPUSHMEM_GENERIC_atomic_fetch_inc_nbi(T, N) , T : shmem_##N##_atomic_fetch_inc_nbi
#define GPUSHMEM_GENERIC_atomic_inc(T, N) , T : shmem_##N##_atomic_inc
#define GPUSHMEM_GENERIC_atomic_fetch_add(T, N) , T : shmem_##N##_atomic_fetch_add
#define GPUSHMEM_GENERIC_atomic_fetch_add_nbi(T, N) , T : shmem_##N##_atomic_fetch_add_nbi
#define GPUSHMEM_GENERIC_atomic_add(T, N) , T : shmem_##N##_atomic_add
#define GPUSHMEM_GENERIC_atomic_fetch_and(T, N) , T : shmem_##N##_atomic_fetch_and
#define GPUSHMEM_GENERIC_atomic_fetch_and_nbi(T, N) , T : shmem_##N##_atomic_fetch_and_nbi
#define GPUSHMEM_GENERIC_atomic_and(T, N) , T : shmem_##N##_atomic_and
#define GPUSHMEM_GENERIC_atomic_fetch_or(T, N) , T : shmem_##N##_atomic_fetch_or
#define GPUSHMEM_GENERIC_atomic_fetch_or_nbi(T, N) , T : shmem_##N##_atomic_fetch_or_nbi
#define GPUSHMEM_GENERIC_atomic_or(T, N) , T : shmem_##N##_atomic_or
#define GPUSHMEM_GENERIC_atomic_fetch_xor(T, N) , T : shmem_##N##_atomic_fetch_xor
#define GPUSHMEM_GENERIC_atomic_fetch_xor_nbi(T, N) , T : shmem_##N##_atomic_fetch_xor_nbi
#define GPUSHMEM_GENERIC_atomic_xor(T, N) , T : shmem_##N##_atomic_xor
#define GPUSHMEM_GENERIC_ctx_atomic_fetch(T, N) , T : shmem_ctx_##N##_atomic_fetch
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_set(T, N) , T : shmem_ctx_##N##_atomic_set
#define GPUSHMEM_GENERIC_ctx_atomic_swap(T, N) , T : shmem_ctx_##N##_atomic_swap
#define GPUSHMEM_GENERIC_ctx_atomic_swap_nbi(T, N) , T : shmem_ctx_##N##_atomic_swap_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_compare_swap(T, N) , T : shmem_ctx_##N##_atomic_compare_swap
#define GPUSHMEM_GENERIC_ctx_atomic_compare_swap_nbi(T, N) , T : shmem_ctx_##N##_atomic_compare_swap_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_inc(T, N) , T : shmem_ctx_##N##_atomic_fetch_inc
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_inc_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_inc_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_inc(T, N) , T : shmem_ctx_##N##_atomic_inc
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_add(T, N) , T : shmem_ctx_##N##_atomic_fetch_add
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_add_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_add_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_add(T, N) , T : shmem_ctx_##N##_atomic_add
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_and(T, N) , T : shmem_ctx_##N##_atomic_fetch_and
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_and_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_and_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_and(T, N) , T : shmem_ctx_##N##_atomic_and
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_or(T, N) , T : shmem_ctx_##N##_atomic_fetch_or
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_or_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_or_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_or(T, N) , T : shmem_ctx_##N##_atomic_or
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_xor(T, N) , T : shmem_ctx_##N##_atomic_fetch_xor
#define GPUSHMEM_GENERIC_ctx_atomic_fetch_xor_nbi(T, N) , T : shmem_ctx_##N##_atomic_fetch_xor_nbi
#define GPUSHMEM_GENERIC_ctx_atomic_xor(T, N) , T : shmem_ctx_##N##_atomic_xor

#define shmem_atomic_fetch(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_set(...) GPUSHMEMI_C11_DISPATCH(atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...) GPUSHMEMI_C11_DISPATCH(atomic_swap, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) GPUSHMEMI_C11_DISPATCH(atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_inc(...) GPUSHMEMI_C11_DISPATCH(atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_add(...) GPUSHMEMI_C11_DISPATCH(atomic_add, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_and(...) GPUSHMEMI_C11_DISPATCH(atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_or(...) GPUSHMEMI_C11_DISPATCH(atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) GPUSHMEMI_C11_DISPATCH(atomic_fetch_xor_nbi, __VA_ARGS__)
#define shmem_atomic_xor(...) GPUSHMEMI_C11_DISPATCH(atomic_xor, __VA_ARGS__)

/* Extended (fetch, set, swap): T-AMOX; selected by the type of the target word. */
#define GPUSHMEMI_C11_atomic_fetch_2(source, pe) GPUSHMEMI_C11_AMOX(atomic_fetch, source)(source, pe)
#define GPUSHMEMI_C11_atomic_fetch_3(ctx, source, pe) GPUSHMEMI_C11_AMOX(ctx_atomic_fetch, source)(ctx, source, pe)
#define GPUSHMEMI_C11_atomic_fetch_nbi_3(fetch, source, pe) \
  GPUSHMEMI_C11_AMOX(atomic_fetch_nbi, source)(fetch, source, pe)
#define GPUSHMEMI_C11_atomic_fetch_nbi_4(ctx, fetch, source, pe) \
  GPUSHMEMI_C11_AMOX(ctx_atomic_fetch_nbi, source)(ctx, fetch, source, pe)
#define GPUSHMEMI_C11_atomic_set_3(dest, value, pe) GPUSHMEMI_C11_AMOX(atomic_set, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_set_4(ctx, dest, value, pe) GPUSHMEMI_C11_AMOX(ctx_atomic_set, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_swap_3(dest, value, pe) GPUSHMEMI_C11_AMOX(atomic_swap, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_swap_4(ctx, dest, value, pe) \
  GPUSHMEMI_C11_AMOX(ctx_atomic_swap, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_swap_nbi_4(fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOX(atomic_swap_nbi, dest)(fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_swap_nbi_5(ctx, fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOX(ctx_atomic_swap_nbi, dest)(ctx, fetch, dest, value, pe)

/* Standard (compare_swap, fetch_inc, inc, fetch_add, add): T-AMO. */
#define GPUSHMEMI_C11_atomic_compare_swap_4(dest, cond, value, pe) \
  GPUSHMEMI_C11_AMO(atomic_compare_swap, dest)(dest, cond, value, pe)
#define GPUSHMEMI_C11_atomic_compare_swap_5(ctx, dest, cond, value, pe) \
  GPUSHMEMI_C11_AMO(ctx_atomic_compare_swap, dest)(ctx, dest, cond, value, pe)
#define GPUSHMEMI_C11_atomic_compare_swap_nbi_5(fetch, dest, cond, value, pe) \
  GPUSHMEMI_C11_AMO(atomic_compare_swap_nbi, dest)(fetch, dest, cond, value, pe)
#define GPUSHMEMI_C11_atomic_compare_swap_nbi_6(ctx, fetch, dest, cond, value, pe) \
  GPUSHMEMI_C11_AMO(ctx_atomic_compare_swap_nbi, dest)(ctx, fetch, dest, cond, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_inc_2(dest, pe) GPUSHMEMI_C11_AMO(atomic_fetch_inc, dest)(dest, pe)
#define GPUSHMEMI_C11_atomic_fetch_inc_3(ctx, dest, pe) GPUSHMEMI_C11_AMO(ctx_atomic_fetch_inc, dest)(ctx, dest, pe)
#define GPUSHMEMI_C11_atomic_fetch_inc_nbi_3(fetch, dest, pe) \
  GPUSHMEMI_C11_AMO(atomic_fetch_inc_nbi, dest)(fetch, dest, pe)
#define GPUSHMEMI_C11_atomic_fetch_inc_nbi_4(ctx, fetch, dest, pe) \
  GPUSHMEMI_C11_AMO(ctx_atomic_fetch_inc_nbi, dest)(ctx, fetch, dest, pe)
#define GPUSHMEMI_C11_atomic_inc_2(dest, pe) GPUSHMEMI_C11_AMO(atomic_inc, dest)(dest, pe)
#define GPUSHMEMI_C11_atomic_inc_3(ctx, dest, pe) GPUSHMEMI_C11_AMO(ctx_atomic_inc, dest)(ctx, dest, pe)

/* Operations with one operand: fetch_add / add over T-AMO, and / or / xor over T-AMOB. */
#define GPUSHMEMI_C11_atomic_fetch_add_3(dest, value, pe) GPUSHMEMI_C11_AMO(atomic_fetch_add, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_add_4(ctx, dest, value, pe) \
  GPUSHMEMI_C11_AMO(ctx_atomic_fetch_add, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_add_nbi_4(fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMO(atomic_fetch_add_nbi, dest)(fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_add_nbi_5(ctx, fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMO(ctx_atomic_fetch_add_nbi, dest)(ctx, fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_add_3(dest, value, pe) GPUSHMEMI_C11_AMO(atomic_add, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_add_4(ctx, dest, value, pe) GPUSHMEMI_C11_AMO(ctx_atomic_add, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_and_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_fetch_and, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_and_4(ctx, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_and, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_and_nbi_4(fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(atomic_fetch_and_nbi, dest)(fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_and_nbi_5(ctx, fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_and_nbi, dest)(ctx, fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_and_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_and, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_and_4(ctx, dest, value, pe) GPUSHMEMI_C11_AMOB(ctx_atomic_and, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_or_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_fetch_or, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_or_4(ctx, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_or, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_or_nbi_4(fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(atomic_fetch_or_nbi, dest)(fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_or_nbi_5(ctx, fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_or_nbi, dest)(ctx, fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_or_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_or, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_or_4(ctx, dest, value, pe) GPUSHMEMI_C11_AMOB(ctx_atomic_or, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_xor_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_fetch_xor, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_xor_4(ctx, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_xor, dest)(ctx, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_xor_nbi_4(fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(atomic_fetch_xor_nbi, dest)(fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_fetch_xor_nbi_5(ctx, fetch, dest, value, pe) \
  GPUSHMEMI_C11_AMOB(ctx_atomic_fetch_xor_nbi, dest)(ctx, fetch, dest, value, pe)
#define GPUSHMEMI_C11_atomic_xor_3(dest, value, pe) GPUSHMEMI_C11_AMOB(atomic_xor, dest)(dest, value, pe)
#define GPUSHMEMI_C11_atomic_xor_4(ctx, dest, value, pe) GPUSHMEMI_C11_AMOB(ctx_atomic_xor, dest)(ctx, dest, value, pe)

#endif /* GPUSHMEM_API_GENERIC_C11_H */
