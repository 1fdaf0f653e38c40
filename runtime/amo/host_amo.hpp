// Host-initiated atomics on same-node symmetric memory. Each operation is written once as a template over the
// element type; the API files only stamp names. The peer's heap is mapped in this process, so an AMO is one
// CPU atomic on the peer's word: atomic against every other PE's AMOs on the same node, since they all use
// the same physical word through their mappings.
//
// Memory order: seq_cst. The read-modify-write operations compile to the same locked instruction on x86
// whatever the order, and seq_cst keeps programs that order AMOs without a shmem_fence (common in existing
// OpenSHMEM codes, e.g. a compare_swap lock around puts) working; only set and fetch pay a little more.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <type_traits>

#include "api/api_common.hpp"

namespace gpushmem::amo {

// The type the CPU atomic works on: the element type itself for integers, the integer of the same size for
// float and double (their set, fetch and swap only move bits).
template <class T>
using Word = std::conditional_t<std::is_floating_point_v<T>, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>,
                                std::remove_const_t<T>>;

// Ends the job: a GPU-heap word is device memory the host cannot reach with a CPU atomic.
[[noreturn]] void fail_gpu_word(const char *call, const char *arg);
// Ends the job: `addr` is not aligned for an atomic of `bytes` bytes.
[[noreturn]] void fail_misaligned(const char *call, const char *arg, const void *addr, size_t bytes);

// The atomic view of symmetric `sym` on PE `pe`, after the checks of api::remote_addr.
template <class T>
std::atomic_ref<Word<T>> remote_word(const char *call, const char *arg, const T *sym, int pe) {
  api::require_running(call);
  api::Remote remote = api::remote_addr(call, arg, sym, sizeof(T), pe);
  if (remote.gpu && !rt().data.contains(sym, sizeof(T))) [[unlikely]]  // a global's copy is host memory
    fail_gpu_word(call, arg);
  if (reinterpret_cast<uintptr_t>(remote.addr) % alignof(Word<T>) != 0) [[unlikely]]
    fail_misaligned(call, arg, sym, sizeof(T));
  return std::atomic_ref<Word<T>>(*reinterpret_cast<Word<T> *>(remote.addr));
}

// Ends the job: array `arg` is NULL although the call needs `nelems` elements of it (1: a result pointer).
[[noreturn]] void fail_null(const char *call, const char *arg, size_t nelems);

// The local object an _nbi fetching AMO stores the old value in.
template <class T>
T &fetch_target(const char *call, T *fetch) {
  if (fetch == nullptr) [[unlikely]]
    fail_null(call, "fetch", 1);
  return *fetch;
}

template <class T>
Word<T> to_word(T value) {
  return std::bit_cast<Word<T>>(value);
}
template <class T>
T from_word(Word<T> word) {
  return std::bit_cast<T>(word);
}

template <class T>
T fetch(const char *call, const T *source, int pe) {
  return from_word<T>(remote_word(call, "source", source, pe).load(std::memory_order_seq_cst));
}

template <class T>
void set(const char *call, T *dest, T value, int pe) {
  remote_word(call, "dest", dest, pe).store(to_word(value), std::memory_order_seq_cst);
}

template <class T>
T swap(const char *call, T *dest, T value, int pe) {
  return from_word<T>(remote_word(call, "dest", dest, pe).exchange(to_word(value), std::memory_order_seq_cst));
}

template <class T>
T compare_swap(const char *call, T *dest, T cond, T value, int pe) {
  // On failure compare_exchange stores the current value in `cond`: the old value either way.
  remote_word(call, "dest", dest, pe).compare_exchange_strong(cond, value, std::memory_order_seq_cst);
  return cond;
}

template <class T>
T fetch_add(const char *call, T *dest, T value, int pe) {
  return remote_word(call, "dest", dest, pe).fetch_add(value, std::memory_order_seq_cst);
}

template <class T>
T fetch_and(const char *call, T *dest, T value, int pe) {
  return remote_word(call, "dest", dest, pe).fetch_and(value, std::memory_order_seq_cst);
}

template <class T>
T fetch_or(const char *call, T *dest, T value, int pe) {
  return remote_word(call, "dest", dest, pe).fetch_or(value, std::memory_order_seq_cst);
}

template <class T>
T fetch_xor(const char *call, T *dest, T value, int pe) {
  return remote_word(call, "dest", dest, pe).fetch_xor(value, std::memory_order_seq_cst);
}

}  // namespace gpushmem::amo
