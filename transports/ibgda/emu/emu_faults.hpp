// The NIC emulator's fault knobs as one PE's runtime takes them (GPUSHMEM_IBGDA_EMU_FAULTS): a comma list of
// doorbell_delay_us=N, cqe_delay_us=N, stall_qp=Q and bad_rkey=Q:W, Q a queue pair of this PE (0 .. n_qps - 1) and
// W a work request index. Parsed apart from the runtime so that every refusal is tested without a GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ibgda/emu/nic_emulator.hpp"

namespace gpushmem::ibgda::emu {

struct EmuFault {
  enum class Kind : uint8_t { doorbell_delay, cqe_delay, stall_qp, bad_rkey };
  Kind kind;
  uint64_t a = 0;  // microseconds, or the queue pair
  uint64_t b = 0;  // bad_rkey: the work request
};

// false with *why naming the item that is not one of the four forms, or names a queue pair at or beyond n_qps.
bool parse_faults(const std::string &text, uint32_t n_qps, std::vector<EmuFault> *out, std::string *why);
// Sets them on `nic`, whose queue pairs are numbered from first_qpn in this PE's order.
void apply_faults(const std::vector<EmuFault> &faults, uint32_t first_qpn, NicEmulator &nic);

}  // namespace gpushmem::ibgda::emu
