// The real-NIC IBGDA provisioner (transports/ibgda/mlx5) without a NIC: every DevX command it sends, byte by byte
// where the PRM puts each field (expected bytes worked out by hand from mlx5_ifc's bit offsets); the device and
// GID choices against a sysfs tree of the test's own; the connection cards and the three-step agreement between
// PEs; the queues' memory plan; and, on this host, the provisioner's refusal naming why (no rdma-core, no RDMA
// device, a GPUSHMEM_HCA that names no device), after taking part in the first exchange only and leaving nothing
// allocated.
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "ibgda/mlx5/mlx5_devx_cmds.hpp"
#include "ibgda/mlx5/mlx5_exchange.hpp"
#include "ibgda/mlx5/mlx5_provisioner.hpp"
#include "ibgda/mlx5/mlx5_select.hpp"
#include "ibgda/mlx5/mlx5_verbs_api.hpp"

namespace nic = gpushmem::ibgda::mlx5nic;
namespace devx = gpushmem::ibgda::mlx5nic::devx;
using gpushmem::Status;

namespace {

std::vector<uint8_t> bytes(const std::vector<uint8_t> &cmd, size_t at, size_t n) {
  return {cmd.begin() + static_cast<long>(at), cmd.begin() + static_cast<long>(at + n)};
}

// Every byte of `cmd` outside `expected` (offset -> value) is zero.
void check_only(const std::vector<uint8_t> &cmd, const std::vector<std::pair<size_t, uint8_t>> &expected) {
  std::vector<int> want(cmd.size(), 0);
  for (const auto &e : expected) want[e.first] = e.second;
  for (size_t i = 0; i < cmd.size(); ++i) {
    INFO("byte " << i);
    CHECK(static_cast<int>(cmd[i]) == want[i]);
  }
}

std::vector<std::pair<size_t, uint8_t>> run(size_t at, std::vector<uint8_t> v) {
  std::vector<std::pair<size_t, uint8_t>> out;
  for (size_t i = 0; i < v.size(); ++i) out.emplace_back(at + i, v[i]);
  return out;
}

std::vector<std::pair<size_t, uint8_t>> join(std::initializer_list<std::vector<std::pair<size_t, uint8_t>>> parts) {
  std::vector<std::pair<size_t, uint8_t>> out;
  for (const auto &p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// A directory tree under /tmp, removed at the end.
struct TempTree {
  std::string root;
  TempTree() {
    char tmpl[] = "/tmp/gpushmem_mlx5_XXXXXX";
    root = mkdtemp(tmpl);
  }
  ~TempTree() { (void)std::system(("rm -rf '" + root + "'").c_str()); }
  void dir(const std::string &rel) { (void)std::system(("mkdir -p '" + root + "/" + rel + "'").c_str()); }
  void link(const std::string &rel, const std::string &target) {
    const std::string path = root + "/" + rel;
    dir(path.substr(root.size() + 1, path.rfind('/') - root.size() - 1));
    REQUIRE(symlink(target.c_str(), path.c_str()) == 0);
  }
  void file(const std::string &rel, const std::string &text) {
    const std::string path = root + "/" + rel;
    dir(path.substr(root.size() + 1, path.rfind('/') - root.size() - 1));
    std::ofstream(path) << text;
  }
};

// GPU operations that fail (this host has no GPU for the test), counting what is live.
struct NoGpu {
  int live = 0;
  int calls = 0;
  nic::GpuOps ops() {
    nic::GpuOps g;
    g.alloc = [this](size_t, size_t, std::string *why) -> void * {
      ++calls;
      *why = "the test gives no GPU memory";
      return nullptr;
    };
    g.free = [this](void *) { --live; };
    g.fill = [](void *, int, size_t, std::string *why) {
      *why = "no GPU";
      return false;
    };
    g.to_device = [](void *, const void *, size_t, std::string *why) {
      *why = "no GPU";
      return false;
    };
    g.dmabuf_fd = [](const void *, size_t, std::string *why) {
      *why = "no GPU";
      return -1;
    };
    g.map_io = [this](void *, size_t, std::string *why) -> void * {
      ++calls;
      *why = "no GPU";
      return nullptr;
    };
    g.unmap_io = [](void *) {};
    return g;
  }
};

// A job of n PEs in one process: this PE's block is its own, the others' come from `others` (packed cards, QP
// tables or verdicts, whatever the step sends); counts the steps.
struct FakeJob {
  int n_pes = 2;
  int me = 0;
  int steps = 0;
  std::vector<std::vector<uint8_t>> others;  // per step: what every other PE sends (empty: a copy of mine)
  nic::Allgather allgather() {
    return [this](const void *mine, void *all, size_t bytes) {
      auto *out = static_cast<uint8_t *>(all);
      for (int pe = 0; pe < n_pes; ++pe) {
        const bool given = static_cast<size_t>(steps) < others.size() && !others[static_cast<size_t>(steps)].empty();
        const void *src = pe == me || !given ? mine : others[static_cast<size_t>(steps)].data();
        std::memcpy(out + static_cast<size_t>(pe) * bytes, src, bytes);
      }
      ++steps;
      return true;
    };
  }
};

nic::Mlx5Layout host_layout() {
  nic::Mlx5Layout l;
  l.my_pe = 0;
  l.n_pes = 2;
  l.peers = {false, true};
  l.qps_per_peer = 2;
  l.wqebbs = 64;
  static uint8_t heap[8192] __attribute__((aligned(4096)));
  l.heap_base = heap;
  l.heap_bytes = sizeof heap;
  return l;
}

// Why this host cannot run IBGDA, as the provisioner should find it first; "" when it might (a real mlx5 device).
std::string expected_refusal() {
#ifndef GPUSHMEM_MLX5_HAVE_RDMA_CORE
  return "built without rdma-core headers";
#else
  void *v = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
  if (v == nullptr) return "dlopen(libibverbs.so.1) failed";
  void *m = dlopen("libmlx5.so.1", RTLD_NOW | RTLD_LOCAL);
  (void)dlclose(v);
  if (m == nullptr) return "dlopen(libmlx5.so.1) failed";
  (void)dlclose(m);
  DIR *d = opendir("/sys/class/infiniband");
  int devices = 0;
  if (d != nullptr) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.') ++devices;
    closedir(d);
  }
  return devices == 0 ? "no RDMA device on this host" : "";
#endif
}

}  // namespace

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE
// The provisioner's own spelling of struct mlx5dv_devx_umem_in, against the installed header where it has the
// dma-buf field (rdma-core 43 and later).
template <class U>
constexpr bool umem_in_matches() {
  if constexpr (requires(U u) { u.dmabuf_fd; })
    return sizeof(nic::UmemIn) == sizeof(U) && offsetof(nic::UmemIn, size) == offsetof(U, size) &&
           offsetof(nic::UmemIn, access) == offsetof(U, access) &&
           offsetof(nic::UmemIn, pgsz_bitmap) == offsetof(U, pgsz_bitmap) &&
           offsetof(nic::UmemIn, comp_mask) == offsetof(U, comp_mask) &&
           offsetof(nic::UmemIn, dmabuf_fd) == offsetof(U, dmabuf_fd);
  else
    return true;
}
static_assert(umem_in_matches<mlx5dv_devx_umem_in>(), "UmemIn differs from rdma-core's struct mlx5dv_devx_umem_in");
#endif

TEST_CASE("devx field helpers write and read the PRM's big-endian bits", "[mlx5][devx]") {
  std::vector<uint8_t> b(16, 0);
  devx::set(b.data(), devx::Field{0x0b, 1}, 1);  // bit 11: byte 1, its 0x10
  CHECK(b[1] == 0x10);
  CHECK(devx::get(b.data(), devx::Field{0x0b, 1}) == 1);
  devx::set(b.data(), devx::Field{0x48, 24}, 0xabcdef);  // qpn: bytes 9..11
  CHECK(bytes(b, 9, 3) == std::vector<uint8_t>{0xab, 0xcd, 0xef});
  devx::set(b.data(), devx::Field{0x63, 5}, 0x15);  // 5 bits from bit 3 of byte 12
  CHECK(b[12] == 0x15);
  devx::set(b.data(), devx::Field{0x60, 3}, 0x5);  // the 3 bits above it: 101 in the top of byte 12
  CHECK(b[12] == 0xb5);
  CHECK(devx::get(b.data(), devx::Field{0x63, 5}) == 0x15);
  CHECK(devx::get(b.data(), devx::Field{0x60, 8}) == 0xb5);
  // A 64-bit field, and clearing a field leaves its neighbours alone.
  std::vector<uint8_t> w(24, 0xff);
  devx::set(w.data(), devx::Field{0x40, 64}, 0x0102030405060708ull);
  CHECK(bytes(w, 8, 8) == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});
  CHECK(w[7] == 0xff);
  CHECK(w[16] == 0xff);
  devx::set(w.data(), devx::Field{0x0d, 6}, 0);  // bits 13..18: 0xf8 of byte 1 stays, 0x1f of byte 2 stays
  CHECK(w[1] == 0xf8);
  CHECK(w[2] == 0x1f);
  CHECK(devx::get(w.data(), devx::Field{0x40, 64}) == 0x0102030405060708ull);
}

