#include "heap/host_heap.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.hpp"

namespace gpushmem::heap {

Status HostHeap::create(uint64_t user_end, uint64_t runtime_tail) {
  const uint64_t bytes = user_end + runtime_tail;
  fd_ = memfd_create("gpushmem-heap", MFD_CLOEXEC);
  if (fd_ < 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap, "shmem_init: memfd_create failed: %s", std::strerror(errno));
    return Status::system_error;
  }
  // The file is sparse: pages are only backed once touched, so a large SHMEM_SYMMETRIC_SIZE costs nothing
  // until used.
  if (ftruncate(fd_, static_cast<off_t>(bytes)) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap, "shmem_init: cannot size the symmetric heap to %llu bytes: %s",
                       static_cast<unsigned long long>(bytes), std::strerror(errno));
    return Status::out_of_memory;
  }
  // Place the heap at an address aligned to kBaseAlignment so that an offset aligned to A (A at most
  // kBaseAlignment) is an address aligned to A on every PE: shmem_align then stays symmetric. Reserve
  // enough address space to find such an address, map the segment there, return the rest.
  const uint64_t reserve = bytes + kBaseAlignment;
  void *area = mmap(nullptr, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *p = MAP_FAILED;
  if (area != MAP_FAILED) {
    uintptr_t start = reinterpret_cast<uintptr_t>(area);
    uintptr_t aligned = (start + kBaseAlignment - 1) & ~static_cast<uintptr_t>(kBaseAlignment - 1);
    p = mmap(reinterpret_cast<void *>(aligned), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE | MAP_FIXED,
             fd_, 0);
    if (aligned > start) munmap(area, aligned - start);
    uintptr_t end = aligned + bytes, reserve_end = start + reserve;
    if (reserve_end > end) munmap(reinterpret_cast<void *>(end), reserve_end - end);
  }
  if (p == MAP_FAILED) {
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "shmem_init: cannot map a %llu-byte symmetric heap: %s (lower SHMEM_SYMMETRIC_SIZE)",
                       static_cast<unsigned long long>(bytes), std::strerror(errno));
    return Status::out_of_memory;
  }
  base_ = static_cast<char *>(p);
  size_ = user_end;
  mapped_ = bytes;
  return Status::ok;
}

void HostHeap::destroy() {
  if (base_ != nullptr) munmap(base_, mapped_);
  base_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  size_ = 0;
  mapped_ = 0;
}

}  // namespace gpushmem::heap
