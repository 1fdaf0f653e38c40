#include "agent/cpu_atomic.hpp"

#include <atomic>

namespace gpushmem::transport {

namespace {

template <typename T>
T apply(T *word, AmoOp op, T operand, T compare) {
  std::atomic_ref<T> w(*word);
  switch (op) {
    case AmoOp::load:
      return w.load(std::memory_order_seq_cst);
    case AmoOp::store:
    case AmoOp::swap:
      return w.exchange(operand, std::memory_order_seq_cst);
    case AmoOp::cswap: {
      T expected = compare;
      w.compare_exchange_strong(expected, operand, std::memory_order_seq_cst);
      return expected;  // the old value whether or not it matched
    }
    case AmoOp::add:
      return w.fetch_add(operand, std::memory_order_seq_cst);
    case AmoOp::and_:
      return w.fetch_and(operand, std::memory_order_seq_cst);
    case AmoOp::or_:
      return w.fetch_or(operand, std::memory_order_seq_cst);
    case AmoOp::xor_:
      return w.fetch_xor(operand, std::memory_order_seq_cst);
  }
  return 0;
}

}  // namespace

uint64_t cpu_atomic(void *word, AmoOp op, size_t width, uint64_t operand, uint64_t compare) {
  if (width == 4)
    return apply<uint32_t>(static_cast<uint32_t *>(word), op, static_cast<uint32_t>(operand),
                           static_cast<uint32_t>(compare));
  return apply<uint64_t>(static_cast<uint64_t *>(word), op, operand, compare);
}

}  // namespace gpushmem::transport
