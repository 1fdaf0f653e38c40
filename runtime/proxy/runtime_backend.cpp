#include "proxy/runtime_backend.hpp"

#include <cstdio>

#include "api/api_common.hpp"
#include "gpu/gpu.hpp"
#include "net/net.hpp"
#include "proxy/proxy_coll.hpp"
#include "proxy/proxy_service.hpp"
#include "state.hpp"

namespace gpushmem::proxy_rt {

namespace {

using transport::AmoOp;

constexpr AmoOp kAmo[GPUSHMEM_PROXY_AMO_COUNT] = {AmoOp::load, AmoOp::store, AmoOp::swap, AmoOp::cswap,
                                                  AmoOp::add,  AmoOp::and_,  AmoOp::or_,  AmoOp::xor_};

// The names net's messages give the operations (the device call itself is not known here).
const char *call_of(uint32_t op) {
  switch (op) {
    case GPUSHMEM_PROXY_OP_PUT:
      return "a device put (through the proxy)";
    case GPUSHMEM_PROXY_OP_GET:
      return "a device get (through the proxy)";
    case GPUSHMEM_PROXY_OP_PUT_SIGNAL:
      return "a device put-with-signal (through the proxy)";
    case GPUSHMEM_PROXY_OP_SIGNAL:
      return "a device signal update (through the proxy)";
    case GPUSHMEM_PROXY_OP_QUIET:
      return "a device quiet (through the proxy)";
    case GPUSHMEM_PROXY_OP_FENCE:
      return "a device fence (through the proxy)";
    case GPUSHMEM_PROXY_OP_COLL:
      return "a device collective (through the proxy)";
    default:
      return "a device atomic (through the proxy)";
  }
}

}  // namespace

const char *symmetric_address(uint32_t region, uint64_t offset, uint64_t bytes) {
  const Runtime &r = rt();
  switch (static_cast<transport::Region>(region)) {
    case transport::Region::gpu_heap:
      if (r.gpu.base == nullptr || offset > r.gpu.limit || bytes > r.gpu.limit - offset) return nullptr;
      return r.gpu.base + offset;
    case transport::Region::heap:
      if (offset > r.heap.mapped_bytes() || bytes > r.heap.mapped_bytes() - offset) return nullptr;
      return r.heap.base() + offset;
    case transport::Region::globals:
      if (offset > r.data.size() || bytes > r.data.size() - offset) return nullptr;
      return r.data.start() + offset;
  }
  return nullptr;
}

void *RuntimeBackend::local(uint32_t channel, uint64_t a) const {
  if (channel < bounce_.size()) {
    const BounceView &b = bounce_[channel];
    if (a >= b.device && a - b.device < b.bytes) return b.host + (a - b.device);
  }
  return reinterpret_cast<void *>(a);
}

const char *RuntimeBackend::run(uint32_t channel, const gpushmem_proxy_slot_t &s) {
  const uint32_t op = gpushmem_proxy_header_op(s.header), flags = gpushmem_proxy_header_flags(s.header);
  const int pe = static_cast<int>(gpushmem_proxy_header_pe(s.header));
  const auto size = static_cast<uint32_t>(s.size_event);
  const char *call = call_of(op);
  if (op != GPUSHMEM_PROXY_OP_QUIET && op != GPUSHMEM_PROXY_OP_FENCE && op != GPUSHMEM_PROXY_OP_NOP &&
      (pe < 0 || pe >= rt().n_pes))
    return "its PE is out of range";
  if (op == GPUSHMEM_PROXY_OP_COLL) return run_coll(s);
  const bool inl = (flags & GPUSHMEM_PROXY_FLAG_INLINE) != 0;
  if (inl && size > sizeof s.compare) return "it carries more than 8 bytes inline";
  const void *src = inl ? static_cast<const void *>(&s.compare) : local(channel, s.local);
  void *dst = local(channel, s.local);
  const bool data_op = op == GPUSHMEM_PROXY_OP_PUT || op == GPUSHMEM_PROXY_OP_GET ||
                       op == GPUSHMEM_PROXY_OP_PUT_SIGNAL || op == GPUSHMEM_PROXY_OP_AMO ||
                       op == GPUSHMEM_PROXY_OP_AMO_FETCH;
  const char *sym = nullptr;
  if (data_op) {
    sym = symmetric_address(gpushmem_proxy_remote_region(s.remote), gpushmem_proxy_remote_offset(s.remote), size);
    if (sym == nullptr) return "its remote address is not a symmetric address of this PE";
    if ((op != GPUSHMEM_PROXY_OP_AMO && op != GPUSHMEM_PROXY_OP_AMO_FETCH) && size != 0 && s.local == 0 && !inl)
      return "its local buffer is NULL";
  }
  switch (op) {
    case GPUSHMEM_PROXY_OP_NOP:
      return nullptr;
    case GPUSHMEM_PROXY_OP_PUT:
      net::put(call, 0, pe, sym, src, size, false);
      return nullptr;
    case GPUSHMEM_PROXY_OP_GET:
      if (inl) return "a get cannot deliver inline";
      net::get(call, 0, pe, dst, sym, size);
      return nullptr;
    case GPUSHMEM_PROXY_OP_PUT_SIGNAL:
    case GPUSHMEM_PROXY_OP_SIGNAL: {
      const char *sig =
          symmetric_address(gpushmem_proxy_signal_region(s.signal), gpushmem_proxy_remote_offset(s.signal), 8);
      if (sig == nullptr) return "its signal address is not a symmetric address of this PE";
      const bool add = (flags & GPUSHMEM_PROXY_FLAG_SIG_ADD) != 0;
      if (op == GPUSHMEM_PROXY_OP_PUT_SIGNAL)
        net::put_signal(call, 0, pe, sym, src, size, reinterpret_cast<const uint64_t *>(sig), s.value, add);
      else
        net::amo(call, 0, pe, sig, add ? AmoOp::add : AmoOp::store, 8, s.value, 0, nullptr);
      return nullptr;
    }
    case GPUSHMEM_PROXY_OP_AMO:
    case GPUSHMEM_PROXY_OP_AMO_FETCH: {
      const uint32_t a = gpushmem_proxy_signal_amo(s.signal);
      if (a >= GPUSHMEM_PROXY_AMO_COUNT) return "its atomic is not one of gpushmem_proxy_amo";
      if (size != 4 && size != 8) return "an atomic is 4 or 8 bytes wide";
      const bool fetch = op == GPUSHMEM_PROXY_OP_AMO_FETCH;
      if (fetch && s.local == 0) return "a fetching atomic needs a local buffer for the old value";
      net::amo(call, 0, pe, sym, kAmo[a], size, s.value, s.compare, fetch ? dst : nullptr);
      return nullptr;
    }
    case GPUSHMEM_PROXY_OP_FENCE:
      net::fence(call, 0);
      return nullptr;
    case GPUSHMEM_PROXY_OP_QUIET:
      net::quiet(call, 0);
      return nullptr;
    default:
      return "its op is not one of gpushmem_proxy_op";
  }
}

bool RuntimeBackend::execute(uint32_t channel, const proxy::Request &r) {
  gpu::ContextScope in_pe_context;  // staging copies run on this PE's device
  if (const char *why = run(channel, r.slot)) {
    // A malformed request is a bug in the producer: carrying on would hand its thread data that never came.
    api::fail(call_of(gpushmem_proxy_header_op(r.slot.header)), "proxy channel %u: request %llu (%s) is malformed: %s",
              channel, static_cast<unsigned long long>(r.index), proxy::describe(r.slot).c_str(), why);
  }
  return true;
}

void RuntimeBackend::progress(const std::function<void(uint32_t, uint64_t)> &) {
  if (!serve_network_) return;
  const uint64_t now = proxy::Service::now_ns();
  if (now - last_serve_ns_ < kServeEveryNs) return;
  last_serve_ns_ = now;
  gpu::ContextScope in_pe_context;  // a peer's put to the GPU heap is a copy on this PE's device
  net::poll();
}

}  // namespace gpushmem::proxy_rt
