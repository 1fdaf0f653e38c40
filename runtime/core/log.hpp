// The one logger. Level from GPUSHMEM_DEBUG (ERROR, WARN, INFO, DEBUG, TRACE), subsystems from
// GPUSHMEM_DEBUG_SUBSYS (comma list or "all"). Every line names the PE and, for errors, the call.
#pragma once

#include <cstdarg>

namespace gpushmem::log {

enum class Level : int { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };
enum class Subsys : unsigned {
  init = 1u << 0,
  bootstrap = 1u << 1,
  heap = 1u << 2,
  rma = 1u << 3,
  sync = 1u << 4,
  node = 1u << 5,
  env = 1u << 6,
  net = 1u << 7,  // network transports (transports/ucx)
  all = ~0u
};

// Reads GPUSHMEM_DEBUG / GPUSHMEM_DEBUG_SUBSYS through the env table. Safe to call more than once.
void configure(const char *level, const char *subsystems);
// The PE number printed in every line (-1 before the bootstrap knows it).
void set_pe(int pe);

bool enabled(Level level, Subsys subsys);
[[gnu::format(printf, 3, 4)]] void write(Level level, Subsys subsys, const char *fmt, ...);
void vwrite(Level level, Subsys subsys, const char *fmt, va_list ap);

// Parses a level name; returns false on an unknown name.
bool parse_level(const char *text, Level *out);

}  // namespace gpushmem::log

#define GPUSHMEM_LOG(level, subsys, ...)                                                             \
  do {                                                                                               \
    if (::gpushmem::log::enabled(level, subsys)) ::gpushmem::log::write(level, subsys, __VA_ARGS__); \
  } while (0)
#define GPUSHMEM_LOG_ERROR(subsys, ...) GPUSHMEM_LOG(::gpushmem::log::Level::error, subsys, __VA_ARGS__)
#define GPUSHMEM_LOG_WARN(subsys, ...) GPUSHMEM_LOG(::gpushmem::log::Level::warn, subsys, __VA_ARGS__)
#define GPUSHMEM_LOG_INFO(subsys, ...) GPUSHMEM_LOG(::gpushmem::log::Level::info, subsys, __VA_ARGS__)
#define GPUSHMEM_LOG_DEBUG(subsys, ...) GPUSHMEM_LOG(::gpushmem::log::Level::debug, subsys, __VA_ARGS__)
