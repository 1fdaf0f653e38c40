// Where a team's synchronisation words and staging buffers live: one area per team slot in every PE's host
// heap, after the user part (the "team tail" of the heap, mapped by every node-local peer like the rest).
// A slot's area is only touched by the members of the team that holds the slot, and is zeroed by each member
// when a team takes the slot (inside the collective split), so flags never carry values of an earlier team.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpushmem::team {

// Dissemination rounds of the team barrier: enough for 2^32 members.
constexpr int kBarrierRounds = 32;
// Bytes of each of the two staging buffers per slot in a job on one node: collectives whose whole exchange
// fits are pushed into the receivers' staging buffers (one synchronisation round) instead of read from the
// senders' buffers. A job that spans nodes uses GPUSHMEM_COLL_NET_SCRATCH (at least this) instead: there a
// round is a network latency, so fewer and larger rounds pay (layout().scratch_bytes says which).
constexpr uint64_t kScratchBytes = 64 * 1024;
constexpr uint64_t kNetScratchMaxBytes = 64ull << 20;
// Broadcasts up to kBcastBytes are pushed by the root into one of layout().bcast_slots slots of every
// receiver (a header line, then the data), and the root returns without waiting. Receivers report what they
// consumed in their own area (read in place by roots on their node) and, to a root reached through the
// network, every (slots / 2)-th broadcast with an acknowledgement; a root checks only before reusing a slot,
// `slots` broadcasts later.
// In a job that spans nodes, broadcasts up to kBcastNetBytes are pushed to every member: one message each
// through the network, where reading the root's buffer costs a round trip. There every message costs the
// sender about as much as the receiver (UCX over TCP: 6-8 us a message on the 2-core VM), so
// acknowledgements are rare: with 8 slots (one every 4th) an 8-byte broadcast took 9.8 against Open MPI's
// 6.9 us, with 32 (every 16th) 8.4 against 7.5 (same VM, same hour). On one node 8 slots: 32 made the
// 8-byte node-local broadcast slower (H200 host: 0.395 against 0.249 us).
constexpr uint64_t kBcastBytes = 1024;
constexpr uint64_t kBcastNetBytes = 16 * 1024;
constexpr int kBcastSlotsNode = 8;
constexpr int kBcastSlotsNet = 32;
constexpr int kBcastSlotsMax = kBcastSlotsNet;
constexpr uint64_t kBcastSlotBytes = 64 + kBcastNetBytes;

// Signal stages of one collective call. Each member has one flag per stage and per sender: sender j sets
// receiver i's flag[stage][j] to the call's epoch (release), so a flag never goes backwards and a waiter
// compares with >=.
enum Stage : int {
  kReady = 0,     // the sender's source is ready to be read (it entered the call); payload: call header
  kReduced = 1,   // the sender finished its share of a reduce-scatter
  kDone = 2,      // the sender finished reading the receiver's buffers
  kPushed = 3,    // the sender's data is in the receiver's staging buffer 0; payload: call header
  kPushed1 = 4,   // the same for staging buffer 1 (one flag per buffer: a sender may be one call ahead)
  kBcast = 5,     // a pushed broadcast's data is in the receiver's slot (bcast_seq % slots); payload and
                  // the slot's first line: call header
  kBcastAck = 6,  // value: the pushed broadcasts (by sequence number) the sender copied out, sent to their root
  kStages = 7,
};

// One signal word with room for a small header the sender writes before it (checked by receivers).
struct alignas(64) Flag {
  uint64_t epoch;
  uint64_t payload[7];
};
static_assert(sizeof(Flag) == 64, "one flag per cache line");

// Layout of one slot's area for a job of n_pes PEs.
struct AreaLayout {
  uint64_t barrier = 0;   // Flag[kBarrierRounds]
  uint64_t stages = 0;    // Flag[kStages][n_pes]
  uint64_t consumed = 0;  // uint64_t: pushed broadcasts this member has copied out (its own word, read by roots)
  uint64_t bcast = 0;     // char[bcast_slots][kBcastSlotBytes]
  uint64_t scratch = 0;   // char[2][scratch_bytes]
  int bcast_slots = kBcastSlotsNode;
  uint64_t bcast_push_bytes = kBcastBytes;  // the largest broadcast pushed to a member on the root's node
  uint64_t scratch_bytes = kScratchBytes;   // bytes of each staging buffer
  uint64_t bytes = 0;                       // whole area, a multiple of 4 KiB

  // scratch_bytes: a multiple of 4 KiB, at least kScratchBytes. network: the job spans nodes (broadcast
  // slots, and pushes kBcastNetBytes to node-local members too).
  static AreaLayout for_pes(int n_pes, uint64_t scratch_bytes = kScratchBytes, bool network = false) {
    AreaLayout l;
    l.barrier = 0;
    l.stages = l.barrier + kBarrierRounds * sizeof(Flag);
    l.consumed = l.stages + uint64_t(kStages) * uint64_t(n_pes) * sizeof(Flag);
    l.bcast = l.consumed + sizeof(Flag);
    l.bcast_slots = network ? kBcastSlotsNet : kBcastSlotsNode;
    l.bcast_push_bytes = network ? kBcastNetBytes : kBcastBytes;
    l.scratch = (l.bcast + uint64_t(l.bcast_slots) * kBcastSlotBytes + 4095) & ~uint64_t(4095);
    l.scratch_bytes = scratch_bytes;
    l.bytes = l.scratch + 2 * scratch_bytes;
    return l;
  }
};

}  // namespace gpushmem::team
