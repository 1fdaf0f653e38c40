// The load/store transport (design.md §2, §3): the symmetric regions of the node's PEs, shared as memfd
// segments (memfd_peers.hpp) and mapped into this process, so a PE reaches a peer's heap and globals with
// plain loads, stores and CPU atomics. It owns the per-PE address tables and the peers' mappings.
//
// The host API's hot paths read the tables inline (base()) and never make a virtual call for a mapped peer;
// the Transport interface (put, get, atomics, signals) is there for the generic users (the CPU proxy, tests)
// and does exactly what the inline paths do. Nothing has to progress: an operation is complete when it
// returns, so quiet and fence are memory fences. (The CUDA VMM mappings of GPU heaps are still in
// runtime/gpu.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "transport.hpp"

namespace gpushmem::node {
class PeerChannel;
struct Topology;
}  // namespace gpushmem::node

namespace gpushmem::p2p {

class P2pTransport final : public transport::Transport {
 public:
  // Empty tables for n_pes PEs (no PE mapped yet, not even this one).
  void reset(int n_pes);
  // Where PE pe's copy of `region` (`bytes` long) is reached from here: this PE's own (self is p2p), or a
  // mapping someone else made.
  void set_base(transport::Region region, int pe, char *base, uint64_t bytes);
  // Collective over the node: shares this PE's segment of `region` (memfd `fd`, mapped at `mine`, `bytes`
  // long, the same on every PE) with every local peer and maps theirs with mmap `flags`.
  Status map_node(transport::Region region, node::PeerChannel &channel, const node::Topology &topo, int fd, char *mine,
                  uint64_t bytes, int flags);
  // Unmaps every peer's segments and empties the tables (this PE's own stay: their owners release them).
  void unmap_all();

  // Where PE pe's copy of `region` is mapped in this process; nullptr when it is not (another node, or
  // GPUSHMEM_TRANSPORTS without p2p). The inline fast path of every host operation.
  char *base(transport::Region region, int pe) const { return base_[static_cast<int>(region)][pe]; }
  char *heap_base(int pe) const { return base_[0][pe]; }
  char *globals_base(int pe) const { return base_[1][pe]; }
  bool mapped(transport::Region region, int pe) const { return base(region, pe) != nullptr; }

  // transport::Transport. Reaches a PE when its heap is mapped here.
  const char *name() const override { return "p2p"; }
  bool reaches(int pe) const override;
  transport::Caps caps(int pe) const override;
  std::string describe(int pe) const override;
  // The mappings travel over the node's sockets (map_node), not in blobs: these only check the call order.
  Status register_region(transport::Region region, void *base, size_t bytes, transport::MemoryAgent *agent = nullptr,
                         transport::OneSided one_sided = {}) override;
  Status local_blob(std::vector<uint8_t> *out) override;
  Status connect(const std::vector<std::vector<uint8_t>> &blobs, const std::vector<bool> &peers) override;
  Status put(uint32_t channel, int pe, transport::RemoteRef dst, const void *src, size_t bytes,
             transport::Completion completion, transport::Token *token) override;
  Status get(uint32_t channel, int pe, void *dst, transport::RemoteRef src, size_t bytes) override;
  Status amo(uint32_t channel, int pe, transport::RemoteRef dst, transport::AmoOp op, size_t width, uint64_t operand,
             uint64_t compare, void *fetch) override;
  Status put_signal(uint32_t channel, int pe, transport::RemoteRef dst, const void *src, size_t bytes,
                    transport::RemoteRef signal, uint64_t value, bool add) override;
  Status wait(const transport::Token &token) override;
  Status quiet(uint32_t channel) override;
  Status fence(uint32_t channel) override;
  bool progress(bool) override { return false; }
  int peer_error(int) const override { return 0; }
  std::string peer_error_text(int) const override { return {}; }
  void finalize() override { unmap_all(); }

 private:
  // The address of [ref, ref + bytes) on pe, or nullptr (logged, naming `op`) when pe's region is not
  // mapped or the range leaves it.
  char *at(const char *op, int pe, transport::RemoteRef ref, size_t bytes) const;

  std::vector<char *> base_[transport::kRegions];
  uint64_t bytes_[transport::kRegions] = {};
  std::vector<char *> peer_maps_[transport::kRegions];  // the peers' mappings (not this PE's own)
};

}  // namespace gpushmem::p2p
