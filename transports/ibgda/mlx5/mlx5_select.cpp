#include "ibgda/mlx5/mlx5_select.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "proxy/proxy_cpus.hpp"

namespace gpushmem::ibgda::mlx5nic {
namespace {

std::string resolved(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) return "";
  return buf;
}

std::vector<std::string> components(const std::string &path) {
  std::vector<std::string> out;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '/'))
    if (!part.empty()) out.push_back(part);
  return out;
}

std::string names_of(const std::vector<RdmaDevice> &devices) {
  std::string s;
  for (const RdmaDevice &d : devices) s += (s.empty() ? "" : ", ") + d.name + (d.mlx5 ? "" : " (not mlx5)");
  return s.empty() ? "none" : s;
}

// `shared`: the path components two devices share below /sys/devices (pci0000:00, then each bridge).
std::string closeness_name(int shared) {
  if (shared <= 0) return "another PCI root complex: the only mlx5 devices are on another socket or host bridge";
  if (shared == 1) return "the same PCI root complex";
  return "behind the same PCIe bridge (" + std::to_string(shared - 1) + " shared level" + (shared > 2 ? "s" : "") +
         " below the root complex)";
}

// A device's path below /sys/devices, "" when it cannot be resolved.
std::string pci_path(const std::string &devices_root, const std::string &link) {
  const std::string full = resolved(link);
  if (devices_root.empty() || full.compare(0, devices_root.size() + 1, devices_root + "/") != 0) return "";
  return full.substr(devices_root.size());
}

bool parse_gid(const std::string &text, uint8_t gid[16]) {
  // "fe80:0000:0000:0000:0202:c9ff:fe00:0001": eight groups of four hex digits.
  unsigned g[8];
  if (std::sscanf(text.c_str(), "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5], &g[6],
                  &g[7]) != 8)
    return false;
  for (int i = 0; i < 8; ++i) {
    gid[2 * i] = static_cast<uint8_t>(g[i] >> 8);
    gid[2 * i + 1] = static_cast<uint8_t>(g[i]);
  }
  return true;
}

std::string read_line(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  return line;
}

}  // namespace

int pci_closeness(const std::string &a, const std::string &b) {
  const std::vector<std::string> x = components(a), y = components(b);
  int n = 0;
  // Neither device's own component counts: two functions of one card share their bridge, not themselves.
  while (n + 1 < static_cast<int>(x.size()) && n + 1 < static_cast<int>(y.size()) &&
         x[static_cast<size_t>(n)] == y[static_cast<size_t>(n)])
    ++n;
  return n;
}

bool choose_device(const std::vector<RdmaDevice> &devices, const std::string &hca, const std::string &gpu_bus_id,
                   const std::string &sysfs_root, DeviceChoice *out, std::string *error) {
  if (!hca.empty()) {
    for (const RdmaDevice &d : devices) {
      if (d.name != hca) continue;
      if (!d.mlx5) {
        *error = "GPUSHMEM_HCA=" + hca + " is not an mlx5 device (libmlx5 does not drive it); IBGDA needs an mlx5 " +
                 "NIC: name one of the mlx5 devices among: " + names_of(devices);
        return false;
      }
      out->name = hca;
      out->why = "GPUSHMEM_HCA";
      return true;
    }
    *error = "GPUSHMEM_HCA=" + hca + " names no RDMA device of this host (found: " + names_of(devices) +
             "); set it to one of them, or unset it to take the mlx5 device nearest the GPU";
    return false;
  }
  std::vector<const RdmaDevice *> mlx5;
  for (const RdmaDevice &d : devices)
    if (d.mlx5) mlx5.push_back(&d);
  if (mlx5.empty()) {
    *error = devices.empty() ? std::string(
                                   "no RDMA device on this host (/sys/class/infiniband is empty): IBGDA "
                                   "needs an mlx5 NIC (ConnectX-5 or later) with mlx5_core and mlx5_ib loaded")
                             : "no mlx5 device among the RDMA devices (" + names_of(devices) +
                                   "): IBGDA needs an mlx5 NIC (ConnectX-5 or later)";
    return false;
  }
  const std::string devices_root = resolved(sysfs_root + "/devices");
  const std::string bus = gpu_bus_id.empty() ? "" : proxy::sysfs_bus_id(gpu_bus_id);
  const std::string gpu = bus.empty() ? "" : pci_path(devices_root, sysfs_root + "/bus/pci/devices/" + bus);
  const RdmaDevice *best = nullptr;
  int best_score = -1;
  if (!gpu.empty()) {
    for (const RdmaDevice *d : mlx5) {
      const std::string nic = pci_path(devices_root, sysfs_root + "/class/infiniband/" + d->name + "/device");
      if (nic.empty()) continue;
      const int score = pci_closeness(gpu, nic);
      if (score > best_score) {  // ties keep the earlier device: the listing order, as without a GPU
        best = d;
        best_score = score;
      }
    }
  }
  if (best == nullptr) {
    out->name = mlx5.front()->name;
    out->why = gpu.empty() ? "the first mlx5 device (the GPU's PCI location is unknown)"
                           : "the first mlx5 device (no device's PCI location could be read)";
    return true;
  }
  out->name = best->name;
  out->why = "the mlx5 device nearest the GPU (" + closeness_name(best_score) + ")";
  return true;
}

bool gid_is_ipv4(const uint8_t gid[16]) {
  for (int i = 0; i < 10; ++i)
    if (gid[i] != 0) return false;
  return gid[10] == 0xff && gid[11] == 0xff;
}

bool gid_is_zero(const uint8_t gid[16]) {
  for (int i = 0; i < 16; ++i)
    if (gid[i] != 0) return false;
  return true;
}

int choose_gid(const std::vector<GidEntry> &table, int wanted, std::string *error) {
  if (wanted >= 0) {
    for (const GidEntry &e : table)
      if (e.index == wanted && !gid_is_zero(e.gid)) return wanted;
    *error = "GPUSHMEM_IBGDA_GID_INDEX=" + std::to_string(wanted) +
             " names no GID of the port (show_gids or /sys/class/infiniband/<device>/ports/<port>/gids lists them); "
             "set another, or -1 to take the first RoCE v2 IPv4 GID";
    return -1;
  }
  int first_v2 = -1;
  for (const GidEntry &e : table) {
    if (gid_is_zero(e.gid) || e.type != "RoCE v2") continue;
    if (gid_is_ipv4(e.gid)) return e.index;
    if (first_v2 < 0) first_v2 = e.index;
  }
  if (first_v2 >= 0) return first_v2;
  *error = table.empty() ? std::string("the port's GID table is empty: give the interface an IP address")
                         : "the port has no RoCE v2 GID (only RoCE v1 or link-local ones): set "
                           "GPUSHMEM_IBGDA_GID_INDEX to the GID to use";
  return -1;
}

std::vector<GidEntry> read_gid_table(const std::string &sysfs_root, const std::string &device, int port,
                                     int gid_tbl_len) {
  std::vector<GidEntry> out;
  const std::string dir = sysfs_root + "/class/infiniband/" + device + "/ports/" + std::to_string(port);
  for (int i = 0; i < gid_tbl_len; ++i) {
    GidEntry e;
    e.index = i;
    if (!parse_gid(read_line(dir + "/gids/" + std::to_string(i)), e.gid) || gid_is_zero(e.gid)) continue;
    e.type = read_line(dir + "/gid_attrs/types/" + std::to_string(i));
    out.push_back(e);
  }
  return out;
}

}  // namespace gpushmem::ibgda::mlx5nic
