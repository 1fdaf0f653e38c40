#include "p2p/memfd_peers.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.hpp"
#include "node/peer_channel.hpp"

namespace gpushmem::p2p {

Status map_node_segments(node::PeerChannel &channel, int my_local, int my_fd, char *mine, uint64_t bytes, int flags,
                         const char *what, std::vector<char *> *mapped, std::vector<char *> *peer_maps) {
  std::vector<int> fds;
  GPUSHMEM_CHECK(channel.exchange_fds(my_fd, &fds));
  mapped->assign(fds.size(), nullptr);
  Status result = Status::ok;
  for (size_t i = 0; i < fds.size(); ++i) {
    if (static_cast<int>(i) == my_local) {
      (*mapped)[i] = mine;
      continue;
    }
    struct stat st {};
    if (fstat(fds[i], &st) != 0 || static_cast<uint64_t>(st.st_size) != bytes) {
      ::close(fds[i]);
      GPUSHMEM_LOG_ERROR(log::Subsys::heap, "shmem_init: the %s of a local peer is not %llu bytes long", what,
                         static_cast<unsigned long long>(bytes));
      result = Status::system_error;
      continue;
    }
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, flags, fds[i], 0);
    ::close(fds[i]);
    if (p == MAP_FAILED) {
      GPUSHMEM_LOG_ERROR(log::Subsys::heap, "shmem_init: cannot map the %s of a local peer: %s", what,
                         std::strerror(errno));
      result = Status::system_error;
      continue;
    }
    (*mapped)[i] = static_cast<char *>(p);
    peer_maps->push_back(static_cast<char *>(p));
  }
  return result;
}

}  // namespace gpushmem::p2p
