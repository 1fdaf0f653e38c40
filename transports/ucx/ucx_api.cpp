#include "ucx/ucx_api.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace gpushmem::ucx {
namespace {

Api g_api;
const Api *g_loaded = nullptr;
std::string g_why;

// UCX's memory hooks (UCX_MEM_MMAP_HOOK_MODE, default bistro) rewrite the first instructions of mmap,
// munmap, brk, ... when UCX starts; a thread running one of them meanwhile (the bootstrap's threads, an MPI
// library's, the application's) crashes or corrupts the heap. gpushmem turns them off unless the user chose
// a mode: UCX then works without its registration cache (what the hooks keep valid), which the host heap does
// not need (registered once with ucp_mem_map). Without effect when the process has loaded UCX already.
void choose_memory_hooks() {
  (void)setenv("UCX_MEM_MMAP_HOOK_MODE", "none", /*overwrite=*/0);  // a user's own choice stays
}

void resolve(const std::string &library) {
  choose_memory_hooks();
  // RTLD_LOCAL: UCX's symbols stay out of the program's namespace (it may bring its own UCX, e.g. Open MPI's).
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char *e = dlerror();
    g_why = "UCX is not installed here (" + (e != nullptr ? std::string(e) : library + " not found") +
            "): install it (Debian/Ubuntu: apt-get install libucx0), point LD_LIBRARY_PATH at its lib folder, or "
            "name the library in GPUSHMEM_UCX_LIBRARY";
    return;
  }
  Api api;
#define GPUSHMEM_UCX_RESOLVE(name)                                              \
  api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));         \
  if (api.name == nullptr) {                                                    \
    g_why = "the UCX library found lacks " #name ": install UCX 1.13 or newer"; \
    return;                                                                     \
  }
  GPUSHMEM_UCX_FUNCTIONS(GPUSHMEM_UCX_RESOLVE)
#undef GPUSHMEM_UCX_RESOLVE
  api.ucp_get_version(&api.major, &api.minor, &api.release);
  if (api.major != UCP_API_MAJOR || api.minor < 13) {
    char why[160];
    std::snprintf(why, sizeof why, "the UCX library found is version %u.%u.%u: gpushmem needs %u.13 or newer",
                  api.major, api.minor, api.release, UCP_API_MAJOR);
    g_why = why;
    return;
  }
  struct link_map *map = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr) api.path = map->l_name;
  g_api = api;
  g_loaded = &g_api;
}

}  // namespace

const Api *load(const std::string &library, std::string *why) {
  static std::once_flag once;
  std::call_once(once, resolve, library);
  if (g_loaded == nullptr && why != nullptr) *why = g_why;
  return g_loaded;
}

}  // namespace gpushmem::ucx
