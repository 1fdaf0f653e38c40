// The network side of the collectives' puts and signals: a put to a PE reached through the network waits,
// copied, for the next signal or add to that PE, and the two travel as one message (Transport::send_message).
#include "coll/rma_layer.hpp"

namespace gpushmem::coll::detail {
namespace {

// This thread's deferred puts to one PE: their payloads back to back, and where each goes.
struct Deferred {
  std::vector<char> bytes;
  std::vector<std::pair<void *, size_t>> pieces;  // symmetric destination, bytes
};

// By PE; per thread, since collectives on different teams may run in different threads at once.
thread_local std::vector<Deferred> t_deferred;
thread_local std::vector<transport::Segment> t_segments;

Deferred &deferred(int pe) {
  const size_t n = static_cast<size_t>(rt().n_pes);
  if (t_deferred.size() < n) t_deferred.resize(n);
  return t_deferred[static_cast<size_t>(pe)];
}

// Payloads kept beyond this between calls are given back.
constexpr size_t kKeepBytes = size_t(1) << 20;

}  // namespace

void defer_put(void *sym_dest, const void *src, size_t n, int pe) {
  if (n == 0) return;
  Deferred &d = deferred(pe);
  const size_t at = d.bytes.size();
  d.bytes.resize(at + n);
  std::memcpy(d.bytes.data() + at, src, n);
  d.pieces.emplace_back(sym_dest, n);
}

void send_deferred(int pe, uint64_t *sym_sig, uint64_t value, transport::SignalOp op) {
  Deferred &d = deferred(pe);
  t_segments.clear();
  size_t at = 0;
  for (const auto &[sym, n] : d.pieces) {
    t_segments.push_back(transport::Segment{net::ref(sym), d.bytes.data() + at, n});
    at += n;
  }
  net::send_message(kCollCall, net::kRuntimeChan, pe, t_segments.data(), t_segments.size(), sym_sig, value, op);
  d.pieces.clear();
  if (d.bytes.capacity() > kKeepBytes)
    std::vector<char>().swap(d.bytes);
  else
    d.bytes.clear();
}

}  // namespace gpushmem::coll::detail
