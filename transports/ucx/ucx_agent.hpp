// The wire format of operations on a peer's agent regions over UCX, and how the target executes them.
//
// An agent region (transport.hpp, MemoryAgent) is memory UCX cannot reach itself: a GPU heap without
// GPUDirect. An operation on it travels as an active message whose header is a Request (a put's payload,
// and a put-with-signal's, is the message's data). The target's handler queues it; the target executes it
// after its progress call, through the region's agent, and answers every request with a Reply (a get's
// data as the reply's data): the acknowledgement a quiet waits for, or the fetched value. Requests from one
// PE are executed in the order they arrive; a put-with-signal applies its signal only once its payload is
// in place.
//
// Layout: every field little-endian, as the hosts are; the blob version (ucx_transport.hpp) names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "transport.hpp"

namespace gpushmem::ucx::agent {

inline constexpr uint16_t kRequestAmId = 2;  // UCP active-message ids
inline constexpr uint16_t kReplyAmId = 3;
inline constexpr uint32_t kRequestMagic = 0x51415347;  // "GSAQ"
inline constexpr uint32_t kReplyMagic = 0x52415347;    // "GSAR"

enum class Kind : uint8_t {
  put = 1,         // `bytes` of data to (region, offset)
  get = 2,         // `bytes` from (region, offset), returned as the reply's data
  amo = 3,         // op on the width-byte word at (region, offset); the reply's value is the old value
  put_signal = 4,  // a put, then the 64-bit word at (signal_region, compare) set to / added `operand`
};

struct Request {
  uint32_t magic;
  uint32_t from_pe;
  uint8_t kind;  // Kind
  uint8_t region;
  uint8_t op;     // transport::AmoOp (amo)
  uint8_t width;  // 4 or 8 (amo)
  uint8_t signal_region;
  uint8_t signal_add;  // put_signal: 1 adds, 0 sets
  uint16_t reserved;
  uint64_t offset;
  uint64_t bytes;    // put, get, put_signal: payload bytes
  uint64_t operand;  // amo: the operand; put_signal: the signal value
  uint64_t compare;  // amo cswap: the expected value; put_signal: the signal word's offset
  uint64_t id;       // echoed in the reply: which of the sender's waits it completes (0: an acknowledgement)
  uint32_t channel;  // the sender's channel, echoed (acknowledgements count there)
  uint32_t reserved2;
};

// What happened to a request at its target.
enum class Outcome : uint8_t {
  done = 0,
  refused = 1,  // malformed, or outside the region (the target logged what)
  failed = 2,   // the agent failed (the target logged why)
};

struct Reply {
  uint32_t magic;
  uint32_t from_pe;  // the target
  uint32_t channel;  // the request's
  uint8_t kind;      // the request's
  uint8_t outcome;   // Outcome
  uint16_t reserved;
  uint64_t id;     // the request's
  uint64_t value;  // amo: the old value
  uint64_t bytes;  // get: the data's length
};

static_assert(sizeof(Request) == 64 && offsetof(Request, offset) == 16 && offsetof(Request, id) == 48 &&
                  sizeof(Reply) == 40 && offsetof(Reply, id) == 16,
              "the agent message layout changed: bump kBlobVersion (ucx_transport.hpp) and the unit test");

// Where this PE's regions lie, and which are reached through an agent (nullptr: host memory the CPU
// reaches, copied and updated directly).
struct Regions {
  char *base[transport::kRegions] = {};
  uint64_t bytes[transport::kRegions] = {};
  transport::MemoryAgent *agent[transport::kRegions] = {};
};

// Executes `r` (its payload: `data`, `length` bytes) on this PE's regions and fills *reply; a get's data
// goes to *get_data. Returns nullptr, or what was wrong (the reply then says refused or failed, and nothing
// was applied unless the agent failed part-way). `defer_put`: a plain put to an agent region is only posted
// (MemoryAgent::post_write; *posted set): the caller completes it before it sends the reply.
const char *execute(const Regions &regions, const Request &r, const void *data, size_t length, Reply *reply,
                    std::vector<uint8_t> *get_data, bool defer_put = false, bool *posted = nullptr);

// "put", "get", ...
const char *kind_name(uint8_t kind);

}  // namespace gpushmem::ucx::agent
