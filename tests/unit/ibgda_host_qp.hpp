// One IBGDA QP whose queues live in host memory, for the emu tests and the emulator's perftest: the same buffers
// seen as the producers see them (gpushmem_ibgda_qp_t, what a provisioner hands the device code) and as the NIC
// emulator serves them (emu::QpConfig), with a collapsed CQ of one entry.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpushmem/ibgda_qp.h"
#include "ibgda/emu/nic_emulator.hpp"

namespace gpushmem::test {

struct IbgdaHostQp {
  uint8_t *sq;
  alignas(64) uint8_t cqe[64];
  alignas(8) uint32_t dbrec[2] = {0, 0};
  uint64_t doorbell = 0;
  alignas(64) gpushmem_ibgda_qp_words_t words{};
  gpushmem_ibgda_qp_t qp{};

  IbgdaHostQp(uint32_t qpn, uint32_t wqebbs, uint32_t batch)
      : sq(static_cast<uint8_t *>(std::aligned_alloc(64, size_t{wqebbs} * 64))) {
    std::memset(sq, 0, size_t{wqebbs} * 64);
    std::memset(cqe, 0xff, sizeof cqe);  // as the NIC's CQ starts: INVALID
    qp.sq = sq;
    qp.dbrec = dbrec;
    qp.doorbell = &doorbell;
    qp.cqe = cqe;
    qp.words = &words;
    qp.wqebbs = wqebbs;
    qp.qpn = qpn;
    qp.batch = batch;
  }
  ~IbgdaHostQp() { std::free(sq); }
  IbgdaHostQp(const IbgdaHostQp &) = delete;
  IbgdaHostQp &operator=(const IbgdaHostQp &) = delete;

  // The emulator's view: the same queues, this QP's local keys and where its remote half goes.
  ibgda::emu::QpConfig config(const ibgda::emu::KeyTable *local_keys, ibgda::emu::Target *peer) {
    ibgda::emu::QpConfig c;
    c.qpn = qp.qpn;
    c.sq = sq;
    c.wqebbs = qp.wqebbs;
    c.dbrec = dbrec;
    c.doorbell = &doorbell;
    c.cq = cqe;
    c.cqes = 1;
    c.collapsed = true;
    c.local_keys = local_keys;
    c.peer = peer;
    return c;
  }
};

}  // namespace gpushmem::test
