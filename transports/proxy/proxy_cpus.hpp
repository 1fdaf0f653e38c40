// Where the proxy thread runs: the CPUs near its GPU (the PCI device's NUMA-local CPUs, as the kernel lists them
// in /sys/bus/pci/devices/<bus id>/local_cpulist: the set hwloc reports for a PCI device on Linux), within the
// CPUs the process may use; or a list the user gives (GPUSHMEM_PROXY_CPUS); or nowhere in particular.
#pragma once

#include <string>
#include <vector>

namespace gpushmem::proxy {

// "0-3,8,10-11" (the kernel's cpulist format; spaces and a trailing newline allowed) -> sorted, unique CPUs.
// False, with *cpus untouched, on anything else.
bool parse_cpu_list(const std::string &text, std::vector<int> *cpus);
// The inverse: ranges where they run ("0-3,8").
std::string format_cpu_list(const std::vector<int> &cpus);
// "00000000:1B:00.0" (CUDA, nvidia-smi) -> "0000:1b:00.0" (sysfs); "" when it is not a PCI bus id.
std::string sysfs_bus_id(const std::string &bus_id);

struct CpuChoice {
  std::vector<int> cpus;  // empty: the thread is not pinned
  std::string why;        // one line for gpushmem-info and the log: where it runs and why
};

// setting: GPUSHMEM_PROXY_CPUS: "auto" (near the GPU with PCI bus id `bus_id`, looked up under `sysfs_root`,
// normally "/sys"), "none", or a CPU list. `allowed`: the CPUs the process may run on. False, with *error naming
// the setting and what is wrong, for a list that does not parse or names no allowed CPU; "auto" never fails (it
// leaves the thread unpinned and says why).
bool choose_cpus(const std::string &setting, const std::string &bus_id, const std::string &sysfs_root,
                 const std::vector<int> &allowed, CpuChoice *out, std::string *error);

// "" when the proxy thread can have a CPU of its own among `allowed` (the process's CPUs); else the warning a PE
// logs at start: with one CPU (mpirun binds each of up to 2 ranks to one core by default) the proxy shares it
// with the program's threads, and a device operation waits for the scheduler's time slices (milliseconds)
// while a program thread spins, in cudaStreamSynchronize for instance.
std::string crowded_warning(const std::vector<int> &allowed);

// The CPUs the calling thread may run on (sched_getaffinity).
std::vector<int> allowed_cpus();
// Pins the calling thread to `cpus` (nothing for an empty list); false if the system refuses.
bool pin_this_thread(const std::vector<int> &cpus);

}  // namespace gpushmem::proxy