TEST_CASE("QUERY_HCA_CAP: the command, and the capabilities read where the PRM puts them", "[mlx5][devx]") {
  const std::vector<uint8_t> in = devx::query_hca_cap_in();
  REQUIRE(in.size() == 16);
  // opcode 0x100 in bytes 0..1; op_mod (bits 0x30..0x3f) = MLX5_CAP_GENERAL << 1 | HCA_CAP_OPMOD_GET_CUR = 1.
  check_only(in, {{0, 0x01}, {7, 0x01}});
  std::vector<uint8_t> out(devx::kQueryHcaCapOutBytes, 0);
  REQUIRE(out.size() == 4112);
  // cmd_hca_cap starts at bit 0x80 (byte 16): log_max_qp_sz at cap bit 0x88 -> byte 33; log_max_cq_sz 0xc8 -> byte
  // 41; log_max_ra_req_qp 0x14a (6 bits) -> low 6 bits of byte 57; log_max_ra_res_qp 0x15a -> byte 59; cqe_version
  // 0x1fc (4 bits) -> low nibble of byte 79; log_bf_reg_size 0x26b (5 bits) -> low 5 bits of byte 93.
  out[33] = 15;
  out[41] = 22;
  out[57] = 0xc4;  // the top two bits belong to other fields
  out[59] = 0x05;
  out[79] = 0xa1;  // the high nibble is the field before cqe_version
  out[93] = 0xe9;
  const devx::HcaCaps c = devx::parse_hca_caps(out.data());
  CHECK(c.log_max_qp_sz == 15);
  CHECK(c.log_max_cq_sz == 22);
  CHECK(c.log_max_ra_req_qp == 4);
  CHECK(c.log_max_ra_res_qp == 5);
  CHECK(c.cqe_version == 1);
  CHECK(c.log_bf_reg_size == 9);
}

