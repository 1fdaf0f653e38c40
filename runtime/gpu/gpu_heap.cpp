#include "gpu/gpu_heap.hpp"

#include <unistd.h>

#include "node/peer_channel.hpp"

namespace gpushmem::gpu {
namespace {

constexpr const char *kMemoryAdvice =
    "the GPU has too little free memory for the symmetric heap: lower SHMEM_SYMMETRIC_SIZE or "
    "GPUSHMEM_GPU_HEAP_CHUNK, run fewer PEs per GPU, or free device memory";
constexpr const char *kShareAdvice =
    "shareable device memory is not usable here (a container without CUDA IPC, or a driver without "
    "POSIX file descriptor handles); GPUSHMEM_DISABLE_CUDA=1 runs without the GPU";

uint64_t round_up(uint64_t v, uint64_t to) {
  return (v + to - 1) / to * to;
}

}  // namespace

Status GpuHeap::reserve(const char *call, const Driver *d, CUdevice device, int my_local, int local_size,
                        uint64_t slot_bytes) {
  d_ = d;
  device_ = device;
  my_local_ = my_local;
  local_size_ = local_size;
  slot_bytes_ = slot_bytes;
  stride_ = round_up(slot_bytes, kSlotAlignment);
  const uint64_t total = stride_ * static_cast<uint64_t>(local_size);
  CUresult rc = d_->cuMemAddressReserve(&va_, total, kSlotAlignment, 0, 0);
  if (rc != CUDA_SUCCESS) {
    va_ = 0;
    return cu_failed(rc, call, "lower SHMEM_SYMMETRIC_SIZE (every node-local PE reserves a slot for every other)",
                     "cuMemAddressReserve(size=%llu = %d slots of %llu bytes, alignment=%llu)",
                     static_cast<unsigned long long>(total), local_size, static_cast<unsigned long long>(stride_),
                     static_cast<unsigned long long>(kSlotAlignment));
  }
  return Status::ok;
}

Status GpuHeap::map_piece(const char *call, Piece *piece, uint64_t offset, uint64_t bytes) {
  CUdeviceptr at = reinterpret_cast<CUdeviceptr>(slot(piece->local)) + offset;
  CUresult rc = d_->cuMemMap(at, bytes, 0, piece->handle, 0);
  if (rc != CUDA_SUCCESS)
    return cu_failed(rc, call, kShareAdvice, "cuMemMap(ptr=0x%llx, size=%llu, slot of local PE %d, offset %llu)",
                     static_cast<unsigned long long>(at), static_cast<unsigned long long>(bytes), piece->local,
                     static_cast<unsigned long long>(offset));
  piece->mapped = true;
  CUmemAccessDesc access{};
  access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = static_cast<int>(device_);
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  rc = d_->cuMemSetAccess(at, bytes, &access, 1);
  if (rc != CUDA_SUCCESS)
    return cu_failed(rc, call,
                     "this GPU cannot access that memory (peer access between the two GPUs is not possible?); "
                     "GPUSHMEM_DISABLE_CUDA=1 runs without the GPU",
                     "cuMemSetAccess(ptr=0x%llx, size=%llu, device=%d, read/write) for local PE %d's heap",
                     static_cast<unsigned long long>(at), static_cast<unsigned long long>(bytes),
                     static_cast<int>(device_), piece->local);
  return Status::ok;
}

Status GpuHeap::add_chunk(const char *call, node::PeerChannel &channel, const std::vector<bool> &reach,
                          uint64_t bytes) {
  Chunk chunk;
  chunk.offset = mapped_;
  chunk.bytes = bytes;
  Status result = Status::ok;

  // This PE's part: create, export, map into its own slot.
  Piece own;
  own.local = my_local_;
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = static_cast<int>(device_);
  CUresult rc = d_->cuMemCreate(&own.handle, bytes, &prop, 0);
  int fd = -1;
  if (rc != CUDA_SUCCESS) {
    result =
        cu_failed(rc, call, kMemoryAdvice,
                  "cuMemCreate(size=%llu, device=%d, POSIX file descriptor handle) for the heap bytes "
                  "[%llu, %llu)",
                  static_cast<unsigned long long>(bytes), static_cast<int>(device_),
                  static_cast<unsigned long long>(chunk.offset), static_cast<unsigned long long>(chunk.offset + bytes));
  } else {
    own.have_handle = true;
    rc = d_->cuMemExportToShareableHandle(&fd, own.handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc != CUDA_SUCCESS) {
      fd = -1;
      result = cu_failed(rc, call, kShareAdvice, "cuMemExportToShareableHandle(size=%llu, POSIX file descriptor)",
                         static_cast<unsigned long long>(bytes));
    } else {
      result = map_piece(call, &own, chunk.offset, bytes);
    }
  }
  chunk.pieces.push_back(own);

  // Everybody's descriptors, ours included even after a failure (as "none", so nobody waits for it).
  std::vector<int> fds;
  Status exchanged = channel.exchange_fds(result == Status::ok ? fd : -1, &fds);
  if (fd >= 0) ::close(fd);
  if (exchanged != Status::ok) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "%s: cannot pass the new GPU heap chunk to the node's other PEs (see above): a local PE "
                       "left or hangs",
                       call);
    for (int f : fds)
      if (f >= 0) ::close(f);
    fds.assign(local_size_, -1);
    if (result == Status::ok) result = exchanged;
  }

  for (int peer = 0; peer < local_size_; ++peer) {
    if (peer == my_local_) continue;
    int peer_fd = peer < static_cast<int>(fds.size()) ? fds[peer] : -1;
    // No descriptor: that PE failed (it logged why); the agreement that follows drops this chunk everywhere.
    if (peer_fd < 0) continue;
    if (!reach[peer] || result != Status::ok) {
      ::close(peer_fd);
      continue;
    }
    Piece piece;
    piece.local = peer;
    rc = d_->cuMemImportFromShareableHandle(&piece.handle, reinterpret_cast<void *>(static_cast<uintptr_t>(peer_fd)),
                                            CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    ::close(peer_fd);  // the imported handle keeps the memory; the descriptor has done its job
    if (rc != CUDA_SUCCESS) {
      result = cu_failed(rc, call, kShareAdvice,
                         "cuMemImportFromShareableHandle(POSIX file descriptor of local PE %d's heap bytes [%llu, "
                         "%llu))",
                         peer, static_cast<unsigned long long>(chunk.offset),
                         static_cast<unsigned long long>(chunk.offset + bytes));
      continue;
    }
    piece.have_handle = true;
    Status s = map_piece(call, &piece, chunk.offset, bytes);
    chunk.pieces.push_back(piece);
    if (s != Status::ok) result = s;
  }

  chunks_.push_back(std::move(chunk));
  mapped_ += bytes;
  return result;
}

