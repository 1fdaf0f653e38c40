#include "env/env.hpp"

#include <strings.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace gpushmem::env {
namespace {

Values g_values = [] {
  Values v;
  Status s = load(&v);  // defaults only matter if the environment is malformed; init reloads and reports.
  (void)s;
  return v;
}();

bool parse_value(const char *text, bool *out) {
  return parse_bool(text, out);
}
bool parse_value(const char *text, int64_t *out) {
  return parse_int(text, out);
}
bool parse_value(const char *text, uint64_t *out) {
  return parse_size(text, out);
}
bool parse_value(const char *text, std::string *out) {
  *out = text;
  return true;
}

const char *expected(Type t) {
  switch (t) {
    case Type::flag:
      return "any value";
    case Type::boolean:
      return "0/1, yes/no, true/false or on/off";
    case Type::integer:
      return "a decimal integer";
    case Type::size:
      return "a byte count such as 4096, 512M or 2G";
    case Type::string:
      return "text";
  }
  return "?";
}

// The value of a variable, or of its deprecated SMA_ spelling for spec variables.
const char *lookup(const char *name) {
  const char *set = std::getenv(name);  // with select.cpp's launcher probes, the only getenv in the library
  if (set == nullptr && std::strncmp(name, "SHMEM_", 6) == 0) {
    std::string alias = std::string("SMA_") + (name + 6);
    set = std::getenv(alias.c_str());
  }
  return set;
}

template <class T>
Status load_one(const char *name, Type type, const char *default_text, T *out) {
  if (type == Type::flag) {
    if constexpr (std::is_same_v<T, bool>) *out = lookup(name) != nullptr;
    return Status::ok;
  }
  const char *set = lookup(name);
  if (!parse_value(default_text, out)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "internal: default '%s' of %s does not parse", default_text, name);
    return Status::internal_error;
  }
  if (set == nullptr) return Status::ok;
  if (!parse_value(set, out)) {
    GPUSHMEM_LOG_ERROR(log::Subsys::env, "environment variable %s='%s' is malformed: expected %s", name, set,
                       expected(type));
    parse_value(default_text, out);
    return Status::invalid_argument;
  }
  return Status::ok;
}

constexpr Type type_of_flag = Type::flag;
constexpr Type type_of_bool = Type::boolean;
constexpr Type type_of_int = Type::integer;
constexpr Type type_of_size = Type::size;
constexpr Type type_of_string = Type::string;

}  // namespace

const char *type_name(Type t) {
  switch (t) {
    case Type::flag:
      return "flag";
    case Type::boolean:
      return "bool";
    case Type::integer:
      return "int";
    case Type::size:
      return "size";
    case Type::string:
      return "string";
  }
  return "?";
}

const std::vector<Var> &table() {
  static const std::vector<Var> rows = {
#define GPUSHMEM_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP) {#NAME, type_of_##TYPE, DEFAULT, #CATEGORY, HELP},
#include "env/env_table.def"
#undef GPUSHMEM_ENV
  };
  return rows;
}

bool early_bool(const char *name) {
  for (const Var &v : table()) {
    if (std::strcmp(v.name, name) != 0 || v.type != Type::boolean) continue;
    bool value = false;
    (void)parse_bool(v.default_text, &value);
    const char *set = lookup(name);
    bool parsed = false;
    if (set != nullptr && parse_bool(set, &parsed)) value = parsed;
    return value;
  }
  return false;  // not a boolean of the table: a caller's mistake, which unit.env's test of this function catches
}

bool parse_bool(const char *text, bool *out) {
  static const char *const yes[] = {"1", "y", "yes", "true", "on"};
  static const char *const no[] = {"0", "n", "no", "false", "off", ""};
  for (const char *y : yes)
    if (strcasecmp(text, y) == 0) return *out = true, true;
  for (const char *n : no)
    if (strcasecmp(text, n) == 0) return *out = false, true;
  return false;
}

