// The wire format of the runtime's messages over UCX (Transport::send_message): one active message carries
// a collective's or a barrier's data and its signal, and the target applies it inside its worker's progress
// (the segments copied in order, then the signal word raised or added to with release order). Over TCP this
// replaces a put, a fence and an emulated atomic (each a message the target serves, the atomic with a
// reply) by one message without a reply.
//
// Layout: Header, then `segments` SegmentHeaders, then the segments' bytes back to back. Every field is
// little-endian, as the hosts are; the blob version (ucx_transport.hpp) names the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "transport.hpp"

namespace gpushmem::ucx::message {

inline constexpr uint16_t kAmId = 1;            // UCP active-message id of the runtime's messages
inline constexpr uint32_t kMagic = 0x4d535347;  // "GSSM"

// Two ways a message travels. Eager (up to the rendezvous threshold, GPUSHMEM_UCX_RNDV_BYTES): the head and
// the payloads are the active message's data, which the target's handler gets whole and copies into place.
// Rendezvous (larger): the head is the active message's header, followed there by the bytes of the small
// segments marked inline (a collective's 32-byte header line); the target copies those at once and receives
// the other (bulk) payloads straight into their destinations (ucp_am_recv_data_nbx), then applies the signal:
// no bounce buffer to assemble and copy out on the target. One bulk segment travels as a contiguous buffer,
// which UCX moves zero-copy (an iovec of several takes its fragmented copy path over TCP: 3x slower).
struct Header {
  uint32_t magic;
  uint32_t from_pe;
  uint16_t segments;
  uint8_t op;             // transport::SignalOp
  uint8_t signal_region;  // transport::Region
  uint32_t reserved;
  uint64_t signal_offset;
  uint64_t value;
};
struct SegmentHeader {
  uint64_t offset;
  uint32_t bytes;
  uint8_t region;
  uint8_t flags;  // kInline: the bytes follow the head in a rendezvous message's header
  uint8_t reserved[2];
};
inline constexpr uint8_t kInline = 1;
// A rendezvous message carries segments up to this size in its header.
inline constexpr size_t kInlineMaxBytes = 1024;
static_assert(sizeof(Header) == 32 && offsetof(Header, segments) == 8 && offsetof(Header, signal_offset) == 16 &&
                  sizeof(SegmentHeader) == 16 && offsetof(SegmentHeader, region) == 12,
              "the message layout changed: bump kBlobVersion (ucx_transport.hpp) and the unit test");

// The head of a message (Header and one SegmentHeader per segment) into *head, then the bytes of the
// segments inline[i] marks (nullptr: none; only rendezvous messages have any); the other payloads follow on
// the wire in segment order. n at most 65535, every segment at most 4 GiB - 1.
void encode_head(int from_pe, const transport::Segment *segments, size_t n, transport::RemoteRef signal, uint64_t value,
                 transport::SignalOp op, std::vector<uint8_t> *head, const uint8_t *inline_segments = nullptr);

// Where this PE's regions lie (what a message's offsets are relative to).
struct Regions {
  char *base[transport::kRegions] = {};
  size_t bytes[transport::kRegions] = {};
};

// A checked head: where each non-empty segment goes, in order, and the signal to apply after them.
struct Place {
  char *dst;
  size_t bytes;
};
struct Plan {
  int from_pe = -1;            // the sender the head names (-1 when it is too short to say)
  size_t head_bytes = 0;       // the head's own length (Header and its SegmentHeaders)
  size_t inline_bytes = 0;     // the inline segments' bytes, right after the head
  size_t payload_bytes = 0;    // the other segments' bytes together
  std::vector<Place> inlined;  // the inline segments, in order
  std::vector<Place> places;   // the others, in order
  uint64_t *signal = nullptr;
  uint8_t op = 0;  // transport::SignalOp
  uint64_t value = 0;
};

// Checks the head at `head` (at least head_bytes readable): returns nullptr with *plan filled, or what is
// wrong with it. The caller checks that the inline bytes and the payload that came are as long as the plan
// says.
const char *parse(const void *head, size_t head_bytes, const Regions &regions, Plan *plan);

// Applies the plan's signal (release: a thread that sees the signal's value sees the segments).
void apply_signal(const Plan &plan);

// Applies a received eager message of `length` bytes: copies every segment into place, then applies the
// signal. Checks the whole message first: returns nullptr once applied, or what is wrong with it (and then
// applies nothing). *from_pe: the sender it names (-1 when the message is too short to say).
const char *apply(const void *data, size_t length, const Regions &regions, int *from_pe);

}  // namespace gpushmem::ucx::message
