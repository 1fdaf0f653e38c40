#include "heap/data_segment.hpp"

#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "core/log.hpp"

namespace gpushmem::heap {
namespace {

struct Range {
  uintptr_t begin = 0, end = 0;
};

// The main program's writable PT_LOAD segments and its PT_GNU_RELRO range (dl_iterate_phdr reports the
// main program first). GNU ld and gold emit one writable segment that starts with the RELRO part; lld
// emits a RELRO-only one and a second for .data / .bss.
struct Segments {
  std::vector<Range> data;
  std::vector<uintptr_t> file_end;  // per segment: end of the part loaded from the file (.data); then .bss
  Range relro;
};

int find_main_program(struct dl_phdr_info *info, size_t, void *arg) {
  auto *s = static_cast<Segments *>(arg);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_W) != 0) {
      s->data.push_back({begin, begin + ph.p_memsz});
      s->file_end.push_back(begin + ph.p_filesz);
    }
    if (ph.p_type == PT_GNU_RELRO) s->relro = {begin, begin + ph.p_memsz};
  }
  return 1;  // the main program only
}

// Whether every page of [begin, end) is mapped private and read-write (/proc/self/maps), so that replacing
// them changes neither what the program sees nor what it may do.
bool private_read_write(uintptr_t begin, uintptr_t end) {
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return false;
  uintptr_t covered = begin;
  char *line = nullptr;
  size_t cap = 0;
  while (covered < end && getline(&line, &cap, maps) > 0) {
    uintptr_t lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) != 3) continue;
    if (hi <= covered || lo >= end) continue;
    if (lo > covered || std::strncmp(perms, "rw-p", 4) != 0) break;
    covered = hi;
  }
  std::free(line);
  std::fclose(maps);
  return covered >= end;
}

// Which pages of [begin, begin + pages * page) hold anything: /proc/self/pagemap's present (63) and swapped
// (62) bits. A page with neither was never touched and reads zero. Empty when pagemap cannot be read (then
// every page is checked by reading it).
std::vector<uint64_t> page_map(uintptr_t begin, size_t pages, size_t page) {
  std::vector<uint64_t> entries;
  const int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return entries;
  entries.resize(pages);
  const size_t want = pages * sizeof(uint64_t);
  const ssize_t got = pread(fd, entries.data(), want, static_cast<off_t>(begin / page * sizeof(uint64_t)));
  ::close(fd);
  if (got != static_cast<ssize_t>(want)) entries.clear();
  return entries;
}

// Reading and copying whole pages of the data segment. In a program built with AddressSanitizer the segment
// holds redzones between the globals, which instrumented loads and ASan's memcpy (it replaces libc's for this
// library too, sanitized or not) report: these two are left uninstrumented, and the empty asm keeps the
// compiler from turning the copy back into a memcpy call.
// `bytes` is a multiple of 8, and both pointers are 8-byte aligned.
#define GPUSHMEM_UNCHECKED __attribute__((no_sanitize("address")))

GPUSHMEM_UNCHECKED bool all_zero(const char *page, size_t bytes) {
  const auto *w = reinterpret_cast<const uint64_t *>(page);
  for (size_t i = 0; i < bytes / sizeof(uint64_t); ++i)
    if (w[i] != 0) return false;
  return true;
}

GPUSHMEM_UNCHECKED void copy_words(char *to, const char *from, size_t bytes) {
  auto *d = reinterpret_cast<uint64_t *>(to);
  const auto *s = reinterpret_cast<const uint64_t *>(from);
  const size_t n = bytes / sizeof(uint64_t);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint64_t a = s[i], b = s[i + 1], c = s[i + 2], e = s[i + 3];
    asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(e));
    d[i] = a, d[i + 1] = b, d[i + 2] = c, d[i + 3] = e;
  }
  for (; i < n; ++i) {
    uint64_t v = s[i];
    asm volatile("" : "+r"(v));
    d[i] = v;
  }
}

