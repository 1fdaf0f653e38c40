#include "node/topology.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "env/env.hpp"

namespace gpushmem::node {
namespace {

constexpr size_t kIdentityBytes = 128;  // the node's identity, then the machine's: two halves of one record

}  // namespace

void machine_identity(char *buf, size_t len) {
  char boot_id[48] = {0};
  if (FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (std::fgets(boot_id, sizeof boot_id, f) == nullptr) boot_id[0] = '\0';
    std::fclose(f);
    boot_id[std::strcspn(boot_id, "\n")] = '\0';
  }
  std::snprintf(buf, len, "%s", boot_id);
}

namespace {

// The node's identity given the machine's: GPUSHMEM_HOSTNAME, else hostname/boot id.
void node_identity(char *buf, size_t len, const char *machine) {
  if (const std::string &forced = env::get().GPUSHMEM_HOSTNAME; !forced.empty()) {
    std::snprintf(buf, len, "%s", forced.c_str());
    return;
  }
  char host[64] = {0};
  gethostname(host, sizeof host - 1);
  std::snprintf(buf, len, "%s/%s", host, machine);
}

}  // namespace

void host_identity(char *buf, size_t len) {
  char machine[48] = {0};
  machine_identity(machine, sizeof machine);
  node_identity(buf, len, machine);
}

Status discover(gpushmem_bootstrap_t *boot, Topology *out) {
  const int n = boot->size;
  std::vector<char> all(2 * kIdentityBytes * static_cast<size_t>(n));
  char mine[2 * kIdentityBytes] = {0};
  machine_identity(mine + kIdentityBytes, kIdentityBytes);
  node_identity(mine, kIdentityBytes, mine + kIdentityBytes);
  int rc = boot->allgather(boot, mine, all.data(), sizeof mine);
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    GPUSHMEM_LOG_ERROR(log::Subsys::node, "shmem_init: allgather of host identities failed (bootstrap %s, code %d)",
                       boot->name, rc);
    return Status::bootstrap_error;
  }
  Topology t;
  t.local_index_of.assign(n, -1);
  t.node_of.assign(n, -1);
  std::vector<std::string> nodes;
  for (int pe = 0; pe < n; ++pe) {
    const char *rec = &all[2 * kIdentityBytes * static_cast<size_t>(pe)];
    std::string id(rec, strnlen(rec, kIdentityBytes));
    if (strncmp(rec + kIdentityBytes, mine + kIdentityBytes, kIdentityBytes) == 0) ++t.machine_size;
    int node = -1;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i] == id) node = static_cast<int>(i);
    if (node < 0) {
      node = static_cast<int>(nodes.size());
      nodes.push_back(id);
    }
    t.node_of[pe] = node;
  }
  const int my_node = t.node_of[boot->rank];
  for (int pe = 0; pe < n; ++pe) {
    if (t.node_of[pe] != my_node) continue;
    t.local_index_of[pe] = static_cast<int>(t.local_pes.size());
    t.local_pes.push_back(pe);
  }
  t.local_rank = t.local_index_of[boot->rank];
  t.local_size = static_cast<int>(t.local_pes.size());
  t.n_nodes = static_cast<int>(nodes.size());
  t.node_names = nodes;
  *out = std::move(t);
  return Status::ok;
}

}  // namespace gpushmem::node
