#include "boot/loader.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "env/env.hpp"

namespace gpushmem::boot {
namespace {

constexpr const char *kPrefix = "libgpushmem_bootstrap_";
constexpr const char *kSuffix = ".so";

int not_supported_allgather(gpushmem_bootstrap_t *, const void *, void *, size_t) {
  return GPUSHMEM_BOOTSTRAP_ENOTSUP;
}
int not_supported_bcast(gpushmem_bootstrap_t *, void *, size_t, int) {
  return GPUSHMEM_BOOTSTRAP_ENOTSUP;
}
int not_supported_barrier(gpushmem_bootstrap_t *) {
  return GPUSHMEM_BOOTSTRAP_ENOTSUP;
}
void fallback_abort(gpushmem_bootstrap_t *, int status, const char *why) {
  GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "job aborted: %s", why != nullptr ? why : "");
  _exit(status);
}

// Entries a plugin left empty answer "not supported" instead of crashing the core.
void fill_missing_entries(gpushmem_bootstrap_t *t) {
  if (t->allgather == nullptr) t->allgather = not_supported_allgather;
  if (t->alltoall == nullptr) t->alltoall = not_supported_allgather;
  if (t->bcast == nullptr) t->bcast = not_supported_bcast;
  if (t->barrier == nullptr) t->barrier = not_supported_barrier;
  if (t->finalize == nullptr) t->finalize = not_supported_barrier;
  if (t->abort == nullptr) t->abort = fallback_abort;
}

std::string library_dir() {
  Dl_info info{};
  std::string path;
  if (dladdr(reinterpret_cast<void *>(&plugin_dir), &info) != 0 && info.dli_fname != nullptr) path = info.dli_fname;
  // Linked statically into a program (tools, tests), dladdr names the program as it was started, which can
  // be a bare name found through PATH: ask the kernel where the executable really is.
  if (path.find('/') == std::string::npos) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) path.assign(exe, static_cast<size_t>(n));
  }
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string plugin_dir() {
  const std::string &from_env = env::get().GPUSHMEM_BOOTSTRAP_PLUGIN_DIR;
  if (!from_env.empty()) return from_env;
  std::string dir = library_dir();
  // libgpushmem.so sits in <prefix>/lib; tools and static test binaries sit in <prefix>/bin.
  std::string candidate = dir + "/" GPUSHMEM_PLUGIN_SUBDIR;
  struct stat st {};
  if (stat(candidate.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return candidate;
  size_t slash = dir.rfind('/');
  std::string parent = slash == std::string::npos ? std::string("..") : dir.substr(0, slash);
  for (const char *lib : {"/lib", "/lib64", "/lib/x86_64-linux-gnu"}) {
    std::string c = parent + lib + "/" GPUSHMEM_PLUGIN_SUBDIR;
    if (stat(c.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return c;
  }
  return candidate;
}

std::string plugin_path(const std::string &name) {
  return plugin_dir() + "/" + kPrefix + name + kSuffix;
}

std::vector<std::string> available_plugins() {
  std::vector<std::string> names;
  DIR *d = opendir(plugin_dir().c_str());
  if (d == nullptr) return names;
  while (dirent *e = readdir(d)) {
    std::string f = e->d_name;
    size_t pl = std::strlen(kPrefix), sl = std::strlen(kSuffix);
    if (f.size() > pl + sl && f.compare(0, pl, kPrefix) == 0 && f.compare(f.size() - sl, sl, kSuffix) == 0)
      names.push_back(f.substr(pl, f.size() - pl - sl));
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status load_plugin(const std::string &path, const gpushmem_bootstrap_args_t &args, Plugin *out, int *plugin_rc,
                   bool quiet_enolauncher) {
  if (plugin_rc != nullptr) *plugin_rc = GPUSHMEM_BOOTSTRAP_OK;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "shmem_init: bootstrap plugin %s not found (set GPUSHMEM_BOOTSTRAP_PLUGIN_DIR, or choose "
                       "another with GPUSHMEM_BOOTSTRAP)",
                       path.c_str());
    return Status::bootstrap_error;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "shmem_init: cannot load bootstrap plugin %s: %s", path.c_str(),
                       dlerror());
    return Status::bootstrap_error;
  }
  auto init = reinterpret_cast<gpushmem_bootstrap_init_fn>(dlsym(handle, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL));
  if (init == nullptr) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "shmem_init: %s is not a gpushmem bootstrap plugin of ABI version %d (symbol %s missing)",
                       path.c_str(), GPUSHMEM_BOOTSTRAP_ABI_VERSION, GPUSHMEM_BOOTSTRAP_PLUGIN_SYMBOL);
    dlclose(handle);
    return Status::bootstrap_error;
  }
  gpushmem_bootstrap_t table{};
  int rc = init(&args, &table);
  if (plugin_rc != nullptr) *plugin_rc = rc;
  if (rc != GPUSHMEM_BOOTSTRAP_OK) {
    if (!(quiet_enolauncher && rc == GPUSHMEM_BOOTSTRAP_ENOLAUNCHER))
      GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "shmem_init: bootstrap plugin %s failed to initialise (code %d%s)",
                         path.c_str(), rc, rc == GPUSHMEM_BOOTSTRAP_ENOLAUNCHER ? ": its launcher is not present" : "");
    dlclose(handle);
    return Status::bootstrap_error;
  }
  if (table.abi_version != GPUSHMEM_BOOTSTRAP_ABI_VERSION || table.struct_size < sizeof(gpushmem_bootstrap_t)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap,
                       "shmem_init: bootstrap plugin %s has ABI version %u (struct size %u); this library needs "
                       "version %d (struct size %zu): rebuild the plugin against this gpushmem",
                       path.c_str(), table.abi_version, table.struct_size, GPUSHMEM_BOOTSTRAP_ABI_VERSION,
                       sizeof(gpushmem_bootstrap_t));
    dlclose(handle);
    return Status::bootstrap_error;
  }
  if (table.size < 1 || table.rank < 0 || table.rank >= table.size) {
    GPUSHMEM_LOG_ERROR(log::Subsys::bootstrap, "shmem_init: bootstrap plugin %s reported rank %d of size %d",
                       path.c_str(), table.rank, table.size);
    dlclose(handle);
    return Status::bootstrap_error;
  }
  fill_missing_entries(&table);
  out->table = table;
  out->handle = handle;
  out->path = path;
  return Status::ok;
}

void unload_plugin(Plugin *p) {
  // Plugins may leave threads or library state behind (MPI, PMIx): keep their code mapped for the life of
  // the process and only forget the table.
  p->handle = nullptr;
  p->table = gpushmem_bootstrap_t{};
}

}  // namespace gpushmem::boot
