// One atomic of transport::AmoOp on a word the CPU reaches (host memory), seq_cst: what a target applies
// to its host regions for an agent request (ucx/ucx_agent.hpp), and what CpuMemoryAgent applies to its
// buffer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport.hpp"

namespace gpushmem::transport {

// `word` aligned to `width` (4 or 8). Returns the value before the operation (zero-extended).
uint64_t cpu_atomic(void *word, AmoOp op, size_t width, uint64_t operand, uint64_t compare);

}  // namespace gpushmem::transport
