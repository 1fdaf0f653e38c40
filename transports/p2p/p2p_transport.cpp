#include "p2p/p2p_transport.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

#include "core/log.hpp"
#include "node/peer_channel.hpp"
#include "node/topology.hpp"
#include "p2p/memfd_peers.hpp"

namespace gpushmem::p2p {

using transport::AmoOp;
using transport::Region;
using transport::RemoteRef;

namespace {

const char *region_name(Region r) {
  return r == Region::heap ? "heap" : "globals";
}

// One atomic of the spec on a 4- or 8-byte word through a mapping (T = uint32_t or uint64_t).
template <class T>
void apply(T *word, AmoOp op, uint64_t operand, uint64_t compare, void *fetch) {
  std::atomic_ref<T> w(*word);
  const T v = static_cast<T>(operand);
  T old = 0;
  switch (op) {
    case AmoOp::load:
      old = w.load(std::memory_order_acquire);
      break;
    case AmoOp::store:
      w.store(v, std::memory_order_release);
      return;
    case AmoOp::swap:
      old = w.exchange(v, std::memory_order_acq_rel);
      break;
    case AmoOp::cswap:
      old = static_cast<T>(compare);
      (void)w.compare_exchange_strong(old, v, std::memory_order_acq_rel, std::memory_order_acquire);
      break;
    case AmoOp::add:
      old = w.fetch_add(v, std::memory_order_acq_rel);
      break;
    case AmoOp::and_:
      old = w.fetch_and(v, std::memory_order_acq_rel);
      break;
    case AmoOp::or_:
      old = w.fetch_or(v, std::memory_order_acq_rel);
      break;
    case AmoOp::xor_:
      old = w.fetch_xor(v, std::memory_order_acq_rel);
      break;
  }
  if (fetch != nullptr) std::memcpy(fetch, &old, sizeof(T));
}

}  // namespace

void P2pTransport::reset(int n_pes) {
  for (int r = 0; r < transport::kRegions; ++r) {
    base_[r].assign(static_cast<size_t>(n_pes), nullptr);
    bytes_[r] = 0;
  }
}

void P2pTransport::set_base(Region region, int pe, char *base, uint64_t bytes) {
  const int r = static_cast<int>(region);
  base_[r][static_cast<size_t>(pe)] = base;
  bytes_[r] = bytes;
}

Status P2pTransport::map_node(Region region, node::PeerChannel &channel, const node::Topology &topo, int fd, char *mine,
                              uint64_t bytes, int flags) {
  const int r = static_cast<int>(region);
  std::vector<char *> local;
  Status st =
      map_node_segments(channel, topo.local_rank, fd, mine, bytes, flags, region_name(region), &local, &peer_maps_[r]);
  bytes_[r] = bytes;
  if (st != Status::ok) return st;
  for (size_t i = 0; i < local.size(); ++i) base_[r][static_cast<size_t>(topo.local_pes[i])] = local[i];
  return Status::ok;
}

void P2pTransport::unmap_all() {
  for (int r = 0; r < transport::kRegions; ++r) {
    for (char *p : peer_maps_[r]) munmap(p, bytes_[r]);
    peer_maps_[r].clear();
    base_[r].assign(base_[r].size(), nullptr);
  }
}

bool P2pTransport::reaches(int pe) const {
  return pe >= 0 && static_cast<size_t>(pe) < base_[0].size() && base_[0][static_cast<size_t>(pe)] != nullptr;
}

transport::Caps P2pTransport::caps(int pe) const {
  transport::Caps c;
  if (!reaches(pe)) return c;
  c.rma = c.amo32 = c.amo64 = c.fetching_amo = c.remote_ordering = true;
  return c;
}

std::string P2pTransport::describe(int pe) const {
  if (!reaches(pe)) return "p2p: not mapped here";
  return mapped(Region::globals, pe) ? "p2p: shared host memory (memfd), heap and globals mapped"
                                     : "p2p: shared host memory (memfd), heap mapped";
}

Status P2pTransport::register_region(Region, void *, size_t, transport::MemoryAgent *agent, transport::OneSided) {
  return agent == nullptr ? Status::ok : Status::not_supported;  // mapped memory only
}

Status P2pTransport::local_blob(std::vector<uint8_t> *out) {
  out->clear();
  return Status::ok;
}

Status P2pTransport::connect(const std::vector<std::vector<uint8_t>> &, const std::vector<bool> &peers) {
  for (size_t pe = 0; pe < peers.size(); ++pe)
    if (peers[pe] && !reaches(static_cast<int>(pe))) {
      GPUSHMEM_LOG_ERROR(log::Subsys::net, "p2p: PE %zu's heap is not mapped here: it is not on this node", pe);
      return Status::not_supported;
    }
  return Status::ok;
}

char *P2pTransport::at(const char *op, int pe, RemoteRef ref, size_t bytes) const {
  const int r = static_cast<int>(ref.region);
  char *b = pe >= 0 && static_cast<size_t>(pe) < base_[r].size() ? base_[r][static_cast<size_t>(pe)] : nullptr;
  if (b == nullptr) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "p2p: %s: PE %d has no %s mapping here", op, pe, region_name(ref.region));
    return nullptr;
  }
  if (ref.offset > bytes_[r] || bytes > bytes_[r] - ref.offset) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "p2p: %s of %zu bytes at offset %llu leaves PE %d's %s (%llu bytes)", op,
                       bytes, static_cast<unsigned long long>(ref.offset), pe, region_name(ref.region),
                       static_cast<unsigned long long>(bytes_[r]));
    return nullptr;
  }
  return b + ref.offset;
}

