#include "proxy/transport_backend.hpp"

#include <cstdio>

#include "core/log.hpp"
#include "proxy/proxy_service.hpp"

namespace gpushmem::proxy {

namespace {

using transport::AmoOp;
using transport::Completion;
using transport::Region;
using transport::RemoteRef;

constexpr AmoOp kAmo[GPUSHMEM_PROXY_AMO_COUNT] = {AmoOp::load, AmoOp::store, AmoOp::swap, AmoOp::cswap,
                                                  AmoOp::add,  AmoOp::and_,  AmoOp::or_,  AmoOp::xor_};

bool region_of(uint32_t id, Region *out) {
  if (id >= static_cast<uint32_t>(transport::kRegions)) return false;
  *out = static_cast<Region>(id);
  return true;
}

}  // namespace

TransportBackend::TransportBackend(transport::Transport *t, std::vector<uint32_t> channels)
    : t_(t), channels_(std::move(channels)) {}

Status TransportBackend::run(uint32_t tch, const gpushmem_proxy_slot_t &s, const char **why) {
  const uint32_t op = gpushmem_proxy_header_op(s.header), flags = gpushmem_proxy_header_flags(s.header);
  const int pe = static_cast<int>(gpushmem_proxy_header_pe(s.header));
  const auto size = static_cast<uint32_t>(s.size_event);
  RemoteRef dst{Region::heap, gpushmem_proxy_remote_offset(s.remote)};
  const bool data_op = op == GPUSHMEM_PROXY_OP_PUT || op == GPUSHMEM_PROXY_OP_GET ||
                       op == GPUSHMEM_PROXY_OP_PUT_SIGNAL || op == GPUSHMEM_PROXY_OP_AMO ||
                       op == GPUSHMEM_PROXY_OP_AMO_FETCH;
  if (data_op && !region_of(gpushmem_proxy_remote_region(s.remote), &dst.region)) {
    *why = "its remote region is not one this PE knows";
    return Status::invalid_argument;
  }
  if ((flags & GPUSHMEM_PROXY_FLAG_LOCAL_GPU) != 0) {
    *why = "its local buffer is GPU memory, which needs the staging path (not built yet)";
    return Status::not_supported;
  }
  // An inline payload (<= 8 bytes) travels in word 6 instead of at `local`.
  const bool inl = (flags & GPUSHMEM_PROXY_FLAG_INLINE) != 0;
  if (inl && size > sizeof s.compare) {
    *why = "it carries more than 8 bytes inline";
    return Status::invalid_argument;
  }
  const void *src = inl ? static_cast<const void *>(&s.compare) : reinterpret_cast<const void *>(s.local);
  void *local = reinterpret_cast<void *>(s.local);
  if ((op == GPUSHMEM_PROXY_OP_PUT || op == GPUSHMEM_PROXY_OP_PUT_SIGNAL || op == GPUSHMEM_PROXY_OP_GET) && size != 0 &&
      src == nullptr) {
    *why = "its local buffer is NULL";
    return Status::invalid_argument;
  }
  switch (op) {
    case GPUSHMEM_PROXY_OP_NOP:
      return Status::ok;
    case GPUSHMEM_PROXY_OP_PUT:
      return t_->put(tch, pe, dst, src, size, Completion::local, nullptr);
    case GPUSHMEM_PROXY_OP_GET:
      if (inl) {
        *why = "a get cannot deliver inline";
        return Status::invalid_argument;
      }
      return t_->get(tch, pe, local, dst, size);
    case GPUSHMEM_PROXY_OP_PUT_SIGNAL:
    case GPUSHMEM_PROXY_OP_SIGNAL: {
      RemoteRef sig{Region::heap, gpushmem_proxy_remote_offset(s.signal)};
      if (!region_of(gpushmem_proxy_signal_region(s.signal), &sig.region)) {
        *why = "its signal region is not one this PE knows";
        return Status::invalid_argument;
      }
      const bool add = (flags & GPUSHMEM_PROXY_FLAG_SIG_ADD) != 0;
      if (op == GPUSHMEM_PROXY_OP_PUT_SIGNAL) return t_->put_signal(tch, pe, dst, src, size, sig, s.value, add);
      return t_->amo(tch, pe, sig, add ? AmoOp::add : AmoOp::store, 8, s.value, 0, nullptr);
    }
    case GPUSHMEM_PROXY_OP_AMO:
    case GPUSHMEM_PROXY_OP_AMO_FETCH: {
      const uint32_t a = gpushmem_proxy_signal_amo(s.signal);
      if (a >= GPUSHMEM_PROXY_AMO_COUNT) {
        *why = "its atomic is not one of gpushmem_proxy_amo";
        return Status::invalid_argument;
      }
      if (size != 4 && size != 8) {
        *why = "an atomic is 4 or 8 bytes wide";
        return Status::invalid_argument;
      }
      const bool fetch = op == GPUSHMEM_PROXY_OP_AMO_FETCH;
      if (fetch && local == nullptr) {
        *why = "a fetching atomic needs a local buffer for the old value";
        return Status::invalid_argument;
      }
      if (!fetch && (a == GPUSHMEM_PROXY_AMO_LOAD || a == GPUSHMEM_PROXY_AMO_SWAP || a == GPUSHMEM_PROXY_AMO_CSWAP)) {
        *why = "this atomic returns a value: send it as AMO_FETCH";
        return Status::invalid_argument;
      }
      return t_->amo(tch, pe, dst, kAmo[a], size, s.value, s.compare, fetch ? local : nullptr);
    }
    case GPUSHMEM_PROXY_OP_FENCE:
      return t_->fence(tch);
    case GPUSHMEM_PROXY_OP_QUIET:
      return t_->quiet(tch);
    default:
      *why = "its op is not one of gpushmem_proxy_op";
      return Status::invalid_argument;
  }
}

bool TransportBackend::execute(uint32_t channel, const Request &r) {
  const uint32_t tch = channel < channels_.size() ? channels_[channel] : 0;
  const char *why = nullptr;
  const Status st = run(tch, r.slot, &why);
  if (st != Status::ok) fail(channel, r, why != nullptr ? why : "the transport failed (the cause is above)");
  return true;
}

void TransportBackend::fail(uint32_t channel, const Request &r, const char *why) {
  char line[400];
  std::snprintf(line, sizeof line, "proxy channel %u: request %llu (%s) failed: %s", channel,
                static_cast<unsigned long long>(r.index), describe(r.slot).c_str(), why);
  if (failures_++ == 0) first_failure_ = line;
  GPUSHMEM_LOG_ERROR(log::Subsys::net, "%s", line);
}

}  // namespace gpushmem::proxy
