#include "ibgda/emu/transport_target.hpp"

namespace gpushmem::ibgda::emu {

using transport::AmoOp;

uint32_t TransportTarget::add_key(int pe, transport::Region region, uint64_t base, uint64_t bytes, uint32_t access) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t key = next_++;
  keys_[key] = Key{pe, region, base, bytes, access};
  return key;
}

bool TransportTarget::resolve(uint32_t rkey, uint64_t raddr, uint64_t bytes, uint32_t need, int *pe,
                              transport::RemoteRef *ref) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = keys_.find(rkey);
  if (it == keys_.end()) return false;
  const Key &k = it->second;
  if ((k.access & need) != need || raddr < k.base || raddr - k.base > k.bytes || bytes > k.bytes - (raddr - k.base))
    return false;
  *pe = k.pe;
  ref->region = k.region;
  ref->offset = raddr - k.base;
  return true;
}

uint32_t TransportTarget::failed(int pe) const {
  return t_->peer_error(pe) != 0 ? GPUSHMEM_MLX5_SYND_TRANSPORT_RETRY_EXC : GPUSHMEM_MLX5_SYND_REMOTE_OP;
}

uint32_t TransportTarget::write(uint32_t rkey, uint64_t raddr, const uint8_t *src, uint32_t bytes) {
  int pe = -1;
  transport::RemoteRef ref{};
  if (!resolve(rkey, raddr, bytes, kRemoteWrite, &pe, &ref)) return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  if (bytes == 0) return GPUSHMEM_MLX5_SYND_OK;
  transport::Token token;
  if (t_->put(channel_, pe, ref, src, bytes, transport::Completion::local, &token) != Status::ok ||
      t_->wait(token) != Status::ok)
    return failed(pe);
  return GPUSHMEM_MLX5_SYND_OK;
}

uint32_t TransportTarget::read(uint32_t rkey, uint64_t raddr, uint8_t *dst, uint32_t bytes) {
  int pe = -1;
  transport::RemoteRef ref{};
  if (!resolve(rkey, raddr, bytes, kRemoteRead, &pe, &ref)) return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  if (bytes == 0) return GPUSHMEM_MLX5_SYND_OK;
  if (t_->get(channel_, pe, dst, ref, bytes) != Status::ok) return failed(pe);
  return GPUSHMEM_MLX5_SYND_OK;
}

uint32_t TransportTarget::atomic(const mlx5::Decoded &d, uint64_t *old) {
  int pe = -1;
  transport::RemoteRef ref{};
  if (d.raddr % d.bytes != 0 || !resolve(d.rkey, d.raddr, d.bytes, kRemoteAtomic, &pe, &ref))
    return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  const size_t width = d.bytes;
  const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
  uint64_t fetched = 0;
  const auto amo = [&](AmoOp op, uint64_t operand, uint64_t compare) {
    fetched = 0;
    return t_->amo(channel_, pe, ref, op, width, operand & mask, compare & mask, &fetched) == Status::ok;
  };
  switch (d.opcode) {
    case GPUSHMEM_MLX5_OP_ATOMIC_FA:
      if (!amo(AmoOp::add, d.swap_add, 0)) return failed(pe);
      *old = fetched;
      return GPUSHMEM_MLX5_SYND_OK;
    case GPUSHMEM_MLX5_OP_ATOMIC_CS:
      if (!amo(AmoOp::cswap, d.swap_add, d.compare)) return failed(pe);
      *old = fetched;
      return GPUSHMEM_MLX5_SYND_OK;
    default: {
      // The masked forms: read, compute, compare-and-swap until no other atomic came in between.
      if (!amo(AmoOp::load, 0, 0)) return failed(pe);
      uint64_t seen = fetched & mask;
      for (;;) {
        const uint64_t next =
            d.opcode == GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA
                ? mlx5::apply_masked_fetch_add(seen, d.swap_add, d.compare, d.bytes)
                : mlx5::apply_masked_compare_swap(seen, d.swap_add, d.compare, d.swap_mask, d.compare_mask, d.bytes);
        if (next == seen) break;  // nothing to change (a compare that failed, adding zero)
        if (!amo(AmoOp::cswap, next, seen)) return failed(pe);
        if ((fetched & mask) == seen) break;
        seen = fetched & mask;
      }
      *old = seen;
      return GPUSHMEM_MLX5_SYND_OK;
    }
  }
}

}  // namespace gpushmem::ibgda::emu