bool parse_int(const char *text, int64_t *out) {
  if (text == nullptr || *text == '\0') return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

bool parse_size(const char *text, uint64_t *out) {
  if (text == nullptr) return false;
  const char *p = text;
  unsigned long long whole = 0;
  long double fraction = 0, scale = 1;
  bool digits = false;
  for (; *p >= '0' && *p <= '9'; ++p, digits = true) {
    if (whole > (~0ull - 9) / 10) return false;  // overflow
    whole = whole * 10 + static_cast<unsigned>(*p - '0');
  }
  if (*p == '.') {
    for (++p; *p >= '0' && *p <= '9'; ++p, digits = true) {
      scale /= 10;
      fraction += scale * (*p - '0');
    }
  }
  if (!digits) return false;
  unsigned shift = 0;
  switch (*p) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      break;
    case 'm':
    case 'M':
      shift = 20;
      break;
    case 'g':
    case 'G':
      shift = 30;
      break;
    case 't':
    case 'T':
      shift = 40;
      break;
    default:
      return false;
  }
  // After the suffix letter only a unit may follow ("2GB", "2GiB", "3kb"): other text ("1Mfoo", "1M:1M", "1kk")
  // is a typo that must not pass as a size.
  if (shift != 0) {
    ++p;
    if ((*p == 'i' || *p == 'I') && (p[1] == 'b' || p[1] == 'B')) ++p;
    if (*p == 'b' || *p == 'B') ++p;
    if (*p != '\0') return false;
  }
  if (shift != 0 && whole > (~0ull >> shift)) return false;
  unsigned long long bytes = whole << shift;
  long double extra = fraction * static_cast<long double>(1ull << shift);
  unsigned long long extra_bytes = static_cast<unsigned long long>(extra);
  if (static_cast<long double>(extra_bytes) < extra) ++extra_bytes;  // round up
  if (bytes + extra_bytes < bytes) return false;
  *out = bytes + extra_bytes;
  return true;
}

// Variables checked where they are used (the network's GPUSHMEM_PROGRESS_*, GPUSHMEM_COLL_NET_SCRATCH in jobs
// that span nodes) are not repeated here.
std::string check_ranges(const Values &v) {
  struct Range {
    const char *name;
    long double value, lo, hi;
    const char *what;
  };
  const long double day = 86400;
  const Range rows[] = {
      {"GPUSHMEM_BOOTSTRAP_TIMEOUT", (long double)v.GPUSHMEM_BOOTSTRAP_TIMEOUT, 1, day, "seconds, 1 to 86400"},
      {"GPUSHMEM_HANG_WARN", (long double)v.GPUSHMEM_HANG_WARN, 0, day, "seconds, 0 (off) to 86400"},
      {"GPUSHMEM_COLL_FLAT_MAX_PES", (long double)v.GPUSHMEM_COLL_FLAT_MAX_PES, 1, 1 << 20, "PEs, 1 to 1048576"},
      {"GPUSHMEM_COLL_PUSH_MAX_BYTES", (long double)v.GPUSHMEM_COLL_PUSH_MAX_BYTES, 0, 64 * 1024, "bytes, 0 to 64K"},
      {"SHMEM_SYMMETRIC_SIZE", (long double)v.SHMEM_SYMMETRIC_SIZE, 1, 1e18L, "bytes, at least 1"},
      {"GPUSHMEM_GPU_HEAP_CHUNK", (long double)v.GPUSHMEM_GPU_HEAP_CHUNK, 1, 1e18L, "bytes, at least 1"},
  };
  for (const Range &r : rows)
    if (r.value < r.lo || r.value > r.hi) {
      const char *set = lookup(r.name);
      return std::string(r.name) + "='" + (set != nullptr ? set : "") + "' is out of range: it must be " + r.what;
    }
  return {};
}

Status load(Values *out) {
  Status result = Status::ok;
#define GPUSHMEM_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP) \
  if (load_one(#NAME, type_of_##TYPE, DEFAULT, &out->NAME) != Status::ok) result = Status::invalid_argument;
#include "env/env_table.def"
#undef GPUSHMEM_ENV
  return result;
}

namespace {

// Edit distance (insertions, deletions, substitutions), for the nearest known name.
size_t distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> unknown_variables() {
  std::vector<std::string> out;
  static constexpr char kPrefix[] = "GPUSHMEM_";
  for (char **e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, kPrefix, sizeof kPrefix - 1) != 0) continue;
    const char *eq = std::strchr(*e, '=');
    const std::string name(*e, eq != nullptr ? size_t(eq - *e) : std::strlen(*e));
    if (name == "GPUSHMEM_NO_APT" || name.rfind("GPUSHMEM_TEST_", 0) == 0) continue;
    const Var *nearest = nullptr;
    size_t best = 4;  // at most 3 edits away
    bool known = false;
    for (const Var &v : table()) {
      if (name == v.name) {
        known = true;
        break;
      }
      if (const size_t d = distance(name, v.name); d < best) {
        best = d;
        nearest = &v;
      }
    }
    if (known) continue;
    std::string line = name + " is set, but gpushmem has no such variable: it is ignored";
    if (nearest != nullptr) line += std::string(" (did you mean ") + nearest->name + "?)";
    out.push_back(line + "; `gpushmem-info --env` lists them all");
  }
  return out;
}

const Values &get() {
  return g_values;
}

Status load_global() {
  return load(&g_values);
}

std::string value_text(const Var &v) {
  const char *set = lookup(v.name);
  return set != nullptr ? std::string(set) : std::string(v.default_text);
}

}  // namespace gpushmem::env
