// The ucx unit tests' peer: this process's own worker, reached through its own endpoint blob relabelled
// as another PE's, so connect() points that PE at this worker and operations on it come back here.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "ucx/ucx_transport.hpp"

namespace gpushmem::test {

// The options of PE 0 of a 2-PE job whose PE 1 is this same process (see blob_relabelled).
inline ucx::Options self_peer_options(uint64_t job_key) {
  ucx::Options o;
  o.my_pe = 0;
  o.n_pes = 2;
  o.job_key = job_key;
  return o;
}

inline std::vector<uint8_t> blob_relabelled(const std::vector<uint8_t> &blob, uint32_t pe) {
  std::vector<uint8_t> b = blob;
  ucx::BlobHeader h;
  std::memcpy(&h, b.data(), sizeof h);
  h.pe = pe;
  std::memcpy(b.data(), &h, sizeof h);
  return b;
}

}  // namespace gpushmem::test
