#include "ucx/ucx_agent.hpp"

#include <atomic>
#include <cstring>

#include "agent/cpu_atomic.hpp"

namespace gpushmem::ucx::agent {

using transport::AmoOp;

namespace {

bool in_region(const Regions &g, uint8_t region, uint64_t offset, uint64_t bytes) {
  if (region >= transport::kRegions || g.base[region] == nullptr) return false;
  const uint64_t usable = g.agent[region] != nullptr ? g.agent[region]->usable_bytes() : g.bytes[region];
  return offset <= usable && bytes <= usable - offset;
}

Status write(const Regions &g, uint8_t region, uint64_t offset, const void *src, size_t bytes) {
  if (bytes == 0) return Status::ok;
  if (transport::MemoryAgent *a = g.agent[region]; a != nullptr) return a->write(offset, src, bytes);
  std::memcpy(g.base[region] + offset, src, bytes);
  std::atomic_thread_fence(std::memory_order_release);
  return Status::ok;
}

Status read(const Regions &g, uint8_t region, uint64_t offset, void *dst, size_t bytes) {
  if (bytes == 0) return Status::ok;
  if (transport::MemoryAgent *a = g.agent[region]; a != nullptr) return a->read(offset, dst, bytes);
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(dst, g.base[region] + offset, bytes);
  return Status::ok;
}

Status atomic(const Regions &g, uint8_t region, uint64_t offset, AmoOp op, size_t width, uint64_t operand,
              uint64_t compare, uint64_t *old) {
  if (transport::MemoryAgent *a = g.agent[region]; a != nullptr)
    return a->atomic(offset, op, width, operand, compare, old);
  *old = transport::cpu_atomic(g.base[region] + offset, op, width, operand, compare);
  return Status::ok;
}

}  // namespace

const char *kind_name(uint8_t kind) {
  switch (static_cast<Kind>(kind)) {
    case Kind::put:
      return "put";
    case Kind::get:
      return "get";
    case Kind::amo:
      return "atomic";
    case Kind::put_signal:
      return "put-with-signal";
  }
  return "request";
}

const char *execute(const Regions &g, const Request &r, const void *data, size_t length, Reply *reply,
                    std::vector<uint8_t> *get_data, bool defer_put, bool *posted) {
  *reply = Reply{};
  reply->magic = kReplyMagic;
  reply->channel = r.channel;
  reply->kind = r.kind;
  reply->id = r.id;
  reply->outcome = static_cast<uint8_t>(Outcome::refused);
  if (r.magic != kRequestMagic) return "it is not a gpushmem agent request";
  const auto kind = static_cast<Kind>(r.kind);
  const bool carries = kind == Kind::put || kind == Kind::put_signal;
  if (kind != Kind::put && kind != Kind::get && kind != Kind::amo && kind != Kind::put_signal)
    return "its kind is unknown";
  if (carries && length != r.bytes) return "its data is not as long as its header says";
  if (!carries && length != 0) return "it carries data it should not";
  Status s = Status::ok;
  switch (kind) {
    case Kind::put:
      if (!in_region(g, r.region, r.offset, r.bytes)) return "its destination lies outside this PE's region";
      if (transport::MemoryAgent *a = g.agent[r.region]; defer_put && a != nullptr && r.bytes != 0) {
        s = a->post_write(r.offset, data, r.bytes);
        if (posted != nullptr) *posted = true;
      } else {
        s = write(g, r.region, r.offset, data, r.bytes);
      }
      break;
    case Kind::get:
      if (!in_region(g, r.region, r.offset, r.bytes)) return "its source lies outside this PE's region";
      get_data->resize(r.bytes);
      s = read(g, r.region, r.offset, get_data->data(), r.bytes);
      reply->bytes = r.bytes;
      break;
    case Kind::amo: {
      if (r.width != 4 && r.width != 8) return "its width is neither 4 nor 8 bytes";
      if (r.op > static_cast<uint8_t>(AmoOp::xor_)) return "its atomic operation is unknown";
      if (r.offset % r.width != 0) return "its word is not aligned to its width";
      if (!in_region(g, r.region, r.offset, r.width)) return "its word lies outside this PE's region";
      s = atomic(g, r.region, r.offset, static_cast<AmoOp>(r.op), r.width, r.operand, r.compare, &reply->value);
      break;
    }
    case Kind::put_signal: {
      if (!in_region(g, r.region, r.offset, r.bytes)) return "its destination lies outside this PE's region";
      if (r.compare % 8 != 0 || !in_region(g, r.signal_region, r.compare, 8))
        return "its signal word lies outside this PE's region or is not aligned";
      s = write(g, r.region, r.offset, data, r.bytes);
      uint64_t old = 0;
      if (s == Status::ok)
        s = atomic(g, r.signal_region, r.compare, r.signal_add != 0 ? AmoOp::add : AmoOp::store, 8, r.operand, 0, &old);
      break;
    }
  }
  if (s != Status::ok) {
    reply->outcome = static_cast<uint8_t>(Outcome::failed);
    return "the memory agent failed";
  }
  reply->outcome = static_cast<uint8_t>(Outcome::done);
  return nullptr;
}

}  // namespace gpushmem::ucx::agent
