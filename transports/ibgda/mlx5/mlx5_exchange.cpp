#include "ibgda/mlx5/mlx5_exchange.hpp"

#include <cstddef>
#include <cstdio>
#include <cstring>

namespace gpushmem::ibgda::mlx5nic {
namespace {

// The card on the wire: fixed-width fields, explicit padding.
struct Wire {
  uint32_t magic;
  uint32_t version;
  uint32_t ready;
  uint32_t n_pes;
  uint32_t qps_per_peer;
  uint8_t port;
  uint8_t link_layer;
  uint8_t mtu;
  uint8_t log_rra_max;
  uint16_t lid;
  uint8_t roce_v2;
  uint8_t pad0;
  uint32_t rkey;
  uint8_t gid[16];
  uint64_t heap_base;
  uint64_t heap_bytes;
  char why[kWhyBytes];
};
static_assert(offsetof(Wire, gid) == 32 && offsetof(Wire, heap_base) == 48 && sizeof(Wire) == 64 + kWhyBytes,
              "IBGDA connection card layout");

// The agreement of step 3.
struct Verdict {
  uint32_t ok;
  char why[kWhyBytes];
};

void copy_why(char *dst, const std::string &src) {
  const size_t n = src.size() < kWhyBytes - 1 ? src.size() : kWhyBytes - 1;
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

std::string read_why(const char *src) {
  return std::string(src, strnlen(src, kWhyBytes));
}

}  // namespace

size_t card_bytes() {
  return sizeof(Wire);
}

std::vector<uint8_t> pack_card(const PeerCard &c) {
  Wire w;
  std::memset(&w, 0, sizeof w);
  w.magic = kCardMagic;
  w.version = kCardVersion;
  w.ready = c.ready ? 1 : 0;
  w.n_pes = static_cast<uint32_t>(c.n_pes);
  w.qps_per_peer = c.qps_per_peer;
  w.port = c.port;
  w.link_layer = c.link_layer;
  w.mtu = c.mtu;
  w.log_rra_max = c.log_rra_max;
  w.lid = c.lid;
  w.roce_v2 = c.roce_v2 ? 1 : 0;
  w.rkey = c.rkey;
  std::memcpy(w.gid, c.gid, sizeof w.gid);
  w.heap_base = c.heap_base;
  w.heap_bytes = c.heap_bytes;
  copy_why(w.why, c.why);
  std::vector<uint8_t> out(sizeof w);
  std::memcpy(out.data(), &w, sizeof w);
  return out;
}

bool unpack_card(const uint8_t *bytes, PeerCard *c, std::string *why) {
  Wire w;
  std::memcpy(&w, bytes, sizeof w);
  if (w.magic != kCardMagic || w.version != kCardVersion) {
    char text[96];
    std::snprintf(text, sizeof text, "a connection card of another format (magic 0x%08x, version %u)", w.magic,
                  w.version);
    *why = std::string(text) + ": every PE must run the same gpushmem";
    return false;
  }
  c->ready = w.ready != 0;
  c->n_pes = static_cast<int>(w.n_pes);
  c->qps_per_peer = w.qps_per_peer;
  c->port = w.port;
  c->link_layer = w.link_layer;
  c->mtu = w.mtu;
  c->log_rra_max = w.log_rra_max;
  c->lid = w.lid;
  c->roce_v2 = w.roce_v2 != 0;
  c->rkey = w.rkey;
  std::memcpy(c->gid, w.gid, sizeof c->gid);
  c->heap_base = w.heap_base;
  c->heap_bytes = w.heap_bytes;
  c->why = read_why(w.why);
  return true;
}

bool cards_agree(const std::vector<PeerCard> &cards, int my_pe, std::string *why) {
  const PeerCard &me = cards[static_cast<size_t>(my_pe)];
  if (!me.ready) {
    *why = me.why;
    return false;
  }
  for (size_t pe = 0; pe < cards.size(); ++pe) {
    const PeerCard &c = cards[pe];
    if (!c.ready) {
      *why = "PE " + std::to_string(pe) + " could not prepare IBGDA: " + c.why;
      return false;
    }
    if (c.n_pes != me.n_pes || c.qps_per_peer != me.qps_per_peer) {
      *why = "PE " + std::to_string(pe) + " has " + std::to_string(c.qps_per_peer) + " queue pairs per peer, this PE " +
             std::to_string(me.qps_per_peer) + ": every PE must set the same GPUSHMEM_IBGDA_QPS_PER_PEER";
      return false;
    }
  }
  return true;
}

bool exchange_cards(const Allgather &allgather, const PeerCard &mine, int my_pe, int n_pes,
                    std::vector<PeerCard> *cards, std::string *why) {
  const std::vector<uint8_t> packed = pack_card(mine);
  std::vector<uint8_t> all(packed.size() * static_cast<size_t>(n_pes));
  if (!allgather(packed.data(), all.data(), packed.size())) {
    *why = "the bootstrap's allgather of the IBGDA connection cards failed";
    return false;
  }
  cards->assign(static_cast<size_t>(n_pes), PeerCard{});
  for (int pe = 0; pe < n_pes; ++pe) {
    std::string bad;
    if (!unpack_card(all.data() + static_cast<size_t>(pe) * packed.size(), &(*cards)[static_cast<size_t>(pe)], &bad)) {
      *why = "PE " + std::to_string(pe) + " sent " + bad;
      return false;
    }
  }
  return cards_agree(*cards, my_pe, why);
}

bool exchange_qpns(const Allgather &allgather, const std::vector<uint32_t> &mine, int n_pes, std::vector<uint32_t> *all,
                   std::string *why) {
  all->assign(mine.size() * static_cast<size_t>(n_pes), 0);
  if (!allgather(mine.data(), all->data(), mine.size() * sizeof(uint32_t))) {
    *why = "the bootstrap's allgather of the IBGDA queue pair numbers failed";
    return false;
  }
  return true;
}

bool agree(const Allgather &allgather, int n_pes, bool ok, const std::string &my_why, std::string *why) {
  Verdict v;
  std::memset(&v, 0, sizeof v);
  v.ok = ok ? 1 : 0;
  copy_why(v.why, my_why);
  std::vector<Verdict> all(static_cast<size_t>(n_pes));
  if (!allgather(&v, all.data(), sizeof v)) {
    *why = "the bootstrap's allgather of the IBGDA connection results failed";
    return false;
  }
  if (!ok) {
    *why = my_why;
    return false;
  }
  for (int pe = 0; pe < n_pes; ++pe) {
    if (all[static_cast<size_t>(pe)].ok != 0) continue;
    *why = "PE " + std::to_string(pe) +
           " could not connect its IBGDA queue pairs: " + read_why(all[static_cast<size_t>(pe)].why);
    return false;
  }
  return true;
}

}  // namespace gpushmem::ibgda::mlx5nic
