#include "ucx/ucx_message.hpp"

#include <atomic>
#include <cstring>

#include "core/thread_scratch.hpp"

namespace gpushmem::ucx::message {

void encode_head(int from_pe, const transport::Segment *segments, size_t n, transport::RemoteRef signal, uint64_t value,
                 transport::SignalOp op, std::vector<uint8_t> *head, const uint8_t *inline_segments) {
  head->resize(sizeof(Header) + n * sizeof(SegmentHeader));
  Header h{};
  h.magic = kMagic;
  h.from_pe = static_cast<uint32_t>(from_pe);
  h.segments = static_cast<uint16_t>(n);
  h.op = static_cast<uint8_t>(op);
  h.signal_region = static_cast<uint8_t>(signal.region);
  h.signal_offset = signal.offset;
  h.value = value;
  uint8_t *p = head->data();
  std::memcpy(p, &h, sizeof h);
  p += sizeof h;
  for (size_t i = 0; i < n; ++i) {
    SegmentHeader s{};
    s.offset = segments[i].dst.offset;
    s.bytes = static_cast<uint32_t>(segments[i].bytes);
    s.region = static_cast<uint8_t>(segments[i].dst.region);
    s.flags = inline_segments != nullptr && inline_segments[i] != 0 ? kInline : 0;
    std::memcpy(p, &s, sizeof s);
    p += sizeof s;
  }
  for (size_t i = 0; inline_segments != nullptr && i < n; ++i) {
    if (inline_segments[i] == 0) continue;
    const auto *src = static_cast<const uint8_t *>(segments[i].src);
    head->insert(head->end(), src, src + segments[i].bytes);
  }
}

namespace {

bool inside(const Regions &r, uint8_t region, uint64_t offset, uint64_t bytes) {
  if (region >= transport::kRegions) return false;
  const size_t size = r.bytes[region];
  return r.base[region] != nullptr && offset <= size && bytes <= size - offset;
}

}  // namespace

const char *parse(const void *head, size_t head_bytes, const Regions &regions, Plan *plan) {
  plan->from_pe = -1;
  plan->places.clear();
  const auto *bytes = static_cast<const uint8_t *>(head);
  Header h;
  if (head_bytes < sizeof h) return "it is shorter than a message header";
  std::memcpy(&h, bytes, sizeof h);
  if (h.magic != kMagic) return "it is not a gpushmem runtime message";
  plan->from_pe = static_cast<int>(h.from_pe);
  plan->head_bytes = sizeof h + size_t(h.segments) * sizeof(SegmentHeader);
  if (head_bytes < plan->head_bytes) return "its segment list is cut short";
  plan->payload_bytes = plan->inline_bytes = 0;
  plan->inlined.clear();
  for (size_t i = 0; i < h.segments; ++i) {
    SegmentHeader s;
    std::memcpy(&s, bytes + sizeof h + i * sizeof s, sizeof s);
    if (!inside(regions, s.region, s.offset, s.bytes)) return "a segment lies outside this PE's regions";
    if ((s.flags & ~kInline) != 0) return "a segment has flags this PE does not know";
    if ((s.flags & kInline) != 0) {
      plan->inline_bytes += s.bytes;
      plan->inlined.push_back(Place{regions.base[s.region] + s.offset, s.bytes});
      continue;
    }
    plan->payload_bytes += s.bytes;
    if (s.bytes != 0) plan->places.push_back(Place{regions.base[s.region] + s.offset, s.bytes});
  }
  if (h.op > static_cast<uint8_t>(transport::SignalOp::add)) return "its signal operation is unknown";
  if (!inside(regions, h.signal_region, h.signal_offset, sizeof(uint64_t)) ||
      reinterpret_cast<uintptr_t>(regions.base[h.signal_region] + h.signal_offset) % 8 != 0)
    return "its signal word lies outside this PE's regions or is not 8-byte aligned";
  plan->signal = reinterpret_cast<uint64_t *>(regions.base[h.signal_region] + h.signal_offset);
  plan->op = h.op;
  plan->value = h.value;
  return nullptr;
}

void apply_signal(const Plan &plan) {
  std::atomic_ref<uint64_t> word(*plan.signal);
  if (plan.op == static_cast<uint8_t>(transport::SignalOp::add)) {
    word.fetch_add(plan.value, std::memory_order_release);
    return;
  }
  // Raise: messages may arrive out of order, and a signal word never goes back.
  uint64_t seen = word.load(std::memory_order_relaxed);
  while (seen < plan.value && !word.compare_exchange_weak(seen, plan.value, std::memory_order_release))
    ;
}

const char *apply(const void *data, size_t length, const Regions &regions, int *from_pe) {
  Plan &plan = core::thread_scratch<Plan>();  // valid while the process exits (core/thread_scratch.hpp)
  const char *bad = parse(data, length, regions, &plan);
  *from_pe = plan.from_pe;
  if (bad != nullptr) return bad;
  if (plan.inline_bytes != 0) return "it is an eager message with segments marked inline";
  if (plan.payload_bytes != length - plan.head_bytes) return "its length does not match its segments";
  const auto *from = static_cast<const uint8_t *>(data) + plan.head_bytes;
  for (const Place &p : plan.places) {
    std::memcpy(p.dst, from, p.bytes);
    from += p.bytes;
  }
  apply_signal(plan);
  return nullptr;
}

}  // namespace gpushmem::ucx::message
