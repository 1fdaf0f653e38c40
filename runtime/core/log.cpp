#include "core/log.hpp"

#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace gpushmem::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::warn)};
std::atomic<unsigned> g_subsys{static_cast<unsigned>(Subsys::all)};
std::atomic<int> g_pe{-1};

const char *level_name(Level l) {
  switch (l) {
    case Level::error:
      return "ERROR";
    case Level::warn:
      return "WARN";
    case Level::info:
      return "INFO";
    case Level::debug:
      return "DEBUG";
    case Level::trace:
      return "TRACE";
  }
  return "?";
}

struct SubsysName {
  const char *name;
  Subsys bit;
};
constexpr SubsysName kSubsysNames[] = {
    {"init", Subsys::init}, {"bootstrap", Subsys::bootstrap}, {"heap", Subsys::heap}, {"rma", Subsys::rma},
    {"sync", Subsys::sync}, {"node", Subsys::node},           {"env", Subsys::env},   {"net", Subsys::net},
    {"all", Subsys::all}};

unsigned parse_subsystems(const char *text) {
  if (text == nullptr || *text == '\0') return static_cast<unsigned>(Subsys::all);
  unsigned mask = 0;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s", text);
  char *save = nullptr;
  for (char *tok = strtok_r(buf, ",", &save); tok != nullptr; tok = strtok_r(nullptr, ",", &save)) {
    for (const auto &s : kSubsysNames)
      if (strcasecmp(tok, s.name) == 0) mask |= static_cast<unsigned>(s.bit);
  }
  return mask == 0 ? static_cast<unsigned>(Subsys::all) : mask;
}

}  // namespace

bool parse_level(const char *text, Level *out) {
  for (int l = 0; l <= static_cast<int>(Level::trace); ++l) {
    if (strcasecmp(text, level_name(static_cast<Level>(l))) == 0) {
      *out = static_cast<Level>(l);
      return true;
    }
  }
  return false;
}

void configure(const char *level, const char *subsystems) {
  Level l = Level::warn;
  if (level != nullptr && *level != '\0' && !parse_level(level, &l)) {
    std::fprintf(stderr,
                 "gpushmem WARN: GPUSHMEM_DEBUG='%s' is not one of ERROR, WARN, INFO, DEBUG, TRACE; using WARN\n",
                 level);
  }
  g_level.store(static_cast<int>(l), std::memory_order_relaxed);
  g_subsys.store(parse_subsystems(subsystems), std::memory_order_relaxed);
}

void set_pe(int pe) {
  g_pe.store(pe, std::memory_order_relaxed);
}

bool enabled(Level level, Subsys subsys) {
  if (static_cast<int>(level) > g_level.load(std::memory_order_relaxed)) return false;
  // Errors and warnings always print whatever the subsystem filter says.
  if (level <= Level::warn) return true;
  return (g_subsys.load(std::memory_order_relaxed) & static_cast<unsigned>(subsys)) != 0;
}

void vwrite(Level level, Subsys, const char *fmt, va_list ap) {
  char line[2048];
  int pe = g_pe.load(std::memory_order_relaxed);
  int n = pe >= 0 ? std::snprintf(line, sizeof line, "gpushmem[PE %d] %s: ", pe, level_name(level))
                  : std::snprintf(line, sizeof line, "gpushmem %s: ", level_name(level));
  if (n < 0) return;
  int m = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n) - 1, fmt, ap);
  size_t len = static_cast<size_t>(n) + (m < 0 ? 0 : static_cast<size_t>(m));
  if (len > sizeof line - 2) len = sizeof line - 2;
  line[len++] = '\n';
  // One write() per line so lines from concurrent PEs and threads do not interleave.
  ssize_t ignored = ::write(STDERR_FILENO, line, len);
  (void)ignored;
}

void write(Level level, Subsys subsys, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite(level, subsys, fmt, ap);
  va_end(ap);
}

}  // namespace gpushmem::log
