// Sharing a memfd-backed segment with the PEs of the node: the descriptor goes to every local peer over the
// node's sockets (SCM_RIGHTS) and each peer maps it. The host heap and the globals both travel this way.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.hpp"

namespace gpushmem::node {
class PeerChannel;
}

namespace gpushmem::p2p {

// Collective over the node: sends `my_fd` (a segment of `bytes` bytes, mapped here at `mine`) to every local
// peer and maps each peer's one with mmap `flags` (MAP_SHARED plus any extra). A peer's file must be `bytes`
// long (checked: mapping past its end would fault on first touch). mapped[local index] receives each base,
// `mine` in this PE's slot; `peer_maps` collects the peers' mappings, to unmap later. `what` names the
// segment in error messages ("heap", "globals").
Status map_node_segments(node::PeerChannel &channel, int my_local, int my_fd, char *mine, uint64_t bytes, int flags,
                         const char *what, std::vector<char *> *mapped, std::vector<char *> *peer_maps);

}  // namespace gpushmem::p2p
