#include "ucx/ucx_message.hpp"

#include <atomic>
#include <cstring>

namespace gpushmem::ucx::message {

void encode_head(int from_pe, const transport::Segment *segments, size_t n, transport::RemoteRef signal, uint64_t value,
                 transport::SignalOp op, std::vector<uint8_t> *head) {
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
    std::memcpy(p, &s, sizeof s);
    p += sizeof s;
  }
}

namespace {

bool inside(const Regions &r, uint8_t region, uint64_t offset, uint64_t bytes) {
  if (region >= transport::kRegions) return false;
  const size_t size = r.bytes[region];
  return r.base[region] != nullptr && offset <= size && bytes <= size - offset;
}

}  // namespace

const char *apply(const void *data, size_t length, const Regions &regions, int *from_pe) {
  *from_pe = -1;
  const auto *bytes = static_cast<const uint8_t *>(data);
  Header h;
  if (length < sizeof h) return "it is shorter than a message header";
  std::memcpy(&h, bytes, sizeof h);
  if (h.magic != kMagic) return "it is not a gpushmem runtime message";
  *from_pe = static_cast<int>(h.from_pe);
  const size_t head = sizeof h + size_t(h.segments) * sizeof(SegmentHeader);
  if (length < head) return "its segment list is cut short";
  uint64_t payload = 0;
  for (size_t i = 0; i < h.segments; ++i) {
    SegmentHeader s;
    std::memcpy(&s, bytes + sizeof h + i * sizeof s, sizeof s);
    if (!inside(regions, s.region, s.offset, s.bytes)) return "a segment lies outside this PE's regions";
    payload += s.bytes;
  }
  if (payload != length - head) return "its length does not match its segments";
  if (h.op > static_cast<uint8_t>(transport::SignalOp::add)) return "its signal operation is unknown";
  if (!inside(regions, h.signal_region, h.signal_offset, sizeof(uint64_t)) ||
      reinterpret_cast<uintptr_t>(regions.base[h.signal_region] + h.signal_offset) % 8 != 0)
    return "its signal word lies outside this PE's regions or is not 8-byte aligned";
  const uint8_t *from = bytes + head;
  for (size_t i = 0; i < h.segments; ++i) {
    SegmentHeader s;
    std::memcpy(&s, bytes + sizeof h + i * sizeof s, sizeof s);
    std::memcpy(regions.base[s.region] + s.offset, from, s.bytes);
    from += s.bytes;
  }
  std::atomic_ref<uint64_t> word(*reinterpret_cast<uint64_t *>(regions.base[h.signal_region] + h.signal_offset));
  if (h.op == static_cast<uint8_t>(transport::SignalOp::add)) {
    word.fetch_add(h.value, std::memory_order_release);
  } else {
    // Raise: messages may arrive out of order, and a signal word never goes back.
    uint64_t seen = word.load(std::memory_order_relaxed);
    while (seen < h.value && !word.compare_exchange_weak(seen, h.value, std::memory_order_release))
      ;
  }
  return nullptr;
}

}  // namespace gpushmem::ucx::message