// 0 when the executable cannot be identified (globals then stay private).
uint64_t executable_identity() {
  struct stat st {};
  if (stat("/proc/self/exe", &st) != 0) return 0;
  // FNV-1a over device, inode, size and modification time of the executable file.
  uint64_t h = 1469598103934665603ull;
  for (uint64_t v :
       {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino), static_cast<uint64_t>(st.st_size),
        static_cast<uint64_t>(st.st_mtim.tv_sec), static_cast<uint64_t>(st.st_mtim.tv_nsec)})
    for (int b = 0; b < 8; ++b) h = (h ^ ((v >> (8 * b)) & 0xff)) * 1099511628211ull;
  return h;
}

// Calls fn(offset, length) for each part of memfd `fd` (`bytes` long) that holds data: holes read zero and
// are left alone (reading a hole of a shared memfd mapping would allocate it).
template <class Fn>
void for_each_data_extent(int fd, size_t bytes, Fn fn) {
  off_t at = 0;
  while (static_cast<size_t>(at) < bytes) {
    const off_t data = lseek(fd, at, SEEK_DATA);
    if (data < 0) return;  // ENXIO: no data past `at`
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0 || static_cast<size_t>(hole) > bytes) hole = static_cast<off_t>(bytes);
    fn(static_cast<size_t>(data), static_cast<size_t>(hole - data));
    at = hole;
  }
}