void GpuHeap::release_chunk(const char *call, Chunk *chunk) {
  for (Piece &p : chunk->pieces) {
    CUdeviceptr at = reinterpret_cast<CUdeviceptr>(slot(p.local)) + chunk->offset;
    if (p.mapped) {
      CUresult rc = d_->cuMemUnmap(at, chunk->bytes);
      if (rc != CUDA_SUCCESS)
        (void)cu_failed(rc, call, "continuing the clean-up", "cuMemUnmap(ptr=0x%llx, size=%llu) of local PE %d's heap",
                        static_cast<unsigned long long>(at), static_cast<unsigned long long>(chunk->bytes), p.local);
      p.mapped = false;
    }
    // After the unmap: the physical memory goes once neither a mapping nor a handle refers to it (peers'
    // mappings of this PE's chunk keep it alive until they unmap it too).
    if (p.have_handle) {
      CUresult rc = d_->cuMemRelease(p.handle);
      if (rc != CUDA_SUCCESS)
        (void)cu_failed(rc, call, "continuing the clean-up", "cuMemRelease(handle of local PE %d's heap bytes at %llu)",
                        p.local, static_cast<unsigned long long>(chunk->offset));
      p.have_handle = false;
    }
  }
}

void GpuHeap::drop_last_chunk(const char *call) {
  if (chunks_.empty()) return;
  release_chunk(call, &chunks_.back());
  mapped_ -= chunks_.back().bytes;
  chunks_.pop_back();
}

void GpuHeap::destroy(const char *call) {
  while (!chunks_.empty()) drop_last_chunk(call);
  if (va_ != 0) {
    const uint64_t total = stride_ * static_cast<uint64_t>(local_size_);
    CUresult rc = d_->cuMemAddressFree(va_, total);
    if (rc != CUDA_SUCCESS)
      (void)cu_failed(rc, call, "continuing the clean-up", "cuMemAddressFree(ptr=0x%llx, size=%llu)",
                      static_cast<unsigned long long>(va_), static_cast<unsigned long long>(total));
    va_ = 0;
  }
  mapped_ = 0;
}

}  // namespace gpushmem::gpu
