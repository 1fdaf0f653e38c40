// Team creation (collective over the parent): the parent's members exchange what they want to create and
// which slots they have free (one push exchange on the parent's area), every member derives the same
// decision from the same data, members claim the agreed slot, and a parent barrier makes sure every member
// has cleared its area for the slot before anyone can signal into it.
#include "team/split.hpp"

#include <cstring>
#include <vector>

#include "coll/engine.hpp"

namespace gpushmem::team {
namespace {

// What each parent member contributes (push-exchanged; identical arguments are checked, not trusted).
struct Offer {
  uint64_t free_slots;
  int64_t args[4];
  int64_t ok;
};

// Pushes `mine` to every member of the parent and gathers everyone's (team order).
void exchange(const char *call, Team &parent, const Offer &mine, std::vector<Offer> *all) {
  coll::Call c(parent, call);
  all->assign(size_t(c.n), Offer{});
  (*all)[size_t(c.me)] = mine;
  if (c.n == 1) return;
  c.hdr = coll::Header{0, sizeof(Offer), -1, 0x7ea3};
  if (uint64_t(c.n) * sizeof(Offer) > kScratchBytes)
    api::fail(call, "teams of more than %llu PEs cannot be split yet",
              static_cast<unsigned long long>(kScratchBytes / sizeof(Offer)));
  const coll::Push p = coll::begin_push(c);
  char *stage = c.scratch(p.buf);
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    coll::put(stage + size_t(c.me) * sizeof(Offer), &mine, sizeof(Offer), parent.world_pe(j));
    c.signal(p.stage, j);
  }
  for (int i = 1; i < c.n; ++i) {
    const int j = (c.me + i) % c.n;
    c.wait(p.stage, j);
    std::memcpy(&(*all)[size_t(j)], stage + size_t(j) * sizeof(Offer), sizeof(Offer));
  }
}

// Lowest `count` slots free on every parent member, or false.
bool agree_slots(const std::vector<Offer> &all, int count, int *slots) {
  uint64_t common = ~uint64_t(0);
  for (const Offer &o : all) common &= o.free_slots;
  for (int k = 0; k < count; ++k) {
    if (common == 0) return false;
    slots[k] = __builtin_ctzll(common);
    common &= common - 1;
  }
  return true;
}

void barrier(const char *call, Team &parent) {
  coll::Call c(parent, call);
  coll::barrier(c);
}

}  // namespace

int split_strided(const char *call, Team &parent, int start, int stride, int size, const shmem_team_config_t *config,
                  long mask, shmem_team_t *new_team) {
  *new_team = SHMEM_TEAM_INVALID;
  const int n = parent.n();
  // The triplet must name members of the parent: size >= 1, stride 0 only for one member, all inside.
  bool ok = size >= 1 && start >= 0 && start < n && (stride != 0 || size == 1);
  if (ok) {
    const int64_t last = int64_t(start) + int64_t(stride) * int64_t(size - 1);
    ok = last >= 0 && last < n;
  }
  if (!ok)
    GPUSHMEM_LOG_ERROR(log::Subsys::sync,
                       "%s: start=%d, stride=%d, size=%d do not name members of the parent team (%d PEs: 0..%d); "
                       "every PE gets SHMEM_TEAM_INVALID",
                       call, start, stride, size, n, n - 1);
  Offer mine{free_slots(), {start, stride, size, 0}, ok ? 1 : 0};
  std::vector<Offer> all;
  exchange(call, parent, mine, &all);
  for (size_t j = 0; j < all.size(); ++j) {
    if (std::memcmp(all[j].args, mine.args, sizeof mine.args) != 0) {
      GPUSHMEM_LOG_ERROR(log::Subsys::sync,
                         "%s: the arguments differ between PEs: start=%d, stride=%d, size=%d here (PE %d), start=%lld, "
                         "stride=%lld, size=%lld on PE %d",
                         call, start, stride, size, rt().my_pe, static_cast<long long>(all[j].args[0]),
                         static_cast<long long>(all[j].args[1]), static_cast<long long>(all[j].args[2]),
                         parent.world_pe(int(j)));
      return 1;
    }
    if (all[j].ok == 0) return 1;
  }
  int slot = -1;
  if (!agree_slots(all, 1, &slot)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::sync,
                       "%s: no team slot is free on every PE of the parent team: at most %d teams (SHMEM_TEAM_WORLD "
                       "and SHMEM_TEAM_SHARED included) may exist at once; destroy teams that are no longer used",
                       call, GPUSHMEM_MAX_TEAMS);
    return 1;
  }
  gpushmem_team_state_t triplet{};
  triplet.start = parent.world_pe(start);
  triplet.stride = parent.s.stride * stride;
  triplet.size = size;
  if (gpushmem_team_index_of(&triplet, rt().my_pe) >= 0) {
    Team &t = claim(slot, triplet.start, triplet.stride, size, config, mask);
    *new_team = handle(t);
  }
  barrier(call, parent);
  return 0;
}

int split_2d(const char *call, Team &parent, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
             shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
             shmem_team_t *yaxis_team) {
  *xaxis_team = SHMEM_TEAM_INVALID;
  *yaxis_team = SHMEM_TEAM_INVALID;
  const int n = parent.n();
  const bool ok = xrange > 0;
  if (!ok)
    GPUSHMEM_LOG_ERROR(log::Subsys::sync, "%s: xrange=%d must be at least 1; every PE gets SHMEM_TEAM_INVALID", call,
                       xrange);
  const int x_range = xrange > n ? n : xrange;
  Offer mine{free_slots(), {xrange, 0, 0, 0}, ok ? 1 : 0};
  std::vector<Offer> all;
  exchange(call, parent, mine, &all);
  for (size_t j = 0; j < all.size(); ++j) {
    if (all[j].args[0] != xrange) {
      GPUSHMEM_LOG_ERROR(log::Subsys::sync, "%s: xrange differs between PEs: %d here (PE %d), %lld on PE %d", call,
                         xrange, rt().my_pe, static_cast<long long>(all[j].args[0]), parent.world_pe(int(j)));
      return 1;
    }
    if (all[j].ok == 0) return 1;
  }
  // Rows share one slot and columns another: a PE is in exactly one of each.
  int slots[2];
  if (!agree_slots(all, 2, slots)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::sync,
                       "%s: two team slots must be free on every PE of the parent team: at most %d teams "
                       "(SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED included) may exist at once; destroy teams that are "
                       "no longer used",
                       call, GPUSHMEM_MAX_TEAMS);
    return 1;
  }
  const int me = parent.me();
  const int x = me % x_range, y = me / x_range;
  const int row_start = y * x_range;
  const int row_size = n - row_start < x_range ? n - row_start : x_range;
  const int col_size = (n - x + x_range - 1) / x_range;
  Team &row = claim(slots[0], parent.world_pe(row_start), parent.s.stride, row_size, xaxis_config, xaxis_mask);
  Team &col = claim(slots[1], parent.world_pe(x), parent.s.stride * x_range, col_size, yaxis_config, yaxis_mask);
  *xaxis_team = handle(row);
  *yaxis_team = handle(col);
  barrier(call, parent);
  return 0;
}

int destroy(const char *call, Team &t) {
  barrier(call, t);  // nobody signals into a member's area once the slot is free
  release(t);
  return 0;
}

}  // namespace gpushmem::team
