#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tcp_state.h"

void tcp_log(const tcp_state_t *st, int level, const char *fmt, ...) {
  char msg[TCP_WIRE_MAX_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (st != NULL && st->log != NULL) {
    st->log(level, "tcp", msg);
    return;
  }
  static const char *const names[] = {"ERROR", "WARN", "INFO"};
  const char *lvl = level >= 0 && level <= 2 ? names[level] : "INFO";
  char line[sizeof msg + 64];
  int n = snprintf(line, sizeof line, "gpushmem[PE %d] %s tcp: %s\n", st != NULL ? st->rank : -1, lvl, msg);
  if (n > 0) {
    ssize_t ignored = write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    (void)ignored;
  }
}

void tcp_say(const tcp_state_t *st, const char *fmt, ...) {
  char line[TCP_WIRE_MAX_TEXT + 64];
  int n = snprintf(line, sizeof line, "gpushmem[PE %d]: ", st->rank);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
  va_end(ap);
  size_t len = strlen(line);
  line[len++] = '\n';
  /* One write, so lines from several PEs sharing a terminal do not interleave. */
  ssize_t ignored = write(STDERR_FILENO, line, len);
  (void)ignored;
}

void tcp_exit_now(int status) {
  fflush(NULL); /* the application's buffered output is part of what the user needs to see */
  _exit(status);
}

void tcp_format_ranks(char *buf, size_t cap, const unsigned char *flags, int n, int want) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n;) {
    if ((flags[i] != 0) != (want != 0)) {
      ++i;
      continue;
    }
    int j = i;
    while (j + 1 < n && (flags[j + 1] != 0) == (want != 0)) ++j;
    int w = j > i ? snprintf(buf + used, cap - used, "%s%d-%d", used ? ", " : "", i, j)
                  : snprintf(buf + used, cap - used, "%s%d", used ? ", " : "", i);
    if (w < 0 || (size_t)w >= cap - used) {
      if (cap > 4) strcpy(buf + cap - 4, "...");
      return;
    }
    used += (size_t)w;
    i = j + 1;
  }
}
