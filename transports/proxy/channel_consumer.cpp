#include "proxy/channel_consumer.hpp"

#include <cstring>

namespace gpushmem::proxy {

namespace {

// Host memory that the GPU (or a host producer thread) writes and this thread reads, or the reverse.
uint64_t load_acquire(const uint64_t *w) {
  return std::atomic_ref<uint64_t>(*const_cast<uint64_t *>(w)).load(std::memory_order_acquire);
}
void store_release(uint64_t *w, uint64_t v) {
  std::atomic_ref<uint64_t>(*w).store(v, std::memory_order_release);
}

}  // namespace

ChannelConsumer::ChannelConsumer(const gpushmem_proxy_channel_t &channel)
    : c_(channel), records_(new Record[channel.capacity]) {
  next_.store(load_acquire(&c_.control->tail), std::memory_order_relaxed);
  frontier_.store(next_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  published_ = load_acquire(&c_.control->completed);
}

size_t ChannelConsumer::drain(Request *out, size_t max, uint64_t now_ns) {
  const uint64_t mask = c_.capacity - 1;
  uint64_t next = next_.load(std::memory_order_relaxed);
  const uint64_t frontier = frontier_.load(std::memory_order_relaxed);
  size_t n = 0;
  while (n < max && next - frontier < c_.capacity) {
    const gpushmem_proxy_slot_t *s = c_.ring + (next & mask);
    // Acquire: pairs with the producer's release of the header (its body words are visible after it).
    const uint64_t h = load_acquire(&s->header);
    if (gpushmem_proxy_header_seq(h) != static_cast<uint32_t>(next)) break;  // not published yet
    // The producer's lines miss in this CPU's caches (the GPU wrote them): fetch a few slots ahead so the
    // misses overlap instead of one full memory latency per slot.
    __builtin_prefetch(c_.ring + ((next + kPrefetchAhead) & mask));
    Request &r = out[n++];
    r.index = next;
    std::memcpy(&r.slot, s, sizeof r.slot);
    r.slot.header = h;
    Record &rec = records_[next & mask];
    rec.consumed_ns.store(now_ns, std::memory_order_relaxed);
    rec.state.store(GPUSHMEM_PROXY_CONSUMED, std::memory_order_relaxed);
    // Release: the watchdog that reads this index sees the record's fields written above.
    rec.index.store(next, std::memory_order_release);
    ++next;
  }
  if (n != 0) {
    next_.store(next, std::memory_order_relaxed);
    // Release: the slots are copied out before a producer that sees the new tail rewrites them.
    store_release(&c_.control->tail, next);
  }
  return n;
}

void ChannelConsumer::keep(const Request &r) {
  Record &rec = records_[r.index & (c_.capacity - 1)];
  const uint64_t *w = reinterpret_cast<const uint64_t *>(&r.slot);
  for (int i = 0; i < 8; ++i) rec.words[i].store(w[i], std::memory_order_relaxed);
  // Release: a watchdog that sees `kept` sees the words.
  rec.kept.store(true, std::memory_order_release);
}

void ChannelConsumer::complete(uint64_t index) {
  const uint64_t mask = c_.capacity - 1;
  records_[index & mask].state.store(GPUSHMEM_PROXY_COMPLETED, std::memory_order_relaxed);
  uint64_t f = frontier_.load(std::memory_order_relaxed);
  if (index != f) return;  // an earlier request is still in flight
  const uint64_t next = next_.load(std::memory_order_relaxed);
  while (f < next && records_[f & mask].state.load(std::memory_order_relaxed) == GPUSHMEM_PROXY_COMPLETED) {
    records_[f & mask].state.store(GPUSHMEM_PROXY_FREE, std::memory_order_relaxed);
    records_[f & mask].kept.store(false, std::memory_order_relaxed);
    ++f;
  }
  frontier_.store(f, std::memory_order_release);
}

void ChannelConsumer::publish_completed() {
  const uint64_t f = frontier_.load(std::memory_order_relaxed);
  if (f == published_) return;
  published_ = f;
  // Release: a device thread that sees the count also sees what the completed requests delivered here (a
  // get's data, a fetched value) in host memory.
  store_release(&c_.control->completed, f);
}

bool ChannelConsumer::help_wanted() const {
  return load_acquire(&c_.control->help) > next_.load(std::memory_order_relaxed);
}

bool ChannelConsumer::oldest_pending(Pending *out) const {
  const uint64_t f = frontier_.load(std::memory_order_acquire);
  if (f >= next_.load(std::memory_order_relaxed)) return false;
  const Record &rec = records_[f & (c_.capacity - 1)];
  if (rec.index.load(std::memory_order_acquire) != f) return false;  // being rewritten: look again later
  if (!rec.kept.load(std::memory_order_acquire)) return false;       // the backend is still in execute()
  out->index = f;
  out->consumed_ns = rec.consumed_ns.load(std::memory_order_relaxed);
  auto *w = reinterpret_cast<uint64_t *>(&out->slot);
  for (int i = 0; i < 8; ++i) w[i] = rec.words[i].load(std::memory_order_relaxed);
  // Still the oldest and not reused meanwhile: the copy is of request f.
  return rec.index.load(std::memory_order_acquire) == f && frontier_.load(std::memory_order_acquire) == f;
}

uint64_t ChannelConsumer::unconsumed_header() const {
  const uint64_t next = next_.load(std::memory_order_relaxed);
  return load_acquire(&c_.ring[next & (c_.capacity - 1)].header);
}

}  // namespace gpushmem::proxy