TEST_CASE("CREATE_CQ: collapsed, overrun ignored, 64-byte CQEs, buffer and record in umems", "[mlx5][devx]") {
  devx::CqParams p;
  p.umem_id = 0x11223344;
  p.umem_offset = 0x10000;
  p.dbr_umem_id = 0x55667788;
  p.dbr_offset = 0x2040;
  p.log_cq_size = 8;
  p.uar_page = 0xabcde;
  p.eqn = 0x17;
  const std::vector<uint8_t> in = devx::create_cq_in(p);
  REQUIRE(in.size() == 272);
  // cq_context at byte 16: dbr_umem_valid is bit 6 (byte 16, 0x02); cqe_sz bits 8..10 = 0 (64 B), cc bit 11 (byte
  // 17, 0x10), oi bit 14 (byte 17, 0x02); dbr_umem_id bits 0x20.. (bytes 20..23); log_cq_size bits 0x63..0x67 (low 5
  // of byte 28), uar_page 0x68.. (bytes 29..31); c_eqn 0xb8 (byte 39); dbr_addr 0x1c0 (bytes 72..79). Then
  // cq_umem_offset at bit 0x280 (bytes 80..87), cq_umem_id 0x2c0 (88..91), cq_umem_valid 0x2e0 (byte 92's 0x80).
  check_only(in, join({{{0, 0x04}, {16, 0x02}, {17, 0x12}},
                       run(20, {0x55, 0x66, 0x77, 0x88}),
                       run(28, {0x08, 0x0a, 0xbc, 0xde}),
                       {{39, 0x17}},
                       run(72, {0, 0, 0, 0, 0, 0, 0x20, 0x40}),
                       run(80, {0, 0, 0, 0, 0, 0x01, 0, 0}),
                       run(88, {0x11, 0x22, 0x33, 0x44}),
                       {{92, 0x80}}}));
  CHECK(devx::get(in.data(), devx::at(devx::create_cq::kCqContext, devx::cqc::cc)) == 1);
  CHECK(devx::get(in.data(), devx::at(devx::create_cq::kCqContext, devx::cqc::oi)) == 1);
  CHECK(devx::get(in.data(), devx::at(devx::create_cq::kCqContext, devx::cqc::uar_page)) == 0xabcde);
}

TEST_CASE("CREATE_QP: RC, send queue and record in umems, no receive queue", "[mlx5][devx]") {
  devx::QpParams p;
  p.pdn = 0x123456;
  p.uar_page = 0xabc;
  p.cqn = 0xbeef;
  p.log_sq_size = 8;
  p.wq_umem_id = 0xdeadbeef;
  p.wq_umem_offset = 0x40000;
  p.dbr_umem_id = 0xcafef00d;
  p.dbr_offset = 0x3000;
  p.user_index = 5;
  const std::vector<uint8_t> in = devx::create_qp_in(p);
  REQUIRE(in.size() == 272);
  // qpc at bit 0xc0 (byte 24). st (RC = 0) byte 25; pm_state 3 at bits 0x13..0x14 (byte 26, 0x18); pd 0x28..
  // (bytes 29..31); log_rq_size 0 and log_sq_size 8 at bits 0x51..0x54 (byte 34, 0x40); uar_page 0x68.. (bytes
  // 37..39); user_index 0x88.. (41..43); cqn_snd 0x3e8.. (149..151); cqn_rcv 0x4e8.. (181..183); dbr_addr 0x500
  // (184..191); rq_type 3 at 0x565..0x567 (byte 196, 0x03); dbr_umem_valid 0x683 (byte 232, 0x10); dbr_umem_id
  // 0x720 (252..255). After the qpc: wq_umem_offset bit 0x800 (256..263), wq_umem_id (264..267), valid (268).
  check_only(in, join({{{0, 0x05}, {26, 0x18}},
                       run(29, {0x12, 0x34, 0x56}),
                       {{34, 0x40}},
                       run(37, {0x00, 0x0a, 0xbc}),
                       run(41, {0, 0, 5}),
                       run(149, {0x00, 0xbe, 0xef}),
                       run(181, {0x00, 0xbe, 0xef}),
                       run(184, {0, 0, 0, 0, 0, 0, 0x30, 0x00}),
                       {{196, 0x03}, {232, 0x10}},
                       run(252, {0xca, 0xfe, 0xf0, 0x0d}),
                       run(256, {0, 0, 0, 0, 0, 0x04, 0, 0}),
                       run(264, {0xde, 0xad, 0xbe, 0xef}),
                       {{268, 0x80}}}));
}

