// The network side of the collectives' puts and signals: a put to a PE reached through the network waits
// for the next signal or add to that PE, and the two travel as one message (Transport::send_message).
#include "coll/rma_layer.hpp"

#include "core/thread_scratch.hpp"

namespace gpushmem::coll::detail {
namespace {

// This thread's deferred puts, by PE (where each goes and where its bytes are); per thread, since
// collectives on different teams may run in different threads at once. Valid while the process exits (a
// finalize at exit still sends its barrier's messages: core/thread_scratch.hpp).
struct Deferred {
  std::vector<std::vector<transport::Segment>> by_pe;
};

std::vector<transport::Segment> &deferred(int pe) {
  std::vector<std::vector<transport::Segment>> &t = core::thread_scratch<Deferred>().by_pe;
  const size_t n = static_cast<size_t>(rt().n_pes);
  if (t.size() < n) t.resize(n);
  return t[static_cast<size_t>(pe)];
}

}  // namespace

void defer_put(void *sym_dest, const void *src, size_t n, int pe) {
  if (n != 0) deferred(pe).push_back(transport::Segment{net::ref(sym_dest), src, n});
}

void send_deferred(int pe, uint64_t *sym_sig, uint64_t value, transport::SignalOp op) {
  std::vector<transport::Segment> &pieces = deferred(pe);
  net::send_message(current_call(), net::kRuntimeChan, pe, pieces.data(), pieces.size(), sym_sig, value, op);
  pieces.clear();
}

}  // namespace gpushmem::coll::detail
