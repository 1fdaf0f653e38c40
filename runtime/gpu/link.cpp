#include "gpu/gpu.hpp"

namespace gpushmem::gpu {

const char *link_name(Link link) {
  switch (link) {
    case Link::unreachable:
      return "unreachable";
    case Link::self:
      return "p2p-self";
    case Link::same_gpu:
      return "p2p-same-gpu";
    case Link::nvlink:
      return "p2p-nvlink";
    case Link::pcie:
      return "p2p-pcie";
  }
  return "?";
}

}  // namespace gpushmem::gpu
