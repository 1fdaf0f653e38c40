// Teams: the runtime's table of team slots, handle checks, and the predefined teams.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/status.hpp"
#include "gpushmem/team_state.h"
#include "shmem.h"
#include "team/sync_area.hpp"

namespace gpushmem::team {

constexpr std::array<int, kBcastSlotsMax> no_roots() {
  std::array<int, kBcastSlotsMax> roots{};
  for (int &r : roots) r = -1;
  return roots;
}

// One team this PE belongs to (or a free slot). The plain part (`s`) is what device code will get.
struct Team {
  gpushmem_team_state_t s{};
  bool live = false;
  shmem_team_config_t config{};  // current configuration (num_contexts)
  long config_mask = 0;
  uint64_t epoch = 0;      // collective calls started on this team: the same count on every member
  uint64_t push_seq = 0;   // of which used the staging buffers (selects the buffer: push_seq % 2)
  uint64_t bcast_seq = 0;  // of which were pushed broadcasts (selects the slot: bcast_seq % layout().bcast_slots)
  // Per broadcast slot: the root (team index) of the last pushed broadcast that used it (-1: none yet).
  std::array<int, kBcastSlotsMax> bcast_root = no_roots();
  // With error checks on: the last pushed broadcast this PE was the root of (epoch, slot stage, root, call),
  // checked at the team's next collective and at shmem_finalize: a member that also pushed for that epoch
  // was given another root (the root does not wait, so it cannot see this during the call).
  uint64_t root_check_epoch = 0;
  int root_check_stage = 0;
  int root_check_root = -1;
  const char *root_check_call = nullptr;
  char *area = nullptr;    // this PE's synchronisation area for the slot
  int spans_network = -1;  // whether some member is reached only through the network (-1: not looked yet)
  // In a team that spans nodes: per member, the lowest member on its node (empty: not looked yet; all -1: every
  // member alone on its node). coll/engine.hpp node_leaders.
  std::vector<int> leaders;

  int world_pe(int index) const { return gpushmem_team_world_pe(&s, index); }
  int index_of(int pe) const { return gpushmem_team_index_of(&s, pe); }
  int n() const { return s.size; }
  int me() const { return s.my_index; }
};

// Sets up the slot table, SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (after the heap and its peers are mapped).
void init();
// Forgets every team (shmem_finalize).
void finalize();
// Runs the pending root checks of every team (shmem_finalize, after its barrier).
void check_pending();

// Sets the area layout for a job of n_pes PEs (before tail_bytes and init): staging buffers of kScratchBytes
// on one node, GPUSHMEM_COLL_NET_SCRATCH when the job spans nodes (or forces its node's traffic onto the
// network). Every PE passes the same answer: the layout must be symmetric. Returns what is wrong with the
// variable, or nullptr.
const char *choose_layout(int n_pes, bool spans_nodes);
// Bytes the heap must reserve after its user part for the team areas (choose_layout's layout).
uint64_t tail_bytes();
// The area layout (the same on every PE).
const AreaLayout &layout();

// The team behind `team`. A handle that is not a live team (destroyed, corrupted, SHMEM_TEAM_INVALID) ends
// the job with a message naming `call` and `arg`.
Team &get(const char *call, const char *arg, shmem_team_t team);
// As get, but returns nullptr for SHMEM_TEAM_INVALID and for handles that are no longer live (the routines
// whose specification defines a result for an invalid team).
Team *find(shmem_team_t team);

// The handle of the team in `slot`.
shmem_team_t handle(const Team &t);

// Slot management for split (team/split.cpp): the slots this PE can give to a new team (bit i: slot i free).
uint64_t free_slots();
// Makes `slot` a team of this PE: fills the table entry and zeroes this PE's area for the slot.
Team &claim(int slot, int start, int stride, int size, const shmem_team_config_t *config, long mask);
// Releases a slot (shmem_team_destroy).
void release(Team &t);
// GPU mode: writes every live team into the device team table (shmem_init, once the GPU heap exists; later
// claims and releases keep it current themselves). ok at once in host mode.
Status publish_all(const char *call);

}  // namespace gpushmem::team
