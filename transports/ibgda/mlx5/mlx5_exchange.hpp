// What the PEs tell each other to connect their IBGDA queue pairs (RC: each QP has one partner, the peer's QP for
// the same pair and index), through the bootstrap's allgather. Three collective steps, the same on every PE
// whatever happened locally, so that no PE waits in one another never enters:
//   1. a card of fixed size: whether this PE is ready (and why not), how to address it (port, link layer, LID or
//      GID, MTU, read/atomic depth), its heap's rkey, base and registered length, and the layout it was given;
//   2. only when every card says ready and the layouts agree: each PE's QP numbers, [pe * Q + q] its QP to PE pe;
//   3. after connecting: whether every PE's QPs reached RTS (and the first that did not, why).
// A PE that fails at step 1 or 2 still takes part in every step the others take; every PE then reads the same
// cards and makes the same decision. Host byte order throughout: the PEs run on one kind of host (mlx5_format.h
// assumes little-endian hosts).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpushmem::ibgda::mlx5nic {

// Every PE contributes `bytes` at mine; all receives n_pes blocks, PE p's at p * bytes. False when it failed.
using Allgather = std::function<bool(const void *mine, void *all, size_t bytes)>;

struct PeerCard {
  bool ready = false;
  std::string why;  // when not ready: what failed there (cut to kWhyBytes - 1)
  int n_pes = 0;    // the layout it was given (must match)
  uint32_t qps_per_peer = 0;
  uint8_t port = 0;
  uint8_t link_layer = 0;  // 1 InfiniBand, 2 Ethernet (IBV_LINK_LAYER_*)
  uint8_t mtu = 0;         // enum ibv_mtu: 1 (256) .. 5 (4096)
  uint8_t log_rra_max = 0;
  uint16_t lid = 0;
  uint8_t gid[16] = {};
  bool roce_v2 = false;
  uint32_t rkey = 0;
  uint64_t heap_base = 0;  // the heap's address there, the iova its rkey covers from
  uint64_t heap_bytes = 0;
};

constexpr size_t kWhyBytes = 320;
constexpr uint32_t kCardMagic = 0x49424741u;  // "IBGA"
constexpr uint32_t kCardVersion = 1;

// Fixed size, so that every PE allgathers the same number of bytes whatever its layout.
size_t card_bytes();
std::vector<uint8_t> pack_card(const PeerCard &c);
// False with *why when the bytes are not a card of this version.
bool unpack_card(const uint8_t *bytes, PeerCard *c, std::string *why);

// Step 1. False with *why when the allgather failed, a card is malformed, a PE is not ready ("PE 3: ..."), or the
// layouts differ; every PE gets the same answer from the same cards.
bool exchange_cards(const Allgather &allgather, const PeerCard &mine, int my_pe, int n_pes,
                    std::vector<PeerCard> *cards, std::string *why);
// The decision step 1 takes from the gathered cards (exchange_cards' second half, tested apart).
bool cards_agree(const std::vector<PeerCard> &cards, int my_pe, std::string *why);

// Step 2: `mine` holds n_pes * Q numbers; *all receives every PE's, PE p's at p * n_pes * Q.
bool exchange_qpns(const Allgather &allgather, const std::vector<uint32_t> &mine, int n_pes, std::vector<uint32_t> *all,
                   std::string *why);
// The QP of PE `pe` that pairs with this PE's QP q to it.
inline uint32_t partner_qpn(const std::vector<uint32_t> &all, int n_pes, uint32_t qps_per_peer, int pe, int me,
                            uint32_t q) {
  const size_t per_pe = static_cast<size_t>(n_pes) * qps_per_peer;
  return all[static_cast<size_t>(pe) * per_pe + static_cast<size_t>(me) * qps_per_peer + q];
}

// Step 3: false with *why (this PE's reason, or the first other PE's) unless every PE says ok.
bool agree(const Allgather &allgather, int n_pes, bool ok, const std::string &my_why, std::string *why);

}  // namespace gpushmem::ibgda::mlx5nic
