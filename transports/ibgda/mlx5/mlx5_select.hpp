// Which RDMA device IBGDA uses, and which of its GIDs a RoCE port addresses peers with. Pure functions over what
// the caller found (device names, sysfs), so every choice and refusal is tested without a NIC.
//
// Device: GPUSHMEM_HCA when set (an error naming it and the devices found when it names none, or one that is not
// an mlx5 device); otherwise the mlx5 device nearest the GPU by PCI topology: the longest common prefix of the two
// devices' paths under /sys/devices (same PCIe switch > same root port > same root complex > another socket), the
// locality hwloc ranks PCI devices by on Linux; otherwise (no GPU bus id, paths unreadable) the first mlx5 device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpushmem::ibgda::mlx5nic {

struct RdmaDevice {
  std::string name;   // the ibv device name (mlx5_0, or a udev name such as rocep1s0f0)
  bool mlx5 = false;  // libmlx5 drives it (mlx5dv_is_supported)
};

struct DeviceChoice {
  std::string name;
  std::string why;  // one phrase for the log: "GPUSHMEM_HCA", "nearest the GPU (same PCIe switch)", ...
};

// `hca`: GPUSHMEM_HCA (empty: choose). `gpu_bus_id`: the GPU's PCI address as CUDA gives it ("0000:1B:00.0"; empty:
// unknown). `sysfs_root`: "/sys" (tests give a tree of their own). False with *error saying what is wrong and what
// to change.
bool choose_device(const std::vector<RdmaDevice> &devices, const std::string &hca, const std::string &gpu_bus_id,
                   const std::string &sysfs_root, DeviceChoice *out, std::string *error);

// How many leading components two device paths below /sys/devices share ("/pci0000:00/0000:00:01.0/0000:01:00.0");
// neither device's own last component counts, so two functions of one card score as siblings behind their bridge.
int pci_closeness(const std::string &a, const std::string &b);

// One GID table entry of a RoCE port, as sysfs lists it.
struct GidEntry {
  int index = 0;
  std::string type;  // "RoCE v2", "IB/RoCE v1"
  uint8_t gid[16] = {};
};
// The GID index a RoCE port uses: `wanted` (GPUSHMEM_IBGDA_GID_INDEX) when >= 0 and present; otherwise the first
// RoCE v2 entry holding an IPv4 address (::ffff:a.b.c.d), else the first RoCE v2 one. -1 with *error otherwise.
int choose_gid(const std::vector<GidEntry> &table, int wanted, std::string *error);
bool gid_is_ipv4(const uint8_t gid[16]);
bool gid_is_zero(const uint8_t gid[16]);

// sysfs readers: the port's GID table (type and value of every non-zero entry among the first `gid_tbl_len`).
std::vector<GidEntry> read_gid_table(const std::string &sysfs_root, const std::string &device, int port,
                                     int gid_tbl_len);

}  // namespace gpushmem::ibgda::mlx5nic
