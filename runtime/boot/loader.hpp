// Loading bootstrap plugins (dlopen) and choosing which one to use.
#pragma once

#include <string>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/bootstrap_plugin.h"

namespace gpushmem::boot {

// A loaded plugin: the filled table plus the dlopen handle that keeps its code mapped.
struct Plugin {
  gpushmem_bootstrap_t table{};
  void *handle = nullptr;
  std::string path;
};

// Folder the plugins live in: GPUSHMEM_BOOTSTRAP_PLUGIN_DIR, else <folder of libgpushmem>/gpushmem.
std::string plugin_dir();
// Path of the plugin file for a name ("mpi" -> <dir>/libgpushmem_bootstrap_mpi.so).
std::string plugin_path(const std::string &name);
// Names of the plugins present in plugin_dir(), sorted.
std::vector<std::string> available_plugins();

// dlopens `path`, checks the ABI version and struct size, calls the init symbol with `args` and fills
// *out (unfilled entries get stubs returning ENOTSUP). Logs the observed cause on failure: file missing,
// dlopen error text, symbol missing, ABI mismatch, or the plugin's own error code. `quiet_enolauncher`
// keeps an ENOLAUNCHER result silent (used while probing).
Status load_plugin(const std::string &path, const gpushmem_bootstrap_args_t &args, Plugin *out,
                   int *plugin_rc = nullptr, bool quiet_enolauncher = false);
void unload_plugin(Plugin *p);

// The plugin to use: `requested` (from shmemx_init_attr) if non-empty, else GPUSHMEM_BOOTSTRAP, else the
// launcher detected from the environment, else "single". `why` says which rule chose it.
struct Choice {
  std::string name;
  std::string why;
  bool explicit_choice = false;  // requested or from the env var: failure to load is then an error
};
Choice choose_bootstrap(const char *requested);

// Names the launcher environment points at, in preference order (for detection and gpushmem-info).
std::vector<std::string> detect_launchers();

// How many processes the launcher says it started (OMPI_COMM_WORLD_SIZE, PMI_SIZE, GPUSHMEMRUN_SIZE),
// with the variable that says so in *source; 0 when none says.
long launcher_size(std::string *source);

}  // namespace gpushmem::boot
