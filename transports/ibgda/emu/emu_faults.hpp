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
// Sets them on `nic`; qpn_of[Q] is the QP number of this PE's queue pair Q (its index in the device's qps[]: pe * Q
// per peer + q), 0 where that PE is not reached through IBGDA from here (itself, a P2P peer). Every PE reads the same
// list, so a fault on such a queue pair concerns another PE: it is skipped, and *skipped names it. Returns how many
// were skipped.
size_t apply_faults(const std::vector<EmuFault> &faults, const std::vector<uint32_t> &qpn_of, NicEmulator &nic,
                    std::string *skipped);

}  // namespace gpushmem::ibgda::emu
