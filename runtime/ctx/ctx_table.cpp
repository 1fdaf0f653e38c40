#include "ctx/ctx_table.hpp"

#include "net/net.hpp"

#include <mutex>
#include <new>
#include <vector>

#include "core/log.hpp"

namespace gpushmem::ctx {

std::atomic<Chunk *> g_chunks[kMaxChunks];
Slot g_default_slot{{1}, 0, Team{}, pthread_t{}};

namespace {

constexpr uint32_t kGenerationMask = 0x7fffffffu;  // 31 bits travel in a handle

std::mutex g_mu;               // create, destroy, finalize
std::vector<uint32_t> g_free;  // destroyed slots, ready for reuse
uint32_t g_next = 1;           // slots [1, g_next) have been handed out at least once; 0 is never used
uint32_t g_alive = 0;          // contexts alive now (not counting SHMEM_CTX_DEFAULT)

Slot &slot_at(uint32_t index) {
  return g_chunks[index / kSlotsPerChunk].load(std::memory_order_relaxed)->slots[index % kSlotsPerChunk];
}

// Bumps the slot's generation (create: even -> odd, destroy: odd -> even). Under g_mu.
uint32_t bump(Slot &slot) {
  const uint32_t g = (slot.generation.load(std::memory_order_relaxed) + 1) & kGenerationMask;
  slot.generation.store(g, std::memory_order_release);  // the fields written before are visible with it
  return g;
}

}  // namespace

int create(const char *call, long options, const Team &team, shmem_ctx_t *out) {
  std::lock_guard<std::mutex> lock(g_mu);
  uint32_t index;
  if (!g_free.empty()) {
    index = g_free.back();
    g_free.pop_back();
  } else {
    if (g_next >= kSlotsPerChunk * kMaxChunks) {
      GPUSHMEM_LOG_WARN(log::Subsys::init, "%s: %u contexts are alive, the most this library supports; destroy some",
                        call, g_alive);
      *out = SHMEM_CTX_INVALID;
      return 1;
    }
    index = g_next;
    std::atomic<Chunk *> &chunk = g_chunks[index / kSlotsPerChunk];
    if (chunk.load(std::memory_order_relaxed) == nullptr) {
      Chunk *fresh = new (std::nothrow) Chunk();
      if (fresh == nullptr) {
        GPUSHMEM_LOG_WARN(log::Subsys::init, "%s: out of memory for the context table", call);
        *out = SHMEM_CTX_INVALID;
        return 1;
      }
      chunk.store(fresh, std::memory_order_release);  // lookups of its slots see a constructed chunk
    }
    ++g_next;
  }
  Slot &slot = slot_at(index);
  slot.options = options;
  slot.team = team;
  slot.owner = pthread_self();
  const uint32_t generation = bump(slot);
  ++g_alive;
  *out = reinterpret_cast<shmem_ctx_t>(static_cast<uintptr_t>(kTag | (uint64_t{generation} << 32) | index));
  return 0;
}

void destroy(shmem_ctx_t ctx) {
  std::lock_guard<std::mutex> lock(g_mu);
  const uint32_t index = static_cast<uint32_t>(bits(ctx));
  bump(slot_at(index));
  slot_at(index).team = Team{};
  g_free.push_back(index);
  --g_alive;
}

int destroy_team_contexts(shmem_team_t team) {
  std::atomic_thread_fence(std::memory_order_seq_cst);  // their implicit quiet: the stores are complete...
  std::lock_guard<std::mutex> lock(g_mu);
  int destroyed = 0;
  for (uint32_t index = 1; index < g_next; ++index) {
    Slot &slot = slot_at(index);
    if ((slot.generation.load(std::memory_order_relaxed) & 1u) != 0 && slot.team.handle == team) {
      net::quiet("shmem_team_destroy", index);  // ...and so are its network operations
      bump(slot);
      slot.team = Team{};
      g_free.push_back(index);
      --g_alive;
      ++destroyed;
    }
  }
  return destroyed;
}

void finalize() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_alive != 0)
    GPUSHMEM_LOG_DEBUG(log::Subsys::init, "shmem_finalize: destroying %u context(s) still alive", g_alive);
  for (uint32_t index = 1; index < g_next; ++index) {
    Slot &slot = slot_at(index);
    if ((slot.generation.load(std::memory_order_relaxed) & 1u) != 0) {
      bump(slot);
      slot.team = Team{};
      g_free.push_back(index);
    }
  }
  g_alive = 0;
}

void fail_handle(const char *call, shmem_ctx_t ctx) {
  const uint64_t h = bits(ctx);
  if (h == 0)
    api::fail(call,
              "ctx is SHMEM_CTX_INVALID: RMA, AMO and signal calls need SHMEM_CTX_DEFAULT or a context from "
              "shmem_ctx_create / shmem_team_create_ctx (a failed create leaves SHMEM_CTX_INVALID)");
  const uint32_t index = static_cast<uint32_t>(h);
  bool ours = (h & kTag) != 0 && index != 0 && index < kSlotsPerChunk * kMaxChunks;
  if (ours) {
    std::lock_guard<std::mutex> lock(g_mu);
    ours = index < g_next;
  }
  if (ours)
    api::fail(call,
              "ctx=%p was destroyed (shmem_ctx_destroy, or its team's shmem_team_destroy, or shmem_finalize): a "
              "context cannot be used after it is destroyed",
              static_cast<void *>(ctx));
  api::fail(call,
            "ctx=%p is not a context: pass SHMEM_CTX_DEFAULT or a context from shmem_ctx_create / "
            "shmem_team_create_ctx",
            static_cast<void *>(ctx));
}

void fail_private(const char *call, shmem_ctx_t ctx) {
  api::fail(call,
            "ctx=%p was created with SHMEM_CTX_PRIVATE by another thread: only the creating thread may use or "
            "destroy a private context",
            static_cast<void *>(ctx));
}

void fail_team_pe(const char *call, shmem_ctx_t ctx, int pe, int team_size) {
  api::fail(call, "pe=%d is out of range for the team of ctx=%p: that team has %d PEs (0..%d), numbered within it", pe,
            static_cast<void *>(ctx), team_size, team_size - 1);
}

}  // namespace gpushmem::ctx
