#include "ibgda/mlx5/mlx5_provisioner.hpp"

#include <errno.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <utility>

#include "ibgda/mlx5/mlx5_devx_cmds.hpp"
#include "ibgda/mlx5/mlx5_select.hpp"
#include "ibgda/mlx5/mlx5_verbs_api.hpp"

namespace gpushmem::ibgda::mlx5nic {
namespace {

constexpr size_t kPage = 4096;
constexpr size_t kBlock = 64 * 1024;  // GPU allocations the NIC sees: aligned and sized to this

size_t round_up(size_t v, size_t a) {
  return (v + a - 1) / a * a;
}

uint32_t log2_of(uint32_t v) {
  uint32_t l = 0;
  while ((1u << l) < v) ++l;
  return l;
}

std::string errno_text(int e) {
  return std::string(std::strerror(e)) + " (errno " + std::to_string(e) + ")";
}

bool check_layout(const Mlx5Layout &l, std::string *why) {
  auto refuse = [why](const std::string &text) {
    *why = "IBGDA layout: " + text;
    return false;
  };
  if (l.n_pes < 1 || l.my_pe < 0 || l.my_pe >= l.n_pes || l.peers.size() != static_cast<size_t>(l.n_pes))
    return refuse("peers must list every PE, and this PE must be one of them");
  if (l.qps_per_peer < 1 || l.qps_per_peer > 64) return refuse("GPUSHMEM_IBGDA_QPS_PER_PEER must be 1 to 64");
  if (l.wqebbs < 64 || l.wqebbs > 32768 || (l.wqebbs & (l.wqebbs - 1)) != 0)
    return refuse("GPUSHMEM_IBGDA_SQ_BLOCKS must be a power of two from 64 to 32768");
  if (l.batch < 1) return refuse("GPUSHMEM_IBGDA_BATCH must be at least 1");
  if (l.bounce_bytes < 128 || l.bounce_bytes % 64 != 0) return refuse("bounce_bytes must be a multiple of 64, >= 128");
  if (l.heap_base == nullptr || l.heap_bytes == 0 || reinterpret_cast<uintptr_t>(l.heap_base) % kPage != 0 ||
      l.heap_bytes % kPage != 0)
    return refuse("the heap to register must be a non-empty run of whole 4 KiB pages");
  if (static_cast<uint64_t>(l.n_pes) * l.qps_per_peer > 0xffffffu) return refuse("too many queue pairs");
  return true;
}

}  // namespace

ControlPlan plan_control(uint32_t n_qps, uint32_t wqebbs) {
  ControlPlan p;
  p.n_qps = n_qps;
  p.sq_bytes = round_up(size_t{wqebbs} * 64, kPage);
  p.cq_bytes = round_up(size_t{wqebbs} * 64, kPage);  // wqebbs entries of 64 bytes (collapsed: entry 0 is used)
  p.dbr_at = round_up(n_qps * (p.sq_bytes + p.cq_bytes), kPage);
  p.total = round_up(p.dbr_at + size_t{n_qps} * 64, kBlock);
  return p;
}

// ---- what one PE makes, and the release of it ----
struct Mlx5Provisioner::Impl {
  explicit Impl(GpuOps *g) : gpu(g) {}
  ~Impl() { release(); }

  GpuOps *gpu;
  std::vector<std::function<void()>> undo;  // run in reverse: the reverse order of making
  void push(std::function<void()> f) { undo.push_back(std::move(f)); }
  void release() {
    while (!undo.empty()) {
      std::function<void()> f = std::move(undo.back());
      undo.pop_back();
      f();
    }
  }
  void *gpu_alloc(size_t bytes, size_t align, std::string *why) {
    void *p = gpu->alloc(bytes, align, why);
    if (p != nullptr) push([this, p] { gpu->free(p); });
    return p;
  }

  // The QPs, densely: QP k serves slot slot_of[k] (pe * Q + q) of the device's qps[].
  std::vector<uint32_t> slot_of;
  std::vector<uint32_t> qpn;
  std::vector<void *> doorbell;  // QP k's doorbell, as the GPU addresses it
  uint8_t *control = nullptr;    // GPU memory: send queues, CQs, doorbell records (ControlPlan)
  ControlPlan plan;
  uint8_t *bounce = nullptr;
  uint32_t *locks = nullptr;
  gpushmem_ibgda_qp_words_t *words = nullptr;
  uint32_t heap_lkey = 0;
  uint32_t bounce_lkey = 0;
  uint32_t umem_id = 0;
  PeerCard card;        // what this PE tells the others
  std::string name;     // the device's
  std::string summary;  // for the log