TEST_CASE("RST2INIT: remote access and 8-byte atomics, the port", "[mlx5][devx]") {
  const std::vector<uint8_t> in = devx::rst2init_qp_in(0x321, 1);
  REQUIRE(in.size() == 272);
  // opcode 0x502; qpn bits 0x48.. (bytes 9..11); qpc at byte 24: pm_state (byte 26, 0x18); atomic_mode 3 at qpc
  // bits 0x48c..0x48f (byte 169's low nibble); rre, rwe, rae at 0x490..0x492 (byte 170, 0xe0); the primary path's
  // vhca_port_num at qpc bit 0xc0 + 0x128 (byte 85).
  check_only(
      in,
      join({{{0, 0x05}, {1, 0x02}}, run(9, {0x00, 0x03, 0x21}), {{26, 0x18}, {85, 0x01}, {169, 0x03}, {170, 0xe0}}}));
}

TEST_CASE("INIT2RTR: InfiniBand by LID", "[mlx5][devx]") {
  devx::RtrParams p;
  p.qpn = 0x777;
  p.port = 2;
  p.mtu = 5;  // IBV_MTU_4096
  p.remote_qpn = 0xabcd;
  p.log_rra_max = 4;
  p.rlid = 0x0102;
  const std::vector<uint8_t> in = devx::init2rtr_qp_in(p);
  // mtu 5 at qpc bits 0x40..0x42 and log_msg_max 30 at 0x43..0x47: byte 32 = 101 11110; remote_qpn 0xa8.. (bytes
  // 45..47); rlid at path bit 0x30 (qpc 0xf0: bytes 54..55), grh 0; vhca_port_num (byte 85); log_rra_max 4 at
  // 0x488 (byte 169's top 3 bits: 0x80); min_rnr_nak 12 at 0x4a3 (byte 172's low 5 bits).
  check_only(in, join({{{0, 0x05}, {1, 0x03}},
                       run(9, {0x00, 0x07, 0x77}),
                       {{32, 0xbe}},
                       run(45, {0x00, 0xab, 0xcd}),
                       run(54, {0x01, 0x02}),
                       {{85, 0x02}, {169, 0x80}, {172, 0x0c}}}));
}

TEST_CASE("INIT2RTR: RoCE by GID and MAC", "[mlx5][devx]") {
  devx::RtrParams p;
  p.qpn = 0x10;
  p.port = 1;
  p.mtu = 3;  // IBV_MTU_1024
  p.remote_qpn = 0x20;
  p.log_rra_max = 0;
  p.roce = true;
  const uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 7};
  std::memcpy(p.rgid, gid, 16);
  const uint8_t mac[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
  std::memcpy(p.rmac, mac, 6);
  p.src_addr_index = 3;
  p.udp_sport = 0xc005;
  const std::vector<uint8_t> in = devx::init2rtr_qp_in(p);
  // The path at qpc bit 0xc0 (byte 48): src_addr_index at +0x48 (byte 57), hop_limit 255 at +0x58 (byte 59), rgid at
  // +0x80 (bytes 64..79), udp_sport at +0x110 (bytes 82..83), vhca_port_num (85), rmac_47_32 at +0x130 (86..87),
  // rmac_31_0 at +0x140 (88..91); no LID.
  check_only(in, join({{{0, 0x05}, {1, 0x03}},
                       run(9, {0, 0, 0x10}),
                       {{32, 0x7e}},
                       run(45, {0, 0, 0x20}),
                       {{57, 0x03}, {59, 0xff}},
                       run(64, std::vector<uint8_t>(gid, gid + 16)),
                       run(82, {0xc0, 0x05}),
                       {{85, 0x01}},
                       run(86, {0x02, 0x11, 0x22, 0x33, 0x44, 0x55}),
                       {{172, 0x0c}}}));
}

TEST_CASE("RTR2RTS: retries, RNR retries, ack timeout, read depth", "[mlx5][devx]") {
  devx::RtsParams p;
  p.qpn = 0x5;
  p.port = 1;
  p.log_sra_max = 3;
  const std::vector<uint8_t> in = devx::rtr2rts_qp_in(p);
  // ack_timeout 20 at path bit 0x40 (qpc 0x100: byte 56's top 5 bits, 0xa0); log_sra_max 3 at qpc 0x388 and
  // retry_count 7 at 0x38d (byte 137 = 011 00 111); rnr_retry 7 at 0x390 (byte 138's top 3 bits).
  check_only(in,
             join({{{0, 0x05}, {1, 0x04}}, run(9, {0, 0, 0x05}), {{56, 0xa0}, {85, 0x01}, {137, 0x67}, {138, 0xe0}}}));
}

