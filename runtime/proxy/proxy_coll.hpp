// The proxy's part of a device team collective (a COLL slot, gpushmem/proxy_channel.h): the reductions and
// collect of a team that has a member device code cannot map. Every member's proxy executes its own member's
// slot; together they do what the members' device code does over P2P (device/coll.cuh), reaching each member
// with the host API's RMA: this PE's GPU heap and mapped peers' by copies, the others through the network and
// their memory agents (coll/rma_coll.hpp's pieces, which the host API's collectives on GPU buffers use too).
#pragma once

#include <cstddef>
#include <cstdint>

#include "gpushmem/proxy_channel.h"

namespace gpushmem::proxy_rt {

// This PE's address of `bytes` bytes at `offset` of symmetric region `region`, or nullptr when they are not
// all in it (runtime_backend.cpp).
const char *symmetric_address(uint32_t region, uint64_t offset, uint64_t bytes);

// Executes COLL slot `s`: nullptr once its stores are complete at their targets, or why the slot is malformed
// (nothing was done then). A transfer that fails ends the job through the host API's reporting, naming the call.
const char *run_coll(const gpushmem_proxy_slot_t &s);

}  // namespace gpushmem::proxy_rt
