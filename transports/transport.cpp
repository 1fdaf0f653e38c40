#include "transport.hpp"

namespace gpushmem::transport {

const char *amo_op_name(AmoOp op) {
  switch (op) {
    case AmoOp::load:
      return "atomic fetch";
    case AmoOp::store:
      return "atomic set";
    case AmoOp::swap:
      return "atomic swap";
    case AmoOp::cswap:
      return "atomic compare-swap";
    case AmoOp::add:
      return "atomic add";
    case AmoOp::and_:
      return "atomic and";
    case AmoOp::or_:
      return "atomic or";
    case AmoOp::xor_:
      return "atomic xor";
  }
  return "atomic";
}

Status Transport::send_message(uint32_t channel, int pe, const Segment *segments, size_t n, RemoteRef signal,
                               uint64_t value, SignalOp op) {
  for (size_t i = 0; i < n; ++i)
    if (segments[i].bytes != 0)
      GPUSHMEM_CHECK(put(channel, pe, segments[i].dst, segments[i].src, segments[i].bytes, Completion::local, nullptr));
  // The channel's operations to one PE apply in order after its fence: a plain set raises the word too.
  return put_signal(channel, pe, signal, nullptr, 0, signal, value, op == SignalOp::add);
}

}  // namespace gpushmem::transport