// The fields the builders write only as 0 (or not at all) leave no byte the tests above can see: a wrong place for
// one of them would go unnoticed until it carried a value. Their (bit, width), offsets accumulated by hand from
// rdma-core providers/mlx5/mlx5_ifc.h (struct mlx5_ifc_qpc_bits, mlx5_ifc_ads_bits, mlx5_ifc_rst2init_qp_in_bits)
// and NVIDIA/nvshmem src/modules/transport/common/mlx5_prm.h (struct mlx5_ifc_cqc_bits).
TEST_CASE("DevX fields written as zero sit where the PRM puts them", "[mlx5][devx]") {
  auto is = [](devx::Field f, uint32_t bit, uint32_t width) { return f.bit == bit && f.width == width; };
  CHECK(is(devx::cmd::opt_param_mask, 0x80, 32));
  CHECK(is(devx::cqc::page_offset, 0x54, 6));
  CHECK(is(devx::cqc::log_page_size, 0xc3, 5));
  CHECK(is(devx::qpc::no_sq, 0x50, 1));
  CHECK(is(devx::qpc::counter_set_id, 0x60, 8));
  CHECK(is(devx::qpc::log_page_size, 0xa3, 5));
  CHECK(is(devx::qpc::log_ack_req_freq, 0x380, 4));
  CHECK(is(devx::qpc::next_send_psn, 0x3c8, 24));
  CHECK(is(devx::qpc::page_offset, 0x494, 6));
  CHECK(is(devx::qpc::next_rcv_psn, 0x4a8, 24));
  CHECK(is(devx::qpc::cs_req, 0x630, 8));
  CHECK(is(devx::qpc::cs_res, 0x638, 8));
  CHECK(is(devx::ads::pkey_index, 0x10, 16));
  CHECK(is(devx::ads::grh, 0x28, 1));
  CHECK(is(devx::ads::mlid, 0x29, 7));
  CHECK(is(devx::ads::tclass, 0x64, 8));
  CHECK(is(devx::ads::dscp, 0x10a, 6));
  CHECK(is(devx::ads::eth_prio, 0x121, 3));
  CHECK(is(devx::ads::sl, 0x124, 4));
  // The containers: the QP context after the modify/create header, the address path 0xc0 into it, the CQ context.
  CHECK(devx::qpc::kAt == 0xc0);
  CHECK(devx::qpc::kPrimaryPath == 0xc0);
  CHECK(devx::create_cq::kCqContext == 0x80);
  CHECK(devx::hca_cap::kCapability == 0x80);
}

TEST_CASE("a command's status and syndrome in words", "[mlx5][devx]") {
  std::vector<uint8_t> out(devx::kOutBytes, 0);
  out[0] = 0x0a;
  out[4] = 0x12;
  out[5] = 0x34;
  out[6] = 0x56;
  out[7] = 0x78;
  CHECK(devx::out_text(out.data()) == "status 0x0a syndrome 0x12345678");
}

TEST_CASE("the device: GPUSHMEM_HCA, else the mlx5 device nearest the GPU, else the first", "[mlx5][select]") {
  const std::vector<nic::RdmaDevice> devices = {{"mlx5_0", true}, {"mlx5_1", true}, {"rxe0", false}};
  nic::DeviceChoice c;
  std::string error;
  SECTION("GPUSHMEM_HCA naming no device: the error names it and lists what there is") {
    CHECK_FALSE(nic::choose_device(devices, "mlx5_7", "", "/nonexistent", &c, &error));
    CHECK(error.find("GPUSHMEM_HCA=mlx5_7") != std::string::npos);
    CHECK(error.find("mlx5_0, mlx5_1, rxe0 (not mlx5)") != std::string::npos);
    CHECK_FALSE(nic::choose_device({}, "mlx5_7", "", "/nonexistent", &c, &error));
    CHECK(error.find("GPUSHMEM_HCA=mlx5_7 names no RDMA device of this host (found: none)") != std::string::npos);
  }
  SECTION("GPUSHMEM_HCA naming a device libmlx5 does not drive") {
    CHECK_FALSE(nic::choose_device(devices, "rxe0", "", "/nonexistent", &c, &error));
    CHECK(error.find("GPUSHMEM_HCA=rxe0 is not an mlx5 device") != std::string::npos);
  }
  SECTION("GPUSHMEM_HCA naming one") {
    REQUIRE(nic::choose_device(devices, "mlx5_1", "", "/nonexistent", &c, &error));
    CHECK(c.name == "mlx5_1");
    CHECK(c.why == "GPUSHMEM_HCA");
  }
  SECTION("no mlx5 device, no device") {
    CHECK_FALSE(nic::choose_device({{"rxe0", false}}, "", "", "/nonexistent", &c, &error));
    CHECK(error.find("no mlx5 device among the RDMA devices (rxe0 (not mlx5))") != std::string::npos);
    CHECK_FALSE(nic::choose_device({}, "", "", "/nonexistent", &c, &error));
    CHECK(error.find("no RDMA device on this host") != std::string::npos);
  }
  SECTION("nearest by PCI path; the first without a GPU location") {
    // The GPU behind a switch on root complex 0; mlx5_0 on another root complex, mlx5_1 behind the GPU's switch.
    TempTree t;
    const std::string sw = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
    t.dir(sw + "/0000:02:00.0");
    t.dir(sw + "/0000:02:08.0/0000:05:00.0");
    t.dir("sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0");
    t.link("sys/bus/pci/devices/0000:02:00.0", t.root + "/" + sw + "/0000:02:00.0");
    t.link("sys/class/infiniband/mlx5_0/device", t.root + "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0");
    t.link("sys/class/infiniband/mlx5_1/device", t.root + "/" + sw + "/0000:02:08.0/0000:05:00.0");
    REQUIRE(nic::choose_device(devices, "", "00000000:02:00.0", t.root + "/sys", &c, &error));
    CHECK(c.name == "mlx5_1");
    CHECK(c.why.find("nearest the GPU (behind the same PCIe bridge") != std::string::npos);
    REQUIRE(nic::choose_device(devices, "", "", t.root + "/sys", &c, &error));
    CHECK(c.name == "mlx5_0");
    CHECK(c.why.find("the first mlx5 device") != std::string::npos);
  }
  CHECK(nic::pci_closeness("/pci0000:00/0000:00:01.0/0000:01:00.0", "/pci0000:00/0000:00:01.0/0000:01:00.1") == 2);
  CHECK(nic::pci_closeness("/pci0000:00/0000:00:01.0", "/pci0000:00/0000:00:02.0") == 1);
  CHECK(nic::pci_closeness("/pci0000:00/0000:00:01.0", "/pci0000:80/0000:80:01.0") == 0);
}

