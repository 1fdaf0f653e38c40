#include "transport.hpp"

namespace gpushmem::transport {

const char *amo_op_name(AmoOp op) {
  switch (op) {
    case AmoOp::load:
      return "atomic fetch";
    case AmoOp::store:
      return "atomic set";
    case AmoOp::swap:
      return "atomic swap";
    case AmoOp::cswap:
      return "atomic compare-swap";
    case AmoOp::add:
      return "atomic add";
    case AmoOp::and_:
      return "atomic and";
    case AmoOp::or_:
      return "atomic or";
    case AmoOp::xor_:
      return "atomic xor";
  }
  return "atomic";
}

}  // namespace gpushmem::transport
