#include "ibgda/emu/emu_faults.hpp"

#include <cstdlib>

namespace gpushmem::ibgda::emu {
namespace {

// A decimal number filling [p, end) exactly, below `limit`.
bool number(const std::string &s, size_t p, size_t end, uint64_t limit, uint64_t *v) {
  if (p >= end || end - p > 19) return false;
  uint64_t x = 0;
  for (size_t i = p; i < end; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    x = x * 10 + static_cast<uint64_t>(s[i] - '0');
  }
  if (x >= limit) return false;
  *v = x;
  return true;
}

bool parse_one(const std::string &item, uint32_t n_qps, EmuFault *f) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos) return false;
  const std::string name = item.substr(0, eq);
  const uint64_t kMicros = 3600ull * 1000000ull;  // an hour: anything longer is a typo
  if (name == "doorbell_delay_us" || name == "cqe_delay_us") {
    f->kind = name == "cqe_delay_us" ? EmuFault::Kind::cqe_delay : EmuFault::Kind::doorbell_delay;
    return number(item, eq + 1, item.size(), kMicros + 1, &f->a);
  }
  if (name == "stall_qp") {
    f->kind = EmuFault::Kind::stall_qp;
    return number(item, eq + 1, item.size(), n_qps, &f->a);
  }
  if (name == "bad_rkey") {
    f->kind = EmuFault::Kind::bad_rkey;
    const size_t colon = item.find(':', eq + 1);
    return colon != std::string::npos && number(item, eq + 1, colon, n_qps, &f->a) &&
           number(item, colon + 1, item.size(), uint64_t{1} << 32, &f->b);
  }
  return false;
}

}  // namespace

bool parse_faults(const std::string &text, uint32_t n_qps, std::vector<EmuFault> *out, std::string *why) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string item = text.substr(i, j - i);
    i = j + 1;
    if (item.empty()) continue;
    EmuFault f{};
    if (!parse_one(item, n_qps, &f)) {
      *why = "'" + item +
             "' is not doorbell_delay_us=N or cqe_delay_us=N (N up to an hour), stall_qp=Q or bad_rkey=Q:W with Q "
             "below " +
             std::to_string(n_qps) + " (this PE's queue pairs)";
      return false;
    }
    out->push_back(f);
  }
  return true;
}

size_t apply_faults(const std::vector<EmuFault> &faults, const std::vector<uint32_t> &qpn_of, NicEmulator &nic,
                    std::string *skipped) {
  size_t n = 0;
  skipped->clear();
  for (const EmuFault &f : faults) {
    const bool on_qp = f.kind == EmuFault::Kind::stall_qp || f.kind == EmuFault::Kind::bad_rkey;
    if (on_qp && (f.a >= qpn_of.size() || qpn_of[f.a] == 0)) {
      *skipped += (n++ == 0 ? "" : ", ") + std::string(f.kind == EmuFault::Kind::stall_qp ? "stall_qp=" : "bad_rkey=") +
                  std::to_string(f.a);
      continue;
    }
    switch (f.kind) {
      case EmuFault::Kind::doorbell_delay:
        nic.set_doorbell_delay(f.a * 1000ull);
        break;
      case EmuFault::Kind::cqe_delay:
        nic.set_cqe_delay(f.a * 1000ull);
        break;
      case EmuFault::Kind::stall_qp:
        nic.stall(qpn_of[f.a], true);
        break;
      case EmuFault::Kind::bad_rkey:
        nic.bad_rkey_once(qpn_of[f.a], static_cast<uint32_t>(f.b));
        break;
    }
  }
  return n;
}

}  // namespace gpushmem::ibgda::emu