TEST_CASE("the RoCE GID: GPUSHMEM_IBGDA_GID_INDEX, else the first RoCE v2 IPv4 one", "[mlx5][select]") {
  TempTree t;
  const std::string port = "class/infiniband/mlx5_0/ports/1";
  t.file(port + "/gids/0", "fe80:0000:0000:0000:0202:c9ff:fe00:0001\n");
  t.file(port + "/gid_attrs/types/0", "IB/RoCE v1\n");
  t.file(port + "/gids/1", "fe80:0000:0000:0000:0202:c9ff:fe00:0001\n");
  t.file(port + "/gid_attrs/types/1", "RoCE v2\n");
  t.file(port + "/gids/2", "0000:0000:0000:0000:0000:ffff:0a00:0007\n");
  t.file(port + "/gid_attrs/types/2", "IB/RoCE v1\n");
  t.file(port + "/gids/3", "0000:0000:0000:0000:0000:ffff:0a00:0007\n");
  t.file(port + "/gid_attrs/types/3", "RoCE v2\n");
  t.file(port + "/gids/4", "0000:0000:0000:0000:0000:0000:0000:0000\n");
  const std::vector<nic::GidEntry> table = nic::read_gid_table(t.root, "mlx5_0", 1, 8);
  REQUIRE(table.size() == 4);  // the zero GID and the missing ones are left out
  CHECK(table[3].index == 3);
  CHECK(table[3].type == "RoCE v2");
  CHECK(table[3].gid[10] == 0xff);
  CHECK(table[3].gid[12] == 10);
  CHECK(table[3].gid[15] == 7);
  CHECK(nic::gid_is_ipv4(table[3].gid));
  CHECK_FALSE(nic::gid_is_ipv4(table[1].gid));
  std::string error;
  CHECK(nic::choose_gid(table, -1, &error) == 3);
  CHECK(nic::choose_gid(table, 1, &error) == 1);
  CHECK(nic::choose_gid(table, 7, &error) == -1);
  CHECK(error.find("GPUSHMEM_IBGDA_GID_INDEX=7 names no GID") != std::string::npos);
  CHECK(nic::choose_gid({table[1]}, -1, &error) == 1);  // a RoCE v2 GID without IPv4
  CHECK(nic::choose_gid({table[0], table[2]}, -1, &error) == -1);
  CHECK(error.find("no RoCE v2 GID") != std::string::npos);
}

TEST_CASE("the queues' memory plan: page-aligned queues, one record slot per QP", "[mlx5]") {
  const nic::ControlPlan p = nic::plan_control(3, 256);
  CHECK(p.sq_bytes == 16384);
  CHECK(p.cq_bytes == 16384);
  CHECK(p.sq(2) == 32768);
  CHECK(p.cq(0) == 49152);
  CHECK(p.cq(2) == 81920);
  CHECK(p.dbr_at == 98304);
  CHECK(p.qp_dbr(1) == 98368);
  CHECK(p.cq_dbr(1) == 98400);
  CHECK(p.total == 131072);
  const nic::ControlPlan big = nic::plan_control(5, 32768);
  for (uint32_t k = 0; k < 5; ++k) {
    CHECK(big.sq(k) % 4096 == 0);
    CHECK(big.cq(k) % 4096 == 0);
    CHECK(big.sq(k) + big.sq_bytes <= big.cq(0));
    CHECK(big.cq(k) + big.cq_bytes <= big.dbr_at);
  }
  CHECK(big.cq_dbr(4) + 8 <= big.total);
  CHECK(big.total % 65536 == 0);
}

