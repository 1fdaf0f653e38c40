// The host's sentence for a sticky device error record (runtime/gpu/device_error_text.cpp), filled as the device's
// error_record (include/gpushmem/device/checks.cuh) fills it.
#include <cstring>
#include <string>

#include "catch.hpp"
#include "gpu/device_error_text.hpp"

namespace {

gpushmem_device_error_t record(uint32_t kind, const char *call, int pe, uint64_t addr, int64_t value,
                               const char *text = nullptr, const char *text2 = nullptr) {
  gpushmem_device_error_t e;
  std::memset(&e, 0, sizeof e);
  e.state = 2;
  e.kind = kind;
  e.pe = pe;
  e.block[0] = 46;
  e.thread[0] = 160;
  e.address = addr;
  e.value = value;
  std::strncpy(e.call, call, sizeof e.call - 1);
  if (text != nullptr) {
    std::strncpy(e.text, text, sizeof e.text - 1);
    if (text2 != nullptr) std::strncpy(e.text + std::strlen(text) + 1, text2, sizeof e.text - std::strlen(text) - 2);
  }
  return e;
}

}  // namespace

TEST_CASE("device error: every kind reads as a sentence naming the call, the PE, the address and the thread",
          "[device_error]") {
  using gpushmem::gpu::device_error_text;
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_PROXY_TIMEOUT, "shmem_int_p", 1, 0x3409242c0, 60,
                                 "room in a full proxy ring")) ==
        "device error in shmem_int_p: pe=1, address 0x3409242c0: gave up after GPUSHMEM_DEVICE_TIMEOUT=60 s waiting "
        "for room in a full proxy ring (block 46,0,0 thread 160,0,0)");
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_PE, "shmem_putmem", 7, 0x1000, 2)) ==
        "device error in shmem_putmem: pe=7 is out of range: the job has 2 PEs; address 0x1000 (block 46,0,0 thread "
        "160,0,0)");
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_ADDRESS, "shmem_getmem", 1, 0x20, 8, "source")) ==
        "device error in shmem_getmem: pe=1, source=address 0x20 (8 bytes) is not a symmetric address (block 46,0,0 "
        "thread 160,0,0)");
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_ARGUMENT, "shmem_int_wait_until", -1, 0, 99, "cmp",
                                 "use one of SHMEM_CMP_EQ, NE, GT, LE, LT, GE")) ==
        "device error in shmem_int_wait_until: cmp=99 is invalid: use one of SHMEM_CMP_EQ, NE, GT, LE, LT, GE (block "
        "46,0,0 thread 160,0,0)");
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_PROXY_UNSUPPORTED, "shmem_int_sum_reduce", 1, 0x40, 0))
            .find("that PE is reached through the CPU proxy, and this call does not go through it yet") !=
        std::string::npos);
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_UNREACHABLE, "shmem_int_g", 3, 0x40, 0))
            .find("pe=3 cannot be reached from this GPU") != std::string::npos);
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_ALIGNMENT, "shmem_long_atomic_add", 0, 0x41, 8, "dest"))
            .find("dest=address 0x41 is not aligned to 8 bytes") != std::string::npos);
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_TEAM, "shmem_team_sync", -1, 0x77, 0, "is not a team"))
            .find("team=0x77 is not a team") != std::string::npos);
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_IBGDA, "shmem_putmem", 1, 0x80, 0x13, "RDMA WRITE"))
            .find("pe=1, address 0x80: RDMA WRITE: the NIC reported REMOTE_ACCESS_ERR (syndrome 0x13)") !=
        std::string::npos);
  CHECK(device_error_text(record(GPUSHMEM_DEVICE_ERROR_IBGDA, "shmem_quiet", -1, 0, -1, "quiet"))
            .find("quiet: the NIC completed nothing for GPUSHMEM_DEVICE_TIMEOUT") != std::string::npos);
  CHECK(device_error_text(record(99, "x", 0, 0, 0)).find("kind 99") != std::string::npos);
}

TEST_CASE("device error: strings the device cut without a NUL stay inside their fields", "[device_error]") {
  gpushmem_device_error_t e = record(GPUSHMEM_DEVICE_ERROR_PROXY_TIMEOUT, "c", 0, 0, 1);
  std::memset(e.call, 'a', sizeof e.call);
  std::memset(e.text, 'b', sizeof e.text);
  const std::string s = gpushmem::gpu::device_error_text(e);
  CHECK(s.find(std::string(sizeof e.call, 'a') + ":") != std::string::npos);
  CHECK(s.find(std::string(sizeof e.text, 'b') + " (block") != std::string::npos);
}
