// The team slot table and the predefined teams. A slot is given to a new team by agreement of the parent's
// members (team/split.cpp), so a team has the same slot, and thus the same synchronisation area offset, on
// every member.
#include "team/team.hpp"

#include <cstring>
#include <mutex>

#include "api/api_common.hpp"
#include "coll/engine.hpp"
#include "core/log.hpp"
#include "gpu/gpu.hpp"

namespace gpushmem::team {
namespace {

struct Table {
  Team slots[GPUSHMEM_MAX_TEAMS];
  AreaLayout layout;
  uint64_t tail_offset = 0;  // where slot 0's area starts in every host heap
  std::mutex mutex;          // slot claims and releases from several threads (different parents)
};

Table &table() {
  static Table t;
  return t;
}

// The node's PEs form the shared team when they are an arithmetic progression of world PEs (always true with
// one node); otherwise each PE's shared team is itself, which the specification allows.
void shared_triplet(int *start, int *stride, int *size) {
  const Runtime &r = rt();
  const auto &local = r.topology.local_pes;
  *start = r.my_pe;
  *stride = 1;
  *size = 1;
  if (local.size() < 2) return;
  const int step = local[1] - local[0];
  for (size_t i = 1; i < local.size(); ++i)
    if (local[i] - local[i - 1] != step) {
      GPUSHMEM_LOG_INFO(log::Subsys::init,
                        "shmem_init: this node's PEs are not evenly spaced: SHMEM_TEAM_SHARED holds PE %d alone",
                        r.my_pe);
      return;
    }
  *start = local[0];
  *stride = step;
  *size = static_cast<int>(local.size());
}

}  // namespace

const char *choose_layout(int n_pes, bool spans_nodes) {
  uint64_t bytes = kScratchBytes;
  if (spans_nodes) {
    bytes = env::get().GPUSHMEM_COLL_NET_SCRATCH;
    if (bytes < kScratchBytes || bytes > kNetScratchMaxBytes)
      return "GPUSHMEM_COLL_NET_SCRATCH must lie between 64K and 64M";
    bytes = (bytes + 4095) & ~uint64_t(4095);
  }
  table().layout = AreaLayout::for_pes(n_pes, bytes, spans_nodes);
  return nullptr;
}

uint64_t tail_bytes() {
  return GPUSHMEM_MAX_TEAMS * table().layout.bytes;
}

const AreaLayout &layout() {
  return table().layout;
}

void init() {
  Runtime &r = rt();
  Table &t = table();
  t.tail_offset = r.heap.size();
  for (int i = 0; i < GPUSHMEM_MAX_TEAMS; ++i) {
    t.slots[i] = Team{};
    t.slots[i].s.slot = i;
    t.slots[i].area = r.heap.base() + t.tail_offset + uint64_t(i) * t.layout.bytes;
  }
  // The heap is fresh (a new memfd reads as zeros), so the predefined teams' areas need no clearing.
  claim(GPUSHMEM_TEAM_SLOT_WORLD, 0, 1, r.n_pes, nullptr, 0);
  int start, stride, size;
  shared_triplet(&start, &stride, &size);
  claim(GPUSHMEM_TEAM_SLOT_SHARED, start, stride, size, nullptr, 0);
}

void check_pending() {
  for (Team &team : table().slots)
    if (team.live && team.root_check_epoch != 0) coll::Call::check_root(team);
}

void finalize() {
  Table &t = table();
  for (Team &team : t.slots) team.live = false;
}

uint64_t free_slots() {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  uint64_t mask = 0;
  for (int i = 0; i < GPUSHMEM_MAX_TEAMS; ++i)
    if (!t.slots[i].live) mask |= uint64_t(1) << i;
  return mask;
}

Team &claim(int slot, int start, int stride, int size, const shmem_team_config_t *config, long mask) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  Team &team = t.slots[slot];
  const uint32_t generation = team.s.generation + 1;
  char *area = team.area;
  team = Team{};
  team.area = area;
  team.s.start = start;
  team.s.stride = size == 1 ? 1 : stride;
  team.s.size = size;
  team.s.slot = slot;
  team.s.generation = generation;
  team.s.sync_offset = t.tail_offset + uint64_t(slot) * t.layout.bytes;
  team.s.my_index = gpushmem_team_index_of(&team.s, rt().my_pe);
  if (config != nullptr && (mask & SHMEM_TEAM_NUM_CONTEXTS)) team.config.num_contexts = config->num_contexts;
  team.config_mask = mask;
  team.live = true;
  // Only the flags: the staging buffers are always written before they are read.
  std::memset(area, 0, t.layout.scratch);
  // Device code: the table entry and this PE's device sync words of the slot (GPU mode; the caller's parent
  // barrier follows, so no member's device sync reaches the words before they are zeroed).
  if (gpu::publish_team("shmem_team_split", team.s) != Status::ok)
    api::fail("shmem_team_split", "cannot publish team slot %d to the GPU (the CUDA error is above)", slot);
  return team;
}

void release(Team &team) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  team.live = false;
  if (gpu::retire_team("shmem_team_destroy", team.s.slot) != Status::ok)
    api::fail("shmem_team_destroy", "cannot free team slot %d on the GPU (the CUDA error is above)", team.s.slot);
}

Status publish_all(const char *call) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (const Team &team : t.slots)
    if (team.live) GPUSHMEM_CHECK(gpu::publish_team(call, team.s));
  return Status::ok;
}

shmem_team_t handle(const Team &t) {
  if (t.s.slot == GPUSHMEM_TEAM_SLOT_WORLD) return SHMEM_TEAM_WORLD;
  if (t.s.slot == GPUSHMEM_TEAM_SLOT_SHARED) return SHMEM_TEAM_SHARED;
  return reinterpret_cast<shmem_team_t>(GPUSHMEM_TEAM_HANDLE_BITS(t.s.slot, t.s.generation));
}

Team *find(shmem_team_t team) {
  const uintptr_t bits = reinterpret_cast<uintptr_t>(team);
  const int slot = GPUSHMEM_TEAM_HANDLE_SLOT(bits);
  if (slot < 0 || slot >= GPUSHMEM_MAX_TEAMS) return nullptr;
  Team &t = table().slots[slot];
  // The predefined handles carry generation 0; their slots are claimed once per job, with generation 1.
  const uint32_t generation = GPUSHMEM_TEAM_HANDLE_GENERATION(bits);
  const bool predefined = slot <= GPUSHMEM_TEAM_SLOT_SHARED && generation == 0;
  if (!t.live || (!predefined && generation != t.s.generation)) return nullptr;
  return &t;
}

Team &get(const char *call, const char *arg, shmem_team_t team) {
  Team *t = find(team);
  if (t != nullptr) [[likely]]
    return *t;
  const uintptr_t bits = reinterpret_cast<uintptr_t>(team);
  if (team == SHMEM_TEAM_INVALID) api::fail(call, "%s is SHMEM_TEAM_INVALID", arg);
  const int slot = GPUSHMEM_TEAM_HANDLE_SLOT(bits);
  if (slot < 0 || slot >= GPUSHMEM_MAX_TEAMS)
    api::fail(call, "%s=%p is not a team handle", arg, static_cast<void *>(team));
  api::fail(call, "%s=%p is a team that was destroyed (shmem_team_destroy) or that this PE is not a member of", arg,
            static_cast<void *>(team));
}

}  // namespace gpushmem::team
