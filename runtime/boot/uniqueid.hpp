// Unique ids for the tcp bootstrap (shmemx_get_uniqueid) and the listening sockets made with them.
#pragma once

namespace gpushmem::boot {

// The listening socket this process holds for `id_text` (made by shmemx_get_uniqueid), or -1. Ownership
// passes to the caller.
int take_listen_fd(const char *id_text);

}  // namespace gpushmem::boot
