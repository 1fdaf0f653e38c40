#include "ibgda/emu/emu_memory.hpp"

#include <atomic>
#include <cstring>

namespace gpushmem::ibgda::emu {

uint32_t KeyTable::add(void *base, uint64_t bytes, uint32_t access, Copier *copier) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t key = next_++;
  regions_[key] = Region{static_cast<uint8_t *>(base), bytes, access, copier};
  return key;
}

void KeyTable::remove(uint32_t key) {
  std::lock_guard<std::mutex> lock(mu_);
  regions_.erase(key);
}

const KeyTable::Region *KeyTable::find(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const {
  const auto it = regions_.find(key);
  if (it == regions_.end()) return nullptr;
  const Region &r = it->second;
  const auto start = reinterpret_cast<uint64_t>(r.base);
  if ((r.access & need) != need || addr < start || addr - start > r.bytes || bytes > r.bytes - (addr - start))
    return nullptr;
  return &r;
}

uint8_t *KeyTable::resolve(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const {
  std::lock_guard<std::mutex> lock(mu_);
  const Region *r = find(key, addr, bytes, need);
  if (r == nullptr || r->copier != nullptr) return nullptr;
  return r->base + (addr - reinterpret_cast<uint64_t>(r->base));
}

bool KeyTable::allows(uint32_t key, uint64_t addr, uint64_t bytes, uint32_t need) const {
  std::lock_guard<std::mutex> lock(mu_);
  return find(key, addr, bytes, need) != nullptr;
}

uint32_t KeyTable::load(uint32_t key, uint64_t addr, uint64_t bytes, std::vector<uint8_t> *scratch,
                        const uint8_t **out) const {
  Region r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Region *found = find(key, addr, bytes, 0);
    if (found == nullptr) return GPUSHMEM_MLX5_SYND_LOCAL_PROT;
    r = *found;
  }
  const uint8_t *at = r.base + (addr - reinterpret_cast<uint64_t>(r.base));
  if (r.copier == nullptr) {
    *out = at;
    return GPUSHMEM_MLX5_SYND_OK;
  }
  if (scratch->size() < bytes) scratch->resize(bytes);
  if (bytes != 0 && !r.copier->to_host(scratch->data(), at, bytes)) return GPUSHMEM_MLX5_SYND_LOCAL_ACCESS;
  *out = scratch->data();
  return GPUSHMEM_MLX5_SYND_OK;
}

uint32_t KeyTable::store(uint32_t key, uint64_t addr, const uint8_t *src, uint64_t bytes) const {
  Region r;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const Region *found = find(key, addr, bytes, kLocalWrite);
    if (found == nullptr) return GPUSHMEM_MLX5_SYND_LOCAL_PROT;
    r = *found;
  }
  uint8_t *at = r.base + (addr - reinterpret_cast<uint64_t>(r.base));
  if (bytes == 0) return GPUSHMEM_MLX5_SYND_OK;
  if (r.copier == nullptr) {
    std::memcpy(at, src, bytes);
    return GPUSHMEM_MLX5_SYND_OK;
  }
  return r.copier->from_host(at, src, bytes) ? GPUSHMEM_MLX5_SYND_OK : GPUSHMEM_MLX5_SYND_LOCAL_ACCESS;
}

namespace {

template <typename T>
uint64_t apply_width(T *word, const mlx5::Decoded &d) {
  std::atomic_ref<T> w(*word);
  T old = w.load(std::memory_order_acquire);
  for (;;) {
    T next = old;
    switch (d.opcode) {
      case GPUSHMEM_MLX5_OP_ATOMIC_FA:
        next = static_cast<T>(old + d.swap_add);
        break;
      case GPUSHMEM_MLX5_OP_ATOMIC_CS:
        next = old == static_cast<T>(d.compare) ? static_cast<T>(d.swap_add) : old;
        break;
      case GPUSHMEM_MLX5_OP_ATOMIC_MASKED_FA:
        next = static_cast<T>(mlx5::apply_masked_fetch_add(old, d.swap_add, d.compare, d.bytes));
        break;
      default:  // GPUSHMEM_MLX5_OP_ATOMIC_MASKED_CS
        next = static_cast<T>(
            mlx5::apply_masked_compare_swap(old, d.swap_add, d.compare, d.swap_mask, d.compare_mask, d.bytes));
        break;
    }
    if (next == old) return old;  // nothing to write (a failed compare): the old value is the answer
    if (w.compare_exchange_weak(old, next, std::memory_order_acq_rel, std::memory_order_acquire)) return old;
  }
}

}  // namespace

uint64_t apply_atomic(uint8_t *word, const mlx5::Decoded &d) {
  if (d.bytes == 4) return apply_width(reinterpret_cast<uint32_t *>(word), d);
  return apply_width(reinterpret_cast<uint64_t *>(word), d);
}

uint32_t LocalTarget::write(uint32_t rkey, uint64_t raddr, const uint8_t *src, uint32_t bytes) {
  uint8_t *dst = keys_->resolve(rkey, raddr, bytes, kRemoteWrite);
  if (dst == nullptr) return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  if (bytes != 0) std::memcpy(dst, src, bytes);
  return GPUSHMEM_MLX5_SYND_OK;
}

uint32_t LocalTarget::read(uint32_t rkey, uint64_t raddr, uint8_t *dst, uint32_t bytes) {
  const uint8_t *src = keys_->resolve(rkey, raddr, bytes, kRemoteRead);
  if (src == nullptr) return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  if (bytes != 0) std::memcpy(dst, src, bytes);
  return GPUSHMEM_MLX5_SYND_OK;
}

uint32_t LocalTarget::atomic(const mlx5::Decoded &d, uint64_t *old) {
  uint8_t *word = keys_->resolve(d.rkey, d.raddr, d.bytes, kRemoteAtomic);
  if (word == nullptr || d.raddr % d.bytes != 0) return GPUSHMEM_MLX5_SYND_REMOTE_ACCESS;
  *old = apply_atomic(word, d);
  return GPUSHMEM_MLX5_SYND_OK;
}

}  // namespace gpushmem::ibgda::emu
