// The staging pipeline of a transfer between a GPU buffer and the network where the network reaches host memory
// only (no GPUDirect): two host buffers, so that the copy engine moves one chunk while the network moves the
// other. With one buffer each chunk costs copy + transfer; with two, the larger of the two (design.md §4).
//
// The steps are callables, so the same logic runs with CUDA copies (net.cpp) and with host memory in the tests:
//   start_copy(dst, src, n)  starts a copy (asynchronous); false if it could not start
//   wait_copy()              waits for the copy started last; false if it failed
//   send(offset, buf, n)     puts n bytes from buf at `offset` of the transfer; returns once buf may be reused
//   receive(offset, buf, n)  gets n bytes at `offset` of the transfer into buf; complete when it returns
// At most one copy is in flight, and every copy started is waited for before the function returns, also when a
// step fails (the buffers are not reused while a copy may still read or write them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpushmem::net {

// Device -> network: the copy of chunk k + 1 into one buffer overlaps the send of chunk k from the other.
template <class StartCopy, class WaitCopy, class Send>
bool stage_out(const char *device_src, size_t bytes, size_t chunk, uint8_t *const buf[2], StartCopy start_copy,
               WaitCopy wait_copy, Send send) {
  if (bytes == 0) return true;
  size_t off = 0, n = bytes < chunk ? bytes : chunk;
  if (!start_copy(buf[0], device_src, n) || !wait_copy()) return false;
  for (int k = 0;; k ^= 1) {
    const size_t next = off + n;
    const size_t next_n = next < bytes ? (bytes - next < chunk ? bytes - next : chunk) : 0;
    bool copying = false;
    if (next_n != 0) {
      if (!start_copy(buf[k ^ 1], device_src + next, next_n)) return false;
      copying = true;
    }
    if (!send(off, buf[k], n)) {
      if (copying) (void)wait_copy();
      return false;
    }
    if (!copying) return true;
    if (!wait_copy()) return false;
    off = next;
    n = next_n;
  }
}

// Network -> device: the receive of chunk k + 1 into one buffer overlaps the copy of chunk k out of the other.
template <class Receive, class StartCopy, class WaitCopy>
bool stage_in(char *device_dst, size_t bytes, size_t chunk, uint8_t *const buf[2], Receive receive,
              StartCopy start_copy, WaitCopy wait_copy) {
  bool copying = false;  // the copy of the previous chunk, out of the other buffer
  int k = 0;
  for (size_t off = 0; off < bytes; k ^= 1) {
    const size_t n = bytes - off < chunk ? bytes - off : chunk;
    if (!receive(off, buf[k], n)) {
      if (copying) (void)wait_copy();
      return false;
    }
    if (copying && !wait_copy()) return false;
    if (!start_copy(device_dst + off, buf[k], n)) return false;
    copying = true;
    off += n;
  }
  return !copying || wait_copy();
}

}  // namespace gpushmem::net
