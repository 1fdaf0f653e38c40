// shmem_ctx_create / shmem_team_create_ctx / shmem_ctx_destroy / shmem_ctx_get_team / shmem_ctx_fence /
// shmem_ctx_quiet. The table of contexts is in
// ctx/ctx_table.*; the ctx forms of RMA, AMOs and signals are in ctx_rma.cpp, ctx_amo.cpp, ctx_signal.cpp.
//
// What a context changes today: every host operation completes before it returns (host-heap puts are stores
// that the next quiet's fence publishes, GPU-heap transfers are synchronous copies), so a context's quiet is
// that fence and waits for nothing issued elsewhere (other threads' operations on other contexts, the
// runtime's CUDA stream). The options are promises the host runtime does not need: every path is thread safe.
#include "ctx/ctx_table.hpp"
#include "shmem.h"
#include "sync/quiet.hpp"
#include "team/team.hpp"

using namespace gpushmem;

namespace {

constexpr long kKnownOptions = SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE;

void check_create_args(const char *call, long options, shmem_ctx_t *ctx) {
  if (ctx == nullptr) api::fail(call, "ctx is NULL: pass the address of the shmem_ctx_t that receives the context");
  if ((options & ~kKnownOptions) != 0)
    api::fail(call,
              "options=%#lx has bits other than SHMEM_CTX_PRIVATE (%#lx), SHMEM_CTX_SERIALIZED (%#lx) and "
              "SHMEM_CTX_NOSTORE (%#lx)",
              options, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE);
}

}  // namespace

GPUSHMEM_EXPORT int shmem_ctx_create(long options, shmem_ctx_t *ctx) {
  constexpr const char *call = "shmem_ctx_create";
  api::require_running(call);
  check_create_args(call, options, ctx);
  return ctx::create(call, options, ctx::Team{nullptr, 0, 1, rt().n_pes}, ctx);
}

// A context of `team`: its operations take PE numbers of that team (translated through the team's triplet).
// The team's num_contexts is a hint: contexts are made while the table has room, whatever it says.
GPUSHMEM_EXPORT int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx) {
  constexpr const char *call = "shmem_team_create_ctx";
  api::require_running(call);
  check_create_args(call, options, ctx);
  if (team == SHMEM_TEAM_INVALID) {
    *ctx = SHMEM_CTX_INVALID;
    return 1;
  }
  const team::Team &t = team::get(call, "team", team);  // a destroyed or made-up team handle is reported
  if (t.s.slot == GPUSHMEM_TEAM_SLOT_WORLD) return ctx::create(call, options, ctx::Team{nullptr, 0, 1, t.n()}, ctx);
  return ctx::create(call, options, ctx::Team{team::handle(t), t.s.start, t.s.stride, t.n()}, ctx);
}

GPUSHMEM_EXPORT int shmem_ctx_get_team(shmem_ctx_t c, shmem_team_t *team) {
  constexpr const char *call = "shmem_ctx_get_team";
  api::require_running(call);
  if (team == nullptr) api::fail(call, "team is NULL: pass the address of the shmem_team_t that receives the team");
  if (c == SHMEM_CTX_INVALID) {
    *team = SHMEM_TEAM_INVALID;
    return 1;
  }
  const ctx::Slot &slot = ctx::use(call, c);
  *team = slot.team.handle == nullptr ? SHMEM_TEAM_WORLD : slot.team.handle;
  return 0;
}

GPUSHMEM_EXPORT void shmem_ctx_destroy(shmem_ctx_t c) {
  constexpr const char *call = "shmem_ctx_destroy";
  api::require_running(call);
  if (c == SHMEM_CTX_INVALID) return;
  if (c == SHMEM_CTX_DEFAULT) api::fail(call, "ctx is SHMEM_CTX_DEFAULT, which cannot be destroyed");
  (void)ctx::use(call, c);                  // destroyed twice, not a context, or another thread's private one
  sync::quiet_channel(call, ctx::chan(c));  // the implicit quiet
  ctx::destroy(c);
}

GPUSHMEM_EXPORT void shmem_ctx_fence(shmem_ctx_t c) {
  constexpr const char *call = "shmem_ctx_fence";
  api::require_running(call);
  if (c == SHMEM_CTX_INVALID) return;
  (void)ctx::use(call, c);
  sync::fence(call, ctx::chan(c));
}

GPUSHMEM_EXPORT void shmem_ctx_quiet(shmem_ctx_t c) {
  constexpr const char *call = "shmem_ctx_quiet";
  api::require_running(call);
  if (c == SHMEM_CTX_INVALID) return;
  if (c == SHMEM_CTX_DEFAULT) return sync::quiet_default(call);
  (void)ctx::use(call, c);
  sync::quiet_channel(call, ctx::chan(c));
}
