// Sharing a memfd-backed segment with the PEs of the node: what the host heap and the globals
// (data_segment) both do at shmem_init.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.hpp"

namespace gpushmem::node {
class PeerChannel;
}

namespace gpushmem::heap {

// Collective over the node: sends `my_fd` (a segment of `bytes` bytes, mapped here at `mine`) to every local
// peer and maps each peer's one with mmap `flags` (MAP_SHARED plus any extra). A peer's file must be `bytes`
// long (checked: mapping past its end would fault on first touch). mapped[local index] receives each base,
// `mine` in this PE's slot; `peer_maps` collects the peers' mappings, to unmap later. `what` names the
// segment in error messages ("heap", "globals").
Status map_peer_segments(node::PeerChannel &channel, int my_local, int my_fd, char *mine, uint64_t bytes, int flags,
                         const char *what, std::vector<char *> *mapped, std::vector<char *> *peer_maps);

}  // namespace gpushmem::heap
