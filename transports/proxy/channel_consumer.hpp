// The proxy's side of one channel (gpushmem/proxy_channel.h): takes published slots out of the ring in
// order, raises `tail` once a batch is copied out, keeps the requests it handed to the backend until they
// complete, and publishes `completed` (in slot order, once per drain round).
//
// One proxy thread owns a channel: drain, complete and publish_completed run on it. The watchdog thread
// reads a consistent view through oldest_pending() and unconsumed_header(), without locks: the fields it
// reads are atomics, and it re-checks the index to reject a record rewritten while it read it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "gpushmem/proxy_channel.h"

namespace gpushmem::proxy {

// One request as the proxy sees it: its channel-wide index and a copy of its slot.
struct Request {
  uint64_t index;
  gpushmem_proxy_slot_t slot;
};

// What the watchdog learns about the oldest request handed to the backend and not complete yet.
struct Pending {
  uint64_t index;
  gpushmem_proxy_slot_t slot;
  uint64_t consumed_ns;  // steady clock
};

class ChannelConsumer {
 public:
  explicit ChannelConsumer(const gpushmem_proxy_channel_t &channel);

  // Copies out up to `max` published slots, in order, into out[], records them CONSUMED and raises tail past
  // them. Stops at the first slot not yet published, and when `capacity` requests are in flight (the
  // backend has not completed them): a full in-flight table back-pressures the ring. Returns the count.
  size_t drain(Request *out, size_t max, uint64_t now_ns);
  // The backend keeps request r in flight (it did not complete in execute): its slot is recorded for the
  // watchdog. Requests that complete at once skip this copy.
  void keep(const Request &r);
  // The backend completed request `index` (any order): COMPLETED.
  void complete(uint64_t index);
  // Writes `completed` when it moved since the last call: every request before it is complete.
  void publish_completed();

  uint64_t next() const { return next_.load(std::memory_order_relaxed); }          // first index not consumed
  uint64_t frontier() const { return frontier_.load(std::memory_order_relaxed); }  // first index not complete
  // A producer above the high-water mark asked for help and the ring is not drained to where it asked.
  bool help_wanted() const;
  const gpushmem_proxy_channel_t &channel() const { return c_; }

  // For the watchdog (another thread): the oldest in-flight request, or false when none is in flight.
  bool oldest_pending(Pending *out) const;
  // The header at the next slot to consume (seq == next: published and waiting for the proxy).
  uint64_t unconsumed_header() const;

 private:
  struct Record {
    std::atomic<uint64_t> index{~0ull};
    std::atomic<uint64_t> consumed_ns{0};
    std::atomic<uint64_t> words[8] = {};
    std::atomic<uint8_t> state{GPUSHMEM_PROXY_FREE};
    std::atomic<bool> kept{false};  // words[] hold the request (keep)
  };
  static constexpr uint64_t kPrefetchAhead = 4;
  gpushmem_proxy_channel_t c_;
  std::unique_ptr<Record[]> records_;  // capacity records; request i at records_[i % capacity]
  std::atomic<uint64_t> next_{0};
  std::atomic<uint64_t> frontier_{0};
  uint64_t published_ = 0;  // the last value written to control->completed
};

}  // namespace gpushmem::proxy
