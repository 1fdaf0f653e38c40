// Which PEs run on this node, derived from an allgather of a host identity (PEs per node may differ).
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/bootstrap_plugin.h"

namespace gpushmem::node {

struct Topology {
  int local_rank = 0;  // index of this PE among the PEs on its node
  int local_size = 1;  // PEs on this node
  int n_nodes = 1;
  int machine_size = 0;                 // PEs on this machine (virtual hosts on one machine share it: oversubscription)
  std::vector<int> local_pes;           // world PE numbers on this node, ascending
  std::vector<int> local_index_of;      // world PE -> local index, -1 when on another node
  std::vector<int> node_of;             // world PE -> node number (order of first appearance)
  std::vector<std::string> node_names;  // node number -> its host identity (hostname/boot id, or GPUSHMEM_HOSTNAME)
};

// Collective over the bootstrap.
Status discover(gpushmem_bootstrap_t *boot, Topology *out);

// Identity of this host as text: hostname plus kernel boot id (two containers with one hostname differ), or
// GPUSHMEM_HOSTNAME when set (virtual hosts for testing: PEs with different identities share no memory).
void host_identity(char *buf, size_t len);
// The machine's own identity (the kernel's boot id), whatever GPUSHMEM_HOSTNAME or a UTS namespace says: PEs
// with the same one share CPUs.
void machine_identity(char *buf, size_t len);

}  // namespace gpushmem::node
