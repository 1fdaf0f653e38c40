// Distributed locks: an MCS queue lock whose whole state is the user's symmetric `long`, one copy per PE.
//
// Every PE's copy of the lock word is that PE's queue node; one PE's copy (the lock's home, chosen from the
// word's symmetric offset so independent locks spread over the PEs) also holds the queue's tail:
//
//   bits  0..30  tail: 1 + the PE that joined the queue last (home copy only); 0: the lock is free
//   bit   31     waiting: set by a PE on its own copy before it joins the queue, cleared by its predecessor
//                to hand the lock over
//   bits 32..62  next: 1 + the PE queued behind this one (written by that PE); 0: none yet
//   bit   63     unused
//
// A word of zeros on every PE is a free lock, as the specification requires of a fresh lock. Joining is
// one swap of the tail (a compare-and-swap loop that keeps the home's other bits), so the lock is granted
// in the order PEs joined (first come, first served), and each waiter polls only its own PE's word. Every
// update is one 64-bit atomic read-modify-write on a word all PEs reach through their mappings.
#pragma once

#include <cstdint>

namespace gpushmem::lock {

constexpr uint64_t kTailMask = 0x7fffffffull;
constexpr uint64_t kWaitingBit = 1ull << 31;
constexpr int kNextShift = 32;
constexpr uint64_t kNextMask = 0x7fffffffull << kNextShift;

constexpr uint64_t tail_of(uint64_t word) {
  return word & kTailMask;
}
constexpr uint64_t next_of(uint64_t word) {
  return (word & kNextMask) >> kNextShift;
}
// The field value that names PE `pe` (0 means "none").
constexpr uint64_t encode_pe(int pe) {
  return static_cast<uint64_t>(pe) + 1;
}

// The OpenSHMEM semantics; `call` names the API routine in messages.
void set_lock(const char *call, long *lock);
// 0: this PE took the lock; 1: it was held (or queued for) by some PE.
int test_lock(const char *call, long *lock);
// Completes this PE's outstanding operations (quiet), then hands the lock to the next PE in the queue.
void clear_lock(const char *call, long *lock);

}  // namespace gpushmem::lock