Status P2pTransport::put(uint32_t, int pe, RemoteRef dst, const void *src, size_t bytes, transport::Completion,
                         transport::Token *token) {
  char *p = at("put", pe, dst, bytes);
  if (p == nullptr) return Status::invalid_argument;
  std::memcpy(p, src, bytes);
  if (token != nullptr) *token = transport::Token{};  // complete already
  return Status::ok;
}

Status P2pTransport::get(uint32_t, int pe, void *dst, RemoteRef src, size_t bytes) {
  const char *p = at("get", pe, src, bytes);
  if (p == nullptr) return Status::invalid_argument;
  std::memcpy(dst, p, bytes);
  return Status::ok;
}

Status P2pTransport::amo(uint32_t, int pe, RemoteRef dst, AmoOp op, size_t width, uint64_t operand, uint64_t compare,
                         void *fetch) {
  if ((width != 4 && width != 8) || dst.offset % width != 0) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "p2p: %s: width %zu at offset %llu is not an aligned 4- or 8-byte word",
                       transport::amo_op_name(op), width, static_cast<unsigned long long>(dst.offset));
    return Status::invalid_argument;
  }
  char *p = at(transport::amo_op_name(op), pe, dst, width);
  if (p == nullptr) return Status::invalid_argument;
  if (width == 4)
    apply(reinterpret_cast<uint32_t *>(p), op, operand, compare, fetch);
  else
    apply(reinterpret_cast<uint64_t *>(p), op, operand, compare, fetch);
  return Status::ok;
}

Status P2pTransport::put_signal(uint32_t channel, int pe, RemoteRef dst, const void *src, size_t bytes,
                                RemoteRef signal, uint64_t value, bool add) {
  if (signal.offset % 8 != 0) [[unlikely]] {
    GPUSHMEM_LOG_ERROR(log::Subsys::net, "p2p: put_signal: the signal at offset %llu is not an aligned 64-bit word",
                       static_cast<unsigned long long>(signal.offset));
    return Status::invalid_argument;
  }
  char *sig = at("put_signal's signal", pe, signal, 8);
  if (sig == nullptr) return Status::invalid_argument;
  GPUSHMEM_CHECK(put(channel, pe, dst, src, bytes, transport::Completion::local, nullptr));
  // Release: a PE that sees the signal sees the payload.
  std::atomic_ref<uint64_t> w(*reinterpret_cast<uint64_t *>(sig));
  if (add)
    w.fetch_add(value, std::memory_order_release);
  else
    w.store(value, std::memory_order_release);
  return Status::ok;
}

Status P2pTransport::wait(const transport::Token &) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Status::ok;
}

Status P2pTransport::quiet(uint32_t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Status::ok;
}

Status P2pTransport::fence(uint32_t) {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  return Status::ok;
}

}  // namespace gpushmem::p2p
