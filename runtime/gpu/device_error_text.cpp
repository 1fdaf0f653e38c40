#include "gpu/device_error_text.hpp"

#include "gpushmem/mlx5_format.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gpushmem::gpu {

namespace {

std::string field(const char *p, size_t room) {
  return std::string(p, strnlen(p, room));
}

}  // namespace

std::string device_error_text(const gpushmem_device_error_t &e) {
  const std::string call = field(e.call, sizeof e.call);
  const std::string text = field(e.text, sizeof e.text);
  const size_t rest = text.size() + 1 < sizeof e.text ? text.size() + 1 : sizeof e.text;
  const std::string text2 = field(e.text + rest, sizeof e.text - rest);
  const unsigned long long addr = e.address;
  const long long v = e.value;
  char what[400];
  switch (e.kind) {
    case GPUSHMEM_DEVICE_ERROR_NOT_INITIALIZED:
      std::snprintf(what, sizeof what, "the device state of its CUDA file is not set (shmem_init before the kernel?)");
      break;
    case GPUSHMEM_DEVICE_ERROR_PE:
      std::snprintf(what, sizeof what, "pe=%d is out of range: the job has %lld PEs; address 0x%llx", e.pe, v, addr);
      break;
    case GPUSHMEM_DEVICE_ERROR_ADDRESS:
      std::snprintf(what, sizeof what, "pe=%d, %s=address 0x%llx (%lld bytes) is not a symmetric address", e.pe,
                    text.c_str(), addr, v);
      break;
    case GPUSHMEM_DEVICE_ERROR_UNREACHABLE:
      std::snprintf(what, sizeof what, "pe=%d cannot be reached from this GPU; address 0x%llx", e.pe, addr);
      break;
    case GPUSHMEM_DEVICE_ERROR_ALIGNMENT:
      std::snprintf(what, sizeof what, "pe=%d, %s=address 0x%llx is not aligned to %lld bytes", e.pe, text.c_str(),
                    addr, v);
      break;
    case GPUSHMEM_DEVICE_ERROR_ARGUMENT:
      std::snprintf(what, sizeof what, "%s=%lld is invalid: %s", text.c_str(), v, text2.c_str());
      break;
    case GPUSHMEM_DEVICE_ERROR_TEAM:
      std::snprintf(what, sizeof what, "team=0x%llx %s", addr, text.c_str());
      break;
    case GPUSHMEM_DEVICE_ERROR_PROXY_TIMEOUT:
      std::snprintf(what, sizeof what,
                    "pe=%d, address 0x%llx: gave up after GPUSHMEM_DEVICE_TIMEOUT=%lld s waiting for %s", e.pe, addr, v,
                    text.c_str());
      break;
    case GPUSHMEM_DEVICE_ERROR_PROXY_UNSUPPORTED:
      std::snprintf(what, sizeof what,
                    "pe=%d, address 0x%llx: that PE is reached through the CPU proxy, and this call does not go "
                    "through it yet",
                    e.pe, addr);
      break;
    case GPUSHMEM_DEVICE_ERROR_IBGDA:
      if (v < 0)
        std::snprintf(what, sizeof what,
                      "pe=%d, address 0x%llx: %s: the NIC completed nothing for GPUSHMEM_DEVICE_TIMEOUT (a stalled QP, "
                      "or no NIC behind it)",
                      e.pe, addr, text.c_str());
      else
        std::snprintf(what, sizeof what, "pe=%d, address 0x%llx: %s: the NIC reported %s (syndrome 0x%02llx)", e.pe,
                      addr, text.c_str(), gpushmem_mlx5_syndrome_name(static_cast<uint32_t>(v)),
                      static_cast<unsigned long long>(v));
      break;
    default:
      std::snprintf(what, sizeof what, "an error of kind %u (this library does not know it: a newer header?)", e.kind);
      break;
  }
  char line[600];
  std::snprintf(line, sizeof line, "device error in %s: %s (block %u,%u,%u thread %u,%u,%u)",
                call.empty() ? "?" : call.c_str(), what, e.block[0], e.block[1], e.block[2], e.thread[0], e.thread[1],
                e.thread[2]);
  return line;
}

}  // namespace gpushmem::gpu