TEST_CASE("connection cards: round trip, refusals, the three steps' agreement", "[mlx5][exchange]") {
  nic::PeerCard a;
  a.ready = true;
  a.n_pes = 3;
  a.qps_per_peer = 4;
  a.port = 1;
  a.link_layer = 2;
  a.mtu = 5;
  a.log_rra_max = 4;
  a.lid = 0x77;
  a.roce_v2 = true;
  a.gid[15] = 9;
  a.rkey = 0xfeedbeef;
  a.heap_base = 0x7f0000000000ull;
  a.heap_bytes = 1ull << 30;
  const std::vector<uint8_t> packed = nic::pack_card(a);
  REQUIRE(packed.size() == nic::card_bytes());
  nic::PeerCard b;
  std::string why;
  REQUIRE(nic::unpack_card(packed.data(), &b, &why));
  CHECK(b.ready);
  CHECK(b.n_pes == 3);
  CHECK(b.qps_per_peer == 4);
  CHECK(b.link_layer == 2);
  CHECK(b.mtu == 5);
  CHECK(b.log_rra_max == 4);
  CHECK(b.lid == 0x77);
  CHECK(b.roce_v2);
  CHECK(b.gid[15] == 9);
  CHECK(b.rkey == 0xfeedbeef);
  CHECK(b.heap_base == 0x7f0000000000ull);
  CHECK(b.heap_bytes == (1ull << 30));
  std::vector<uint8_t> bad = packed;
  bad[0] ^= 1;
  CHECK_FALSE(nic::unpack_card(bad.data(), &b, &why));
  CHECK(why.find("another format") != std::string::npos);

  // Step 1 from every PE's view: PE 1 is not ready; PE 2 has another queue pair count.
  nic::PeerCard not_ready = a;
  not_ready.ready = false;
  not_ready.why = "mlx5dv_open_device failed";
  CHECK_FALSE(nic::cards_agree({a, not_ready, a}, 0, &why));
  CHECK(why == "PE 1 could not prepare IBGDA: mlx5dv_open_device failed");
  CHECK_FALSE(nic::cards_agree({a, not_ready, a}, 1, &why));
  CHECK(why == "mlx5dv_open_device failed");
  nic::PeerCard other_q = a;
  other_q.qps_per_peer = 2;
  CHECK_FALSE(nic::cards_agree({a, a, other_q}, 0, &why));
  CHECK(why.find("GPUSHMEM_IBGDA_QPS_PER_PEER") != std::string::npos);
  CHECK(nic::cards_agree({a, a, a}, 2, &why));

  FakeJob job;
  job.n_pes = 3;
  job.others = {nic::pack_card(not_ready)};
  std::vector<nic::PeerCard> cards;
  CHECK_FALSE(nic::exchange_cards(job.allgather(), a, 0, 3, &cards, &why));
  CHECK(why == "PE 1 could not prepare IBGDA: mlx5dv_open_device failed");
  CHECK(job.steps == 1);

  // Step 2: PE 1's QP to PE 0 for q = 3 pairs with PE 0's QP q = 3 to PE 1.
  std::vector<uint32_t> all(3 * 3 * 4, 0);
  all[1 * 12 + 0 * 4 + 3] = 0x4242;
  CHECK(nic::partner_qpn(all, 3, 4, 1, 0, 3) == 0x4242);

  // Step 3: one PE that could not connect makes every PE refuse, naming it.
  FakeJob verdicts;
  verdicts.n_pes = 2;
  std::vector<uint8_t> failed_verdict(4 + nic::kWhyBytes, 0);
  const std::string reason = "mlx5dv_devx_obj_modify(INIT2RTR_QP) failed";
  std::memcpy(failed_verdict.data() + 4, reason.data(), reason.size());
  verdicts.others = {failed_verdict};
  CHECK_FALSE(nic::agree(verdicts.allgather(), 2, true, "", &why));
  CHECK(why == "PE 1 could not connect its IBGDA queue pairs: " + reason);
  FakeJob fine;
  CHECK(nic::agree(fine.allgather(), 2, true, "", &why));
  CHECK_FALSE(nic::agree(fine.allgather(), 2, false, "my reason", &why));
  CHECK(why == "my reason");
}

TEST_CASE("on this host the provisioner refuses, says why, and leaves nothing behind", "[mlx5][provisioner]") {
  const std::string expected = expected_refusal();
  NoGpu gpu;
  FakeJob job;
  nic::Mlx5Layout l = host_layout();
  std::string why;
  {
    nic::Mlx5Provisioner p(gpu.ops());
    CHECK(p.create(l, job.allgather(), &why) != Status::ok);
    CHECK(p.device_state() == nullptr);
  }
  INFO("why: " << why);
  CHECK_FALSE(why.empty());
  if (!expected.empty()) CHECK(why.find(expected) != std::string::npos);
  CHECK(job.steps == 1);  // the first exchange only: every PE saw this PE's card and stops with it
  CHECK(gpu.live == 0);
}

