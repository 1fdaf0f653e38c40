// Which bootstrap plugin to use: explicit request, then GPUSHMEM_BOOTSTRAP, then the launcher's environment.
#include <cstdlib>
#include <string>

#include "boot/loader.hpp"
#include "env/env.hpp"

namespace gpushmem::boot {
namespace {

// Presence of a launcher variable. These are not configuration (the table holds those), only evidence of
// which launcher started us, so they are read here and nowhere else.
bool has(const char *name) {
  return std::getenv(name) != nullptr;
}

}  // namespace

std::vector<std::string> detect_launchers() {
  std::vector<std::string> found;
  if (has("GPUSHMEMRUN_UNIQUEID")) found.push_back("tcp");
  if (has("PMIX_RANK") && (has("PMIX_SERVER_URI4") || has("PMIX_SERVER_URI3") || has("PMIX_SERVER_URI2") ||
                           has("PMIX_SERVER_URI21") || has("PMIX_SERVER_URI41")))
    found.push_back("pmix");
  if (has("OMPI_COMM_WORLD_SIZE") || has("PMI_RANK") || has("PMI_SIZE") || has("MPI_LOCALNRANKS"))
    found.push_back("mpi");
  return found;
}

long launcher_size(std::string *source) {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "GPUSHMEMRUN_SIZE"}) {
    const char *v = std::getenv(name);
    if (v == nullptr) continue;
    char *end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || *end != '\0' || n < 1) continue;
    *source = std::string(name) + "=" + v;
    return n;
  }
  return 0;
}

Choice choose_bootstrap(const char *requested) {
  if (requested != nullptr && *requested != '\0') return {requested, "requested by shmemx_init_attr", true};
  const std::string &from_env = env::get().GPUSHMEM_BOOTSTRAP;
  if (!from_env.empty()) return {from_env, "GPUSHMEM_BOOTSTRAP", true};
  std::vector<std::string> found = detect_launchers();
  std::vector<std::string> have = available_plugins();
  for (const std::string &name : found) {
    for (const std::string &h : have)
      if (h == name) return {name, "detected the " + name + " launcher environment", false};
  }
  // A launcher started several processes but its plugin is missing: running them as independent single
  // PEs would silently compute the wrong thing, so insist on the plugin (loading it reports what is missing).
  if (!found.empty()) return {found.front(), "detected the " + found.front() + " launcher environment", true};
  return {"single", "no launcher detected", false};
}

}  // namespace gpushmem::boot