  // Everything this PE can make alone, then what the others must know (card, qpn). False with *why.
  bool build_local(const Mlx5Layout &l, std::string *why);
  // RST2INIT was done locally; INIT2RTR and RTR2RTS with every partner's numbers and address.
  bool connect(const Mlx5Layout &l, const std::vector<PeerCard> &cards, const std::vector<uint32_t> &all_qpns,
               std::string *why);

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE
  const VerbsApi *api = nullptr;
  ibv_context *ctx = nullptr;
  ibv_pd *pd = nullptr;
  std::string device;  // its name
  uint8_t port = 0;
  ibv_port_attr port_attr{};
  int gid_index = -1;
  devx::HcaCaps caps;
  std::vector<mlx5dv_devx_obj *> qp_obj;

  std::string failed(const std::string &call, const std::string &detail, const std::string &fix) const {
    return call + " on " + device + " failed: " + detail + (fix.empty() ? "" : "; " + fix);
  }
  bool open_device(const Mlx5Layout &l, std::string *why);
  bool query_caps(const Mlx5Layout &l, std::string *why);
  bool choose_port(const Mlx5Layout &l, std::string *why);
  mlx5dv_devx_uar *alloc_uar(uint32_t flags) const {
    errno = 0;
    return api->devx_alloc_uar(ctx, flags);
  }
  bool map_doorbells(uint32_t n, std::vector<uint32_t> *uar_page, std::string *kind, std::string *why);
  bool register_control(std::string *path, std::string *why);
  ibv_mr *register_gpu(void *p, size_t bytes, int access, std::string *path, std::string *why);
  bool modify(uint32_t k, const std::vector<uint8_t> &in, const char *name, std::string *why);
#endif
};

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE

bool Mlx5Provisioner::Impl::open_device(const Mlx5Layout &l, std::string *why) {
  std::string e;
  api = verbs_api(&e);
  if (api == nullptr) {
    *why = e;
    return false;
  }
  int n = 0;
  errno = 0;
  ibv_device **list = api->get_device_list(&n);
  const int list_errno = errno;
  std::vector<RdmaDevice> devices;
  for (int i = 0; list != nullptr && i < n; ++i)
    devices.push_back(RdmaDevice{api->get_device_name(list[i]), api->is_supported(list[i])});
  DeviceChoice choice;
  if (!choose_device(devices, l.hca, l.gpu_bus_id, l.sysfs_root, &choice, why)) {
    if (list == nullptr)
      *why += " (ibv_get_device_list failed: " + errno_text(list_errno) + "; are ib_uverbs and mlx5_ib loaded?)";
    else
      api->free_device_list(list);
    return false;
  }
  device = choice.name;
  ibv_device *dev = nullptr;
  for (int i = 0; i < n; ++i)
    if (device == api->get_device_name(list[i])) dev = list[i];
  mlx5dv_context_attr attr{};
  attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
  errno = 0;
  ctx = api->open_device(dev, &attr);
  const int open_errno = errno;
  api->free_device_list(list);  // an opened device outlives the list
  if (ctx == nullptr) {
    *why = failed("mlx5dv_open_device(MLX5DV_CONTEXT_FLAGS_DEVX)", errno_text(open_errno),
                  "DevX needs mlx5_ib with DevX support (Linux 5.1 or later, current firmware) and the permission to "
                  "use it (root, or CAP_NET_RAW)");
    return false;
  }
  push([this] { api->close_device(ctx); });
  name = device;
  summary = device + " (" + choice.why + ")";
  return true;
}

bool Mlx5Provisioner::Impl::query_caps(const Mlx5Layout &l, std::string *why) {
  const std::vector<uint8_t> in = devx::query_hca_cap_in();
  std::vector<uint8_t> out(devx::kQueryHcaCapOutBytes, 0);
  errno = 0;
  const int rc = api->devx_general_cmd(ctx, in.data(), in.size(), out.data(), out.size());
  if (rc != 0) {
    *why = failed("mlx5dv_devx_general_cmd(QUERY_HCA_CAP)",
                  errno_text(rc > 0 ? rc : errno) + ", " + devx::out_text(out.data()),
                  "the device refuses DevX commands: update its firmware and mlx5_ib");
    return false;
  }
  caps = devx::parse_hca_caps(out.data());
  if (caps.cqe_version != 1) {
    *why = device + " reports cqe_version " + std::to_string(caps.cqe_version) +
           ": IBGDA's collapsed CQs need CQE version 1 (ConnectX-5 or later with current firmware)";
    return false;
  }
  const uint32_t log_sq = log2_of(l.wqebbs);
  if (log_sq > caps.log_max_qp_sz || log_sq > caps.log_max_cq_sz) {
    *why = "GPUSHMEM_IBGDA_SQ_BLOCKS=" + std::to_string(l.wqebbs) + " is more than " + device + " allows (2^" +
           std::to_string(std::min(caps.log_max_qp_sz, caps.log_max_cq_sz)) + " per queue): lower it";
    return false;
  }
  return true;
}

bool Mlx5Provisioner::Impl::choose_port(const Mlx5Layout &l, std::string *why) {
  ibv_device_attr dattr{};
  if (api->query_device(ctx, &dattr) != 0) {
    *why = failed("ibv_query_device", errno_text(errno), "");
    return false;
  }
  std::string states;
  for (uint8_t p = 1; p <= dattr.phys_port_cnt; ++p) {
    ibv_port_attr a{};
    if (api->query_port_compat(ctx, p, &a) != 0) continue;
    states += (states.empty() ? "" : ", ") + std::string("port ") + std::to_string(p) + " state " +
              std::to_string(static_cast<int>(a.state));
    if (a.state == IBV_PORT_ACTIVE) {
      port = p;
      port_attr = a;
      break;
    }
  }
  if (port == 0) {
    *why = device + " has no active port (" + (states.empty() ? "no port answered" : states) +
           "; 4 is active): bring the link up (ibstat, ip link), or name another device in GPUSHMEM_HCA";
    return false;
  }
  card.port = port;
  card.link_layer = port_attr.link_layer;
  card.mtu = static_cast<uint8_t>(port_attr.active_mtu);
  card.log_rra_max = static_cast<uint8_t>(std::min<uint32_t>(caps.log_max_ra_res_qp, 7));
  if (port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
    const std::vector<GidEntry> table = read_gid_table(l.sysfs_root, device, port, port_attr.gid_tbl_len);
    gid_index = choose_gid(table, l.gid_index, why);
    if (gid_index < 0) {
      *why = device + " port " + std::to_string(port) + " (RoCE): " + *why;
      return false;
    }
    ibv_gid gid{};
    if (api->query_gid(ctx, port, gid_index, &gid) != 0 || gid_is_zero(gid.raw)) {
      *why = failed("ibv_query_gid(port " + std::to_string(port) + ", index " + std::to_string(gid_index) + ")",
                    "no GID there", "set GPUSHMEM_IBGDA_GID_INDEX to a valid GID index");
      return false;
    }
    std::memcpy(card.gid, gid.raw, sizeof card.gid);
    for (const GidEntry &e : table)
      if (e.index == gid_index) card.roce_v2 = e.type == "RoCE v2";
    summary += ", port " + std::to_string(port) + " RoCE " + (card.roce_v2 ? "v2" : "v1") + " GID index " +
               std::to_string(gid_index);
  } else {
    if (port_attr.lid == 0) {
      *why = device + " port " + std::to_string(port) +
             " (InfiniBand) has no LID: start a subnet manager (opensm) on the fabric";
      return false;
    }
    card.lid = port_attr.lid;
    summary += ", port " + std::to_string(port) + " InfiniBand LID " + std::to_string(port_attr.lid);
  }
  summary += ", MTU " + std::to_string(128 << port_attr.active_mtu);
  return true;
}

// Each QP's doorbell: a UAR page of its own (NC_DEDICATED) where libmlx5 has them, else the context's shared
// non-cached page, else a BlueFlame page (its first 8 bytes take the doorbell; the producers never write whole WQEs
// there). Each page is mapped into the GPU once.
bool Mlx5Provisioner::Impl::map_doorbells(uint32_t n, std::vector<uint32_t> *uar_page, std::string *kind,
                                          std::string *why) {
  // MLX5DV_UAR_ALLOC_TYPE_NC_DEDICATED = 1U << 31 (rdma-core providers/mlx5/mlx5_api.h, rdma-core 45 and later),
  // spelled here for older headers; an older libmlx5 refuses the flag (EOPNOTSUPP) and the next kind is tried.
  constexpr uint32_t kNcDedicated = 1u << 31;
  const long page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  std::map<uintptr_t, uintptr_t> mapped;  // host page -> device page
  for (uint32_t k = 0; k < n; ++k) {
    mlx5dv_devx_uar *uar = alloc_uar(kNcDedicated);
    const char *what = "dedicated non-cached";
    if (uar == nullptr) {
      uar = alloc_uar(MLX5DV_UAR_ALLOC_TYPE_NC);
      what = "shared non-cached";
    }
    if (uar == nullptr) {
      uar = alloc_uar(MLX5DV_UAR_ALLOC_TYPE_BF);
      what = "BlueFlame";
    }
    if (uar == nullptr) {
      *why = failed("mlx5dv_devx_alloc_uar (NC_DEDICATED, NC and BF)", errno_text(errno),
                    "the device has no doorbell page left: lower GPUSHMEM_IBGDA_QPS_PER_PEER");
      return false;
    }
    // Freed after its page is unmapped from the GPU (the undo runs in reverse); the shared NC page ignores it.
    push([this, uar] { api->devx_free_uar(uar); });
    if (k == 0) *kind = what;
    const uintptr_t reg = reinterpret_cast<uintptr_t>(uar->reg_addr);
    const uintptr_t host_page = reg & ~static_cast<uintptr_t>(page - 1);
    auto it = mapped.find(host_page);
    if (it == mapped.end()) {
      std::string e;
      void *dev = gpu->map_io(reinterpret_cast<void *>(host_page), static_cast<size_t>(page), &e);
      if (dev == nullptr) {
        *why = "mapping " + device + "'s doorbell page (" + what + " UAR) into the GPU: " + e;
        return false;
      }
      push([this, host_page] { gpu->unmap_io(reinterpret_cast<void *>(host_page)); });
      it = mapped.emplace(host_page, reinterpret_cast<uintptr_t>(dev)).first;
    }
    doorbell.push_back(reinterpret_cast<void *>(it->second + (reg - host_page)));
    uar_page->push_back(uar->page_id);
  }
  return true;
}

// The queues' memory as one umem: through a dma-buf of it where the driver exports one, else by its address
// (nvidia-peermem pins it for the NIC).
bool Mlx5Provisioner::Impl::register_control(std::string *path, std::string *why) {
  std::string dmabuf_why = "libmlx5 has no mlx5dv_devx_umem_reg_ex (rdma-core 35 or later)";
  mlx5dv_devx_umem *umem = nullptr;
  if (api->devx_umem_reg_ex != nullptr) {
    const int fd = gpu->dmabuf_fd(control, plan.total, &dmabuf_why);
    if (fd >= 0) {
      UmemIn in{};
      in.addr = nullptr;  // the dma-buf's start
      in.size = plan.total;
      in.access = IBV_ACCESS_LOCAL_WRITE;
      in.pgsz_bitmap = ~static_cast<uint64_t>(kPage - 1);
      in.comp_mask = kUmemMaskDmabuf;
      in.dmabuf_fd = fd;
      errno = 0;
      umem = api->devx_umem_reg_ex(ctx, &in);
      if (umem == nullptr) dmabuf_why = "mlx5dv_devx_umem_reg_ex(dma-buf) failed: " + errno_text(errno);
      close(fd);  // the umem holds its own reference to the dma-buf
    }
  }
  *path = "dma-buf";
  if (umem == nullptr) {
    errno = 0;
    umem = api->devx_umem_reg(ctx, control, plan.total, IBV_ACCESS_LOCAL_WRITE);
    *path = "nvidia-peermem";
    if (umem == nullptr) {
      *why = "registering the IBGDA queues' GPU memory with " + device + " failed both ways: dma-buf: " + dmabuf_why +
             "; by address (nvidia-peermem): mlx5dv_devx_umem_reg: " + errno_text(errno) +
             "; use a driver that exports dma-buf (open kernel modules, Linux 5.12 or later) or load nvidia-peermem";
      return false;
    }
  }
  push([this, umem] { api->devx_umem_dereg(umem); });
  umem_id = umem->umem_id;
  return true;
}

// A memory region over GPU memory (the heap, the bounce memory): through a dma-buf of it, else by address.
ibv_mr *Mlx5Provisioner::Impl::register_gpu(void *p, size_t bytes, int access, std::string *path, std::string *why) {
  std::string dmabuf_why = "libibverbs has no ibv_reg_dmabuf_mr (rdma-core 34 or later)";
  ibv_mr *mr = nullptr;
  if (api->reg_dmabuf_mr != nullptr) {
    const int fd = gpu->dmabuf_fd(p, bytes, &dmabuf_why);
    if (fd >= 0) {
      errno = 0;
      mr = api->reg_dmabuf_mr(pd, 0, bytes, reinterpret_cast<uint64_t>(p), fd, access);
      if (mr == nullptr) dmabuf_why = "ibv_reg_dmabuf_mr failed: " + errno_text(errno);
      close(fd);
    }
  }
  *path = "dma-buf";
  if (mr == nullptr) {
    errno = 0;
    mr = api->reg_mr(pd, p, bytes, access);
    *path = "nvidia-peermem";
    if (mr == nullptr) {
      char where[64];
      std::snprintf(where, sizeof where, "%zu bytes of GPU memory at %p", bytes, p);
      *why = std::string("registering ") + where + " with " + device + " failed both ways: dma-buf: " + dmabuf_why +
             "; by address (nvidia-peermem): ibv_reg_mr: " + errno_text(errno) +
             "; use a driver that exports dma-buf (open kernel modules, Linux 5.12 or later) or load nvidia-peermem";
      return nullptr;
    }
  }
  push([this, mr] { api->dereg_mr(mr); });
  return mr;
}

bool Mlx5Provisioner::Impl::modify(uint32_t k, const std::vector<uint8_t> &in, const char *name, std::string *why) {
  uint8_t out[devx::kOutBytes] = {};
  errno = 0;
  const int rc = api->devx_obj_modify(qp_obj[k], in.data(), in.size(), out, sizeof out);
  if (rc == 0) return true;
  *why = failed(std::string("mlx5dv_devx_obj_modify(") + name + ", QP " + std::to_string(qpn[k]) + ")",
                errno_text(rc > 0 ? rc : errno) + ", " + devx::out_text(out),
                "the device refused the queue pair's transition (its firmware's syndrome above)");
  return false;
}

bool Mlx5Provisioner::Impl::build_local(const Mlx5Layout &l, std::string *why) {
  if (!open_device(l, why) || !query_caps(l, why) || !choose_port(l, why)) return false;

  errno = 0;
  pd = api->alloc_pd(ctx);
  if (pd == nullptr) {
    *why = failed("ibv_alloc_pd", errno_text(errno), "");
    return false;
  }
  push([this] { api->dealloc_pd(pd); });
  mlx5dv_pd dv_pd{};
  mlx5dv_obj obj{};
  obj.pd.in = pd;
  obj.pd.out = &dv_pd;
  if (api->init_obj(&obj, MLX5DV_OBJ_PD) != 0) {
    *why = failed("mlx5dv_init_obj(MLX5DV_OBJ_PD)", errno_text(errno), "");
    return false;
  }
  uint32_t eqn = 0;
  int rc = api->devx_query_eqn(ctx, 0, &eqn);
  if (rc != 0) {
    *why = failed("mlx5dv_devx_query_eqn(0)", errno_text(rc > 0 ? rc : errno), "");
    return false;
  }
  // The CQs need a UAR page for arming, which IBGDA never does: the shared one, never mapped into the GPU.
  mlx5dv_devx_uar *cq_uar = alloc_uar(MLX5DV_UAR_ALLOC_TYPE_NC);
  if (cq_uar == nullptr) cq_uar = alloc_uar(MLX5DV_UAR_ALLOC_TYPE_BF);
  if (cq_uar == nullptr) {
    *why = failed("mlx5dv_devx_alloc_uar for the CQs", errno_text(errno), "");
    return false;
  }
  push([this, cq_uar] { api->devx_free_uar(cq_uar); });

  for (int pe = 0; pe < l.n_pes; ++pe)
    if (l.peers[static_cast<size_t>(pe)])
      for (uint32_t q = 0; q < l.qps_per_peer; ++q) slot_of.push_back(static_cast<uint32_t>(pe) * l.qps_per_peer + q);
  const uint32_t n = static_cast<uint32_t>(slot_of.size());
  std::vector<uint32_t> uar_page;
  std::string uar_kind = "no", control_path = "nothing (no peer)", heap_path, bounce_path;
  if (n > 0) {
    if (!map_doorbells(n, &uar_page, &uar_kind, why)) return false;
    plan = plan_control(n, l.wqebbs);
    control = static_cast<uint8_t *>(gpu_alloc(plan.total, kBlock, why));
    if (control == nullptr) return false;
    // CQEs start INVALID (opcode 0xf), as the producers' first poll expects; send queues and records start zeroed.
    if (!gpu->fill(control + plan.cq(0), 0xff, size_t{n} * plan.cq_bytes, why)) return false;
    if (!register_control(&control_path, why)) return false;
  }

  const uint32_t log_size = log2_of(l.wqebbs);
  for (uint32_t k = 0; k < n; ++k) {
    devx::CqParams c;
    c.umem_id = umem_id;
    c.umem_offset = plan.cq(k);
    c.dbr_umem_id = umem_id;
    c.dbr_offset = plan.cq_dbr(k);
    c.log_cq_size = log_size;
    c.uar_page = cq_uar->page_id;
    c.eqn = eqn;
    const std::vector<uint8_t> cq_in = devx::create_cq_in(c);
    uint8_t out[devx::kOutBytes] = {};
    errno = 0;
    mlx5dv_devx_obj *cq = api->devx_obj_create(ctx, cq_in.data(), cq_in.size(), out, sizeof out);
    if (cq == nullptr) {
      *why = failed("mlx5dv_devx_obj_create(CREATE_CQ)", errno_text(errno) + ", " + devx::out_text(out),
                    "the device refused a collapsed CQ in GPU memory");
      return false;
    }
    push([this, cq] { api->devx_obj_destroy(cq); });

    devx::QpParams qp;
    qp.pdn = dv_pd.pdn;
    qp.uar_page = uar_page[k];
    qp.cqn = static_cast<uint32_t>(devx::get(out, devx::cmd::out_object));
    qp.log_sq_size = log_size;
    qp.wq_umem_id = umem_id;
    qp.wq_umem_offset = plan.sq(k);
    qp.dbr_umem_id = umem_id;
    qp.dbr_offset = plan.qp_dbr(k);
    qp.user_index = k;
    const std::vector<uint8_t> qp_in = devx::create_qp_in(qp);
    std::memset(out, 0, sizeof out);
    errno = 0;
    mlx5dv_devx_obj *obj_qp = api->devx_obj_create(ctx, qp_in.data(), qp_in.size(), out, sizeof out);
    if (obj_qp == nullptr) {
      *why = failed("mlx5dv_devx_obj_create(CREATE_QP)", errno_text(errno) + ", " + devx::out_text(out),
                    "the device refused an RC queue pair in GPU memory");
      return false;
    }
    push([this, obj_qp] { api->devx_obj_destroy(obj_qp); });
    qp_obj.push_back(obj_qp);
    qpn.push_back(static_cast<uint32_t>(devx::get(out, devx::cmd::out_object)));
    if (!modify(k, devx::rst2init_qp_in(qpn[k], port), "RST2INIT_QP", why)) return false;
  }

  // Bounce memory and its lock per QP slot, in qps[] order, as the device indexes them; the producers' words.
  const size_t slots = static_cast<size_t>(l.n_pes) * l.qps_per_peer;
  const size_t bounce_total = round_up(slots * l.bounce_bytes, kBlock);
  bounce = static_cast<uint8_t *>(gpu_alloc(bounce_total, kBlock, why));
  locks = static_cast<uint32_t *>(gpu_alloc(slots * sizeof(uint32_t), 256, why));
  words = static_cast<gpushmem_ibgda_qp_words_t *>(gpu_alloc(slots * sizeof(gpushmem_ibgda_qp_words_t), 256, why));
  if (bounce == nullptr || locks == nullptr || words == nullptr) return false;
  ibv_mr *bounce_mr = register_gpu(bounce, bounce_total, IBV_ACCESS_LOCAL_WRITE, &bounce_path, why);
  if (bounce_mr == nullptr) return false;
  bounce_lkey = bounce_mr->lkey;
  ibv_mr *heap_mr =
      register_gpu(l.heap_base, l.heap_bytes,
                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
                   &heap_path, why);
  if (heap_mr == nullptr) return false;
  heap_lkey = heap_mr->lkey;
  card.rkey = heap_mr->rkey;
  card.heap_base = reinterpret_cast<uint64_t>(l.heap_base);
  card.heap_bytes = l.heap_bytes;
  summary += "; " + std::to_string(n) + " queue pairs, queues in GPU memory through " + control_path +
             ", doorbells on " + uar_kind + " UAR pages, heap (" + std::to_string(l.heap_bytes >> 20) +
             " MiB) registered through " + heap_path;
  return true;
}

bool Mlx5Provisioner::Impl::connect(const Mlx5Layout &l, const std::vector<PeerCard> &cards,
                                    const std::vector<uint32_t> &all_qpns, std::string *why) {
  const bool roce = port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  const uint32_t n = static_cast<uint32_t>(slot_of.size());
  int ah_pe = -1;
  uint8_t rmac[6] = {};
  for (uint32_t k = 0; k < n; ++k) {
    const int pe = static_cast<int>(slot_of[k] / l.qps_per_peer);
    const uint32_t q = slot_of[k] % l.qps_per_peer;
    const PeerCard &c = cards[static_cast<size_t>(pe)];
    if (c.link_layer != card.link_layer) {
      *why = "PE " + std::to_string(pe) + "'s port is " +
             (c.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand") + ", this PE's (" + device +
             ") is not: IBGDA connects ports of one fabric (set GPUSHMEM_HCA alike)";
      return false;
    }
    devx::RtrParams r;
    r.qpn = qpn[k];
    r.port = port;
    r.mtu = std::min(card.mtu, c.mtu);
    r.remote_qpn = partner_qpn(all_qpns, l.n_pes, l.qps_per_peer, pe, l.my_pe, q);
    r.log_rra_max = card.log_rra_max;
    if (r.remote_qpn == 0) {
      *why = "PE " + std::to_string(pe) + " made no IBGDA queue pair for this PE (PE " + std::to_string(l.my_pe) +
             "): the PEs disagree on who is reached through the network";
      return false;
    }
    r.roce = roce;
    if (!roce) {
      r.rlid = c.lid;
    } else {
      if (ah_pe != pe) {
        // The next hop's MAC for the peer's GID, as the kernel resolves it for an address handle.
        ibv_ah_attr a{};
        a.is_global = 1;
        a.port_num = port;
        std::memcpy(a.grh.dgid.raw, c.gid, 16);
        a.grh.sgid_index = static_cast<uint8_t>(gid_index);
        a.grh.hop_limit = static_cast<uint8_t>(devx::kHopLimit);
        errno = 0;
        ibv_ah *ah = api->create_ah(pd, &a);
        if (ah == nullptr) {
          *why = failed("ibv_create_ah (PE " + std::to_string(pe) + "'s GID)", errno_text(errno),
                        "the peer's address does not resolve from this port (routing, or a GID index of another "
                        "subnet: see GPUSHMEM_IBGDA_GID_INDEX)");
          return false;
        }
        mlx5dv_ah dv_ah{};
        mlx5dv_obj obj{};
        obj.ah.in = ah;
        obj.ah.out = &dv_ah;
        const int rc = api->init_obj(&obj, MLX5DV_OBJ_AH);
        if (rc == 0) std::memcpy(rmac, dv_ah.av->rmac, sizeof rmac);
        api->destroy_ah(ah);
        if (rc != 0) {
          *why = failed("mlx5dv_init_obj(MLX5DV_OBJ_AH)", errno_text(rc > 0 ? rc : errno), "");
          return false;
        }
        ah_pe = pe;
      }
      std::memcpy(r.rgid, c.gid, 16);
      std::memcpy(r.rmac, rmac, 6);
      r.src_addr_index = static_cast<uint32_t>(gid_index);
      // RoCE v2 spreads the QPs over ECMP paths by UDP source port; v1 has no UDP header.
      r.udp_sport = card.roce_v2 ? devx::kRoceV2SportBase | (k & 0x3fffu) : 0;
    }
    if (!modify(k, devx::init2rtr_qp_in(r), "INIT2RTR_QP", why)) return false;
    devx::RtsParams t;
    t.qpn = qpn[k];
    t.port = port;
    t.log_sra_max = std::min<uint32_t>({caps.log_max_ra_req_qp, c.log_rra_max, 7});
    if (!modify(k, devx::rtr2rts_qp_in(t), "RTR2RTS_QP", why)) return false;
  }
  return true;
}

#else  // !GPUSHMEM_MLX5_HAVE_RDMA_CORE

bool Mlx5Provisioner::Impl::build_local(const Mlx5Layout &, std::string *why) {
  *why =
      "gpushmem was built without rdma-core headers (<infiniband/verbs.h>, <infiniband/mlx5dv.h>): install "
      "them (Debian/Ubuntu: apt-get install libibverbs-dev) and rebuild gpushmem";
  return false;
}

bool Mlx5Provisioner::Impl::connect(const Mlx5Layout &, const std::vector<PeerCard> &, const std::vector<uint32_t> &,
                                    std::string *why) {
  *why = "built without rdma-core headers";
  return false;
}

#endif  // GPUSHMEM_MLX5_HAVE_RDMA_CORE

// ---- the provisioner ----
Mlx5Provisioner::Mlx5Provisioner(GpuOps gpu) : gpu_(std::move(gpu)) {}

Mlx5Provisioner::~Mlx5Provisioner() {
  release();
}

void Mlx5Provisioner::release() {
  impl_.reset();
  qps_.clear();
  host_state_ = gpushmem_ibgda_state_t{};
  device_state_ = nullptr;
}

bool Mlx5Provisioner::build_tables(const Mlx5Layout &l, const std::vector<PeerCard> &cards, std::string *why) {
  Impl &m = *impl_;
  const size_t slots = static_cast<size_t>(l.n_pes) * l.qps_per_peer;
  qps_.assign(slots, gpushmem_ibgda_qp_t{});
  for (size_t k = 0; k < m.slot_of.size(); ++k) {
    gpushmem_ibgda_qp_t &qp = qps_[m.slot_of[k]];
    qp.sq = m.control + m.plan.sq(static_cast<uint32_t>(k));
    qp.cqe = m.control + m.plan.cq(static_cast<uint32_t>(k));
    qp.dbrec = reinterpret_cast<uint32_t *>(m.control + m.plan.qp_dbr(static_cast<uint32_t>(k)));
    qp.doorbell = static_cast<uint64_t *>(m.doorbell[k]);
    qp.words = m.words + m.slot_of[k];
    qp.wqebbs = l.wqebbs;
    qp.qpn = m.qpn[k];
    qp.batch = l.batch;
  }
  std::vector<uint32_t> rkeys(static_cast<size_t>(l.n_pes), 0);
  std::vector<uint64_t> bases(static_cast<size_t>(l.n_pes), 0);
  for (int pe = 0; pe < l.n_pes; ++pe) {
    if (!l.peers[static_cast<size_t>(pe)]) continue;
    rkeys[static_cast<size_t>(pe)] = cards[static_cast<size_t>(pe)].rkey;
    bases[static_cast<size_t>(pe)] = cards[static_cast<size_t>(pe)].heap_base;
  }
  auto *dev_qps = static_cast<gpushmem_ibgda_qp_t *>(m.gpu_alloc(slots * sizeof(gpushmem_ibgda_qp_t), 256, why));
  auto *dev_rkeys = static_cast<uint32_t *>(m.gpu_alloc(rkeys.size() * sizeof(uint32_t), 256, why));
  auto *dev_bases = static_cast<uint64_t *>(m.gpu_alloc(bases.size() * sizeof(uint64_t), 256, why));
  auto *dev_state = static_cast<gpushmem_ibgda_state_t *>(m.gpu_alloc(sizeof(gpushmem_ibgda_state_t), 256, why));
  if (dev_qps == nullptr || dev_rkeys == nullptr || dev_bases == nullptr || dev_state == nullptr) return false;
  host_state_ = gpushmem_ibgda_state_t{};
  host_state_.qps = dev_qps;
  host_state_.rkeys = dev_rkeys;
  host_state_.remote_base = dev_bases;
  host_state_.bounce = m.bounce;
  host_state_.bounce_locks = m.locks;
  host_state_.qps_per_peer = l.qps_per_peer;
  host_state_.heap_lkey = m.heap_lkey;
  host_state_.bounce_lkey = m.bounce_lkey;
  host_state_.bounce_bytes = l.bounce_bytes;
  host_state_.timeout_ns = l.timeout_ns;
  if (!gpu_.to_device(dev_qps, qps_.data(), slots * sizeof(gpushmem_ibgda_qp_t), why) ||
      !gpu_.to_device(dev_rkeys, rkeys.data(), rkeys.size() * sizeof(uint32_t), why) ||
      !gpu_.to_device(dev_bases, bases.data(), bases.size() * sizeof(uint64_t), why) ||
      !gpu_.to_device(dev_state, &host_state_, sizeof host_state_, why))
    return false;
  device_state_ = dev_state;
  return true;
}

Status Mlx5Provisioner::create(const Mlx5Layout &l, const Allgather &allgather, std::string *why) {
  release();
  // The exchange is sized by n_pes (each allgather fills n_pes blocks) and reads this PE's own card at my_pe: with
  // either out of range no allgather can be taken correctly (the bootstrap would write past `all`, cards_agree
  // read past the cards), so such a layout is refused before any step. The runtime passes its own n_pes and my_pe.
  if (l.n_pes < 1 || l.my_pe < 0 || l.my_pe >= l.n_pes) {
    *why = "IBGDA layout: this PE (" + std::to_string(l.my_pe) + ") must be one of the job's " +
           std::to_string(l.n_pes) + " PEs";
    return Status::invalid_argument;
  }
  impl_ = std::make_unique<Impl>(&gpu_);
  Impl &m = *impl_;
  // Local work; a failure is remembered and told to the others in step 1, never returned before it.
  std::string local_why;
  bool ok = check_layout(l, &local_why);
  if (ok && !l.local_ok) {
    ok = false;
    local_why = l.local_why;
  }
  if (ok) ok = m.build_local(l, &local_why);
  m.card.ready = ok;
  m.card.why = local_why;
  m.card.n_pes = l.n_pes;
  m.card.qps_per_peer = l.qps_per_peer;

  // Step 1: the cards. Every PE decides alike from the same cards.
  std::vector<PeerCard> cards;
  if (!exchange_cards(allgather, m.card, l.my_pe, l.n_pes, &cards, why)) {
    release();
    return Status::not_supported;
  }
  // Step 2: the QP numbers, [pe * Q + q] this PE's QP to PE pe.
  std::vector<uint32_t> mine(static_cast<size_t>(l.n_pes) * l.qps_per_peer, 0), all;
  for (size_t k = 0; k < m.slot_of.size(); ++k) mine[m.slot_of[k]] = m.qpn[k];
  if (!exchange_qpns(allgather, mine, l.n_pes, &all, why)) {
    release();
    return Status::bootstrap_error;
  }
  // Step 3: connect, then agree that every PE did.
  std::string connect_why;
  bool connected = m.connect(l, cards, all, &connect_why);
  if (connected) connected = build_tables(l, cards, &connect_why);
  if (!agree(allgather, l.n_pes, connected, connect_why, why)) {
    release();
    return Status::not_supported;
  }
  summary_ = m.summary;
  device_ = m.name;
  return Status::ok;
}

}  // namespace gpushmem::ibgda::mlx5nic