TEST_CASE("GPUSHMEM_HCA naming a missing device: the provisioner names it", "[mlx5][provisioner]") {
  NoGpu gpu;
  FakeJob job;
  nic::Mlx5Layout l = host_layout();
  l.hca = "mlx5_gpushmem_test_missing";
  std::string why;
  nic::Mlx5Provisioner p(gpu.ops());
  CHECK(p.create(l, job.allgather(), &why) != Status::ok);
  INFO("why: " << why);
  const std::string expected = expected_refusal();
  if (expected.empty() || expected == "no RDMA device on this host")  // rdma-core is there: the device list is read
    CHECK(why.find("GPUSHMEM_HCA=mlx5_gpushmem_test_missing names no RDMA device") != std::string::npos);
  else
    CHECK(why.find(expected) != std::string::npos);  // stopped before the device list, saying so
}

TEST_CASE("the provisioner's refusals before any device: the layout, another PE's verdict", "[mlx5][provisioner]") {
  NoGpu gpu;
  std::string why;
  {
    FakeJob job;
    nic::Mlx5Layout l = host_layout();
    l.wqebbs = 32;
    nic::Mlx5Provisioner p(gpu.ops());
    CHECK(p.create(l, job.allgather(), &why) == Status::not_supported);
    CHECK(why.find("GPUSHMEM_IBGDA_SQ_BLOCKS must be a power of two from 64 to 32768") != std::string::npos);
    CHECK(job.steps == 1);
  }
  {
    FakeJob job;
    nic::Mlx5Layout l = host_layout();
    l.local_ok = false;
    l.local_why = "no IBGDA: RDMA devices: none";
    nic::Mlx5Provisioner p(gpu.ops());
    CHECK(p.create(l, job.allgather(), &why) == Status::not_supported);
    CHECK(why == "no IBGDA: RDMA devices: none");
    CHECK(job.steps == 1);
  }
  CHECK(gpu.calls == 0);  // nothing was asked of the GPU
}

TEST_CASE("a layout whose PE is not one of the job's: refused before any exchange", "[mlx5][provisioner]") {
  // The exchange is sized by n_pes and reads this PE's card at my_pe: with either out of range no allgather can be
  // taken (the bootstrap would write n_pes blocks, cards_agree would read past the cards), so create() refuses
  // before step 1.
  NoGpu gpu;
  for (const auto &[me, n] : std::vector<std::pair<int, int>>{{2, 2}, {-1, 2}, {0, 0}}) {
    FakeJob job;
    job.n_pes = n < 1 ? 1 : n;
    nic::Mlx5Layout l = host_layout();
    l.my_pe = me;
    l.n_pes = n;
    std::string why;
    nic::Mlx5Provisioner p(gpu.ops());
    INFO("my_pe " << me << ", n_pes " << n);
    CHECK(p.create(l, job.allgather(), &why) == Status::invalid_argument);
    CHECK(why.find("must be one of the job's") != std::string::npos);
    CHECK(job.steps == 0);
    CHECK(p.device_state() == nullptr);
  }
  CHECK(gpu.calls == 0);
}

#ifdef GPUSHMEM_MLX5_HAVE_RDMA_CORE
TEST_CASE("rdma-core's loader: a refusal leaves no library loaded", "[mlx5][verbs]") {
  // librdmacm (rdma-core, never loaded by gpushmem) stands in for libibverbs: it lacks the mlx5dv functions, and
  // dlsym through its handle finds the ibv_ ones in its dependency. Either refusal must close both handles.
  const char *stand_in = "librdmacm.so.1";
  auto loaded = [stand_in] {
    void *h = dlopen(stand_in, RTLD_NOW | RTLD_NOLOAD);
    if (h != nullptr) (void)dlclose(h);
    return h != nullptr;
  };
  nic::VerbsApi api;
  std::string why;
  void *probe = dlopen(stand_in, RTLD_NOW | RTLD_LOCAL);
  if (probe == nullptr) {
    CHECK_FALSE(nic::load_verbs_api(stand_in, stand_in, &api, &why));
    CHECK(why.find("dlopen(librdmacm.so.1) failed") != std::string::npos);
    return;  // no stand-in on this host
  }
  (void)dlclose(probe);
  if (loaded()) {
    WARN(stand_in << " is loaded in this process already: whether a refusal unloads it cannot be seen");
    return;
  }
  // The second library missing.
  CHECK_FALSE(nic::load_verbs_api(stand_in, "libgpushmem_test_missing_mlx5.so.1", &api, &why));
  CHECK(why.find("dlopen(libgpushmem_test_missing_mlx5.so.1) failed") != std::string::npos);
  CHECK(api.get_device_list == nullptr);
  CHECK_FALSE(loaded());
  // Both there, a function missing.
  CHECK_FALSE(nic::load_verbs_api(stand_in, stand_in, &api, &why));
  CHECK(why.find("has no mlx5dv_is_supported") != std::string::npos);
  CHECK(api.get_device_list == nullptr);
  CHECK(api.devx_general_cmd == nullptr);
  CHECK_FALSE(loaded());
}
#endif
