// What each transport::AmoOp does to a word, written once for every agent that applies atomics: the CPU's
// (cpu_atomic.cpp, std::atomic_ref) and the GPU heap's (runtime/gpu/agent_ops.cu, cuda::atomic_ref at system
// scope). `Ref` is the atomic reference type; every operation uses its default order, seq_cst.
#pragma once

#include "transport.hpp"

#ifdef __CUDACC__
#define GPUSHMEM_AMO_HD __host__ __device__
#else
#define GPUSHMEM_AMO_HD
#endif

namespace gpushmem::transport {

// Returns the word's value before the operation.
template <class T, class Ref>
GPUSHMEM_AMO_HD T apply_amo(Ref w, AmoOp op, T operand, T compare) {
  switch (op) {
    case AmoOp::load:
      return w.load();
    case AmoOp::store:
    case AmoOp::swap:
      return w.exchange(operand);
    case AmoOp::cswap: {
      T expected = compare;
      w.compare_exchange_strong(expected, operand);
      return expected;  // the old value whether or not it matched
    }
    case AmoOp::add:
      return w.fetch_add(operand);
    case AmoOp::and_:
      return w.fetch_and(operand);
    case AmoOp::or_:
      return w.fetch_or(operand);
    case AmoOp::xor_:
      return w.fetch_xor(operand);
  }
  return 0;
}

}  // namespace gpushmem::transport

#undef GPUSHMEM_AMO_HD
