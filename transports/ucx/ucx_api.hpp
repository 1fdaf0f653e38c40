// The UCX functions the ucx transport calls, looked up at run time from libucp.so.0 (never linked), so
// libgpushmem loads on machines without UCX and a job that needs the network says what to install instead
// of failing to start. The prototypes come from UCX's own headers (<ucp/api/ucp.h>, needed at build time).
#pragma once

#include <ucp/api/ucp.h>

#include <string>

namespace gpushmem::ucx {

// X(name): every UCX entry point used. The table holds a pointer of each one's own type.
#define GPUSHMEM_UCX_FUNCTIONS(X)   \
  X(ucp_config_read)                \
  X(ucp_config_release)             \
  X(ucp_config_modify)              \
  X(ucp_config_print)               \
  X(ucp_get_version)                \
  X(ucp_init_version)               \
  X(ucp_cleanup)                    \
  X(ucp_context_query)              \
  X(ucp_worker_create)              \
  X(ucp_worker_destroy)             \
  X(ucp_worker_get_address)         \
  X(ucp_worker_release_address)     \
  X(ucp_worker_progress)            \
  X(ucp_worker_fence)               \
  X(ucp_worker_flush_nbx)           \
  X(ucp_ep_create)                  \
  X(ucp_ep_close_nbx)               \
  X(ucp_ep_flush_nbx)               \
  X(ucp_ep_rkey_unpack)             \
  X(ucp_rkey_destroy)               \
  X(ucp_rkey_pack)                  \
  X(ucp_rkey_buffer_release)        \
  X(ucp_mem_map)                    \
  X(ucp_mem_unmap)                  \
  X(ucp_put_nbx)                    \
  X(ucp_get_nbx)                    \
  X(ucp_atomic_op_nbx)              \
  X(ucp_am_send_nbx)                \
  X(ucp_worker_set_am_recv_handler) \
  X(ucp_am_recv_data_nbx)           \
  X(ucp_am_data_release)            \
  X(ucp_worker_query)               \
  X(ucp_request_check_status)       \
  X(ucp_request_free)               \
  X(ucp_ep_print_info)              \
  X(ucs_status_string)

struct Api {
#define GPUSHMEM_UCX_MEMBER(name) decltype(&::name) name = nullptr;
  GPUSHMEM_UCX_FUNCTIONS(GPUSHMEM_UCX_MEMBER)
#undef GPUSHMEM_UCX_MEMBER
  unsigned major = 0, minor = 0, release = 0;  // of the library found
  std::string path;                            // where it was found
};

// Loads `library` (a libucp file name or path) once (thread safe; later calls get the first result) and fills
// the table. Returns nullptr and sets *why to what is missing and what to install when UCX cannot be used.
const Api *load(const std::string &library, std::string *why);

}  // namespace gpushmem::ucx
