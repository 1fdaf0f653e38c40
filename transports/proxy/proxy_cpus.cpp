#include "proxy/proxy_cpus.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

namespace gpushmem::proxy {

bool parse_cpu_list(const std::string &text, std::vector<int> *cpus) {
  std::string t;
  for (char ch : text)
    if (!std::isspace(static_cast<unsigned char>(ch))) t += ch;
  if (t.empty()) return false;
  std::vector<int> out;
  std::stringstream parts(t);
  for (std::string part; std::getline(parts, part, ',');) {
    const size_t dash = part.find('-');
    const std::string lo_text = part.substr(0, dash),
                      hi_text = dash == std::string::npos ? lo_text : part.substr(dash + 1);
    auto number = [](const std::string &s, long *v) {
      if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
      *v = std::stol(s);
      return true;
    };
    long lo = 0, hi = 0;
    if (!number(lo_text, &lo) || !number(hi_text, &hi) || hi < lo || hi - lo > 65536) return false;
    for (long c = lo; c <= hi; ++c) out.push_back(static_cast<int>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  *cpus = std::move(out);
  return true;
}

std::string format_cpu_list(const std::vector<int> &cpus) {
  std::string s;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    s += (s.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) s += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return s;
}

std::string sysfs_bus_id(const std::string &bus_id) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  char end = 0;
  // Domains above 0xffff exist (VMD, Hyper-V): sysfs writes them in full ("10000:00:02.0").
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &end) != 4 || bus > 0xff || dev > 0x1f ||
      fn > 7)
    return "";
  char out[24];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
  return out;
}

namespace {

std::vector<int> intersect(const std::vector<int> &a, const std::vector<int> &b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

bool choose_cpus(const std::string &setting, const std::string &bus_id, const std::string &sysfs_root,
                 const std::vector<int> &allowed, CpuChoice *out, std::string *error) {
  *out = CpuChoice{};
  if (setting == "none") {
    out->why = "not pinned (GPUSHMEM_PROXY_CPUS=none)";
    return true;
  }
  if (setting != "auto" && !setting.empty()) {
    std::vector<int> listed;
    if (!parse_cpu_list(setting, &listed)) {
      *error = "GPUSHMEM_PROXY_CPUS='" + setting + "' is not auto, none or a CPU list such as 2,3 or 4-7";
      return false;
    }
    out->cpus = intersect(listed, allowed);
    if (out->cpus.empty()) {
      *error = "GPUSHMEM_PROXY_CPUS='" + setting + "' names no CPU this process may run on (it may use " +
               format_cpu_list(allowed) + ")";
      return false;
    }
    out->why = "on CPUs " + format_cpu_list(out->cpus) + " (GPUSHMEM_PROXY_CPUS)";
    return true;
  }
  const std::string id = sysfs_bus_id(bus_id);
  if (id.empty()) {
    out->why = "not pinned (the GPU's PCI bus id '" + bus_id + "' is not known)";
    return true;
  }
  const std::string path = sysfs_root + "/bus/pci/devices/" + id + "/local_cpulist";
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<int> near;
  if (text.empty() || !parse_cpu_list(text, &near)) {
    out->why = "not pinned (" + path + " does not say which CPUs are near the GPU)";
    return true;
  }
  out->cpus = intersect(near, allowed);
  if (out->cpus.empty()) {
    out->why = "not pinned (the CPUs near GPU " + id + ", " + format_cpu_list(near) +
               ", are none of those this process may use, " + format_cpu_list(allowed) + ")";
    return true;
  }
  out->why = "on CPUs " + format_cpu_list(out->cpus) + " (near GPU " + id + ")";
  return true;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

bool pin_this_thread(const std::vector<int> &cpus) {
  if (cpus.empty()) return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

std::string crowded_warning(const std::vector<int> &allowed) {
  if (allowed.size() != 1) return {};
  return "this process may run on CPU " + std::to_string(allowed[0]) +
         " only (the launcher bound it there: mpirun binds each of up to 2 ranks to one core by default), so "
         "the CPU proxy thread shares that CPU with the program's threads, and each device operation through "
         "the proxy waits for the scheduler's time slices (milliseconds) while a program thread spins (in "
         "cudaStreamSynchronize, for instance): give each PE 2 CPUs or more (mpirun --bind-to none, or "
         "--map-by slot:PE=2)";
}

}  // namespace gpushmem::proxy