// Maps private anonymous pages over [begin, begin + bytes) and copies into them, from `src`, the parts that
// hold data in memfd `fd` (the rest reads zero). False when the mapping fails.
bool restore_private(char *begin, size_t bytes, int fd, const char *src) {
  void *back = mmap(begin, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (back == MAP_FAILED) return false;
  for_each_data_extent(fd, bytes, [&](size_t off, size_t len) { copy_words(begin + off, src + off, len); });
  return true;
}

// Replaces [begin, begin + bytes), mapped from memfd `fd`, by private anonymous pages with the same contents.
bool make_private(char *begin, size_t bytes, int fd) {
  void *scratch = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (scratch == MAP_FAILED) return false;
  char *keep = static_cast<char *>(scratch);
  for_each_data_extent(fd, bytes, [&](size_t off, size_t len) { copy_words(keep + off, begin + off, len); });
  const bool ok = restore_private(begin, bytes, fd, keep);
  munmap(scratch, bytes);
  return ok;
}

// fork() would leave parent and child sharing every global through the MAP_SHARED mapping: the child gets
// private pages again (it has one thread, and is not a PE).
DataSegment *forked_segment = nullptr;
void privatize_in_child() {
  DataSegment *d = forked_segment;
  if (d == nullptr || d->size() == 0) return;
  if (!d->make_private_after_fork()) {
    static const char msg[] = "gpushmem: fork: cannot give the child private copies of the globals\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
}

}  // namespace

bool DataSegment::make_private_after_fork() {
  const bool ok = make_private(start_, size_, fd_);
  ::close(fd_);
  fd_ = -1;
  start_ = nullptr;
  size_ = 0;
  fingerprint_ = 0;
  return ok;
}

void DataSegment::create() {
  Segments seg;
  dl_iterate_phdr(find_main_program, &seg);
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  auto down = [&](uintptr_t a) { return a & ~(page - 1); };
  auto up = [&](uintptr_t a) { return (a + page - 1) & ~(page - 1); };
  // Each writable segment in page bounds, less the pages the loader makes read-only after relocation (those
  // wholly inside RELRO: the page holding its end stays writable and is shared with .got.plt / .data).
  // The last non-empty one holds .data and .bss.
  uintptr_t begin = 0, end = 0, file_end = 0;
  for (size_t i = 0; i < seg.data.size(); ++i) {
    uintptr_t b = down(seg.data[i].begin);
    const uintptr_t e = up(seg.data[i].end);
    if (seg.relro.end > b && seg.relro.begin < seg.data[i].end) b = std::max(b, down(seg.relro.end));
    if (b >= e) continue;
    if (begin != 0 && b == end) {  // page-contiguous with the previous one: one range
      end = e;
    } else {
      begin = b;
      end = e;
    }
    file_end = seg.file_end[i];
  }
  if (begin == 0) {
    GPUSHMEM_LOG_INFO(log::Subsys::heap, "the program has no writable data segment: no symmetric globals");
    return;
  }
  if (!private_read_write(begin, end)) {
    GPUSHMEM_LOG_WARN(log::Subsys::heap,
                      "the program's data segment [%#" PRIxPTR ", %#" PRIxPTR
                      ") is not all private read-write "
                      "pages: global and static variables stay private (not symmetric)",
                      begin, end);
    return;
  }
  const uint64_t identity = executable_identity();
  if (identity == 0) {
    GPUSHMEM_LOG_WARN(log::Subsys::heap,
                      "cannot identify the executable (/proc/self/exe): global and static variables stay private");
    return;
  }
  const size_t bytes = end - begin;
  int fd = memfd_create("gpushmem-data", MFD_CLOEXEC);
  if (fd < 0 || ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    GPUSHMEM_LOG_INFO(log::Subsys::heap, "cannot create a %zu-byte file for the globals: %s", bytes,
                      std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return;
  }
  void *copy = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (copy == MAP_FAILED) {
    GPUSHMEM_LOG_INFO(log::Subsys::heap, "cannot map the file for the globals: %s", std::strerror(errno));
    ::close(fd);
    return;
  }
  // Copy the pages, leaving zero pages of .bss out: the file reads zero there, and a large static array
  // that was never touched costs no memory (nor time: pagemap says which pages were never touched). No signal handler
  // runs in between (one that sets a global would lose its write); other threads must not write globals while
  // shmem_init runs (docs/env.md).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const char *live = reinterpret_cast<const char *>(begin);
  const std::vector<uint64_t> map = page_map(begin, bytes / page, page);
  constexpr uint64_t kPresentOrSwapped = (1ull << 63) | (1ull << 62);
  for (size_t off = 0; off < bytes; off += page) {
    const bool file_backed = begin + off < up(file_end);
    if (!file_backed && !map.empty() && (map[off / page] & kPresentOrSwapped) == 0) continue;  // never touched
    if (file_backed || !all_zero(live + off, page)) copy_words(static_cast<char *>(copy) + off, live + off, page);
  }
  void *placed = mmap(reinterpret_cast<void *>(begin), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
  const int err = errno;
  if (placed == MAP_FAILED &&
      !restore_private(reinterpret_cast<char *>(begin), bytes, fd, static_cast<const char *>(copy))) {
    // The old pages may be gone and no copy could be put back: the program cannot go on.
    GPUSHMEM_LOG_ERROR(log::Subsys::heap,
                       "shmem_init: moving the global variables failed (%s), and so did putting "
                       "them back: the process cannot continue (GPUSHMEM_SYMMETRIC_DATA=0 avoids the move)",
                       std::strerror(err));
    _exit(1);
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (placed == MAP_FAILED) {
    munmap(copy, bytes);
    ::close(fd);
    GPUSHMEM_LOG_WARN(log::Subsys::heap, "cannot place the globals on shared memory (%s): they stay private",
                      std::strerror(err));
    return;
  }
  munmap(copy, bytes);
  fd_ = fd;
  start_ = reinterpret_cast<char *>(begin);
  size_ = bytes;
  fingerprint_ = identity ^ (bytes * 0x9e3779b97f4a7c15ull);
  if (fingerprint_ == 0) fingerprint_ = 1;
  forked_segment = this;
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, [] { pthread_atfork(nullptr, nullptr, privatize_in_child); });
  GPUSHMEM_LOG_DEBUG(log::Subsys::heap, "globals: %zu bytes at %p are symmetric", bytes, static_cast<void *>(start_));
}

void DataSegment::destroy() {
  // fd_ stays open: a fork() after shmem_finalize still needs it to find the pages that hold data.
}

}  // namespace gpushmem::heap
