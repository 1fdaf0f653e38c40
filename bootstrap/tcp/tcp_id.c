#include "tcp_id.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int tcp_id_parse(const char *text, tcp_id_t *out) {
  if (text == NULL || out == NULL) return -1;
  size_t plen = strlen(TCP_ID_PREFIX);
  if (strncmp(text, TCP_ID_PREFIX, plen) != 0) return -1;
  const char *p = text + plen;
  const char *colon = strchr(p, ':');
  if (colon == NULL || colon == p || (size_t)(colon - p) >= 16) return -1;
  char host[16];
  memcpy(host, p, (size_t)(colon - p));
  host[colon - p] = '\0';
  struct in_addr a;
  if (inet_pton(AF_INET, host, &a) != 1) return -1;

  unsigned long port = 0;
  const char *q = colon + 1;
  int digits = 0;
  for (; *q >= '0' && *q <= '9' && digits < 6; ++q, ++digits) port = port * 10 + (unsigned long)(*q - '0');
  if (digits == 0 || port == 0 || port > 65535 || *q != '/') return -1;

  uint64_t cookie = 0;
  ++q;
  for (int i = 0; i < 16; ++i, ++q) {
    int v;
    if (*q >= '0' && *q <= '9')
      v = *q - '0';
    else if (*q >= 'a' && *q <= 'f')
      v = *q - 'a' + 10;
    else if (*q >= 'A' && *q <= 'F')
      v = *q - 'A' + 10;
    else
      return -1;
    cookie = (cookie << 4) | (uint64_t)v;
  }
  if (*q != '\0') return -1;

  out->addr_be = a.s_addr;
  out->port = (uint16_t)port;
  out->cookie = cookie;
  snprintf(out->addr_text, sizeof out->addr_text, "%s:%lu", host, port);
  return 0;
}

int tcp_id_format(char *buf, size_t cap, const char *ipv4, uint16_t port, uint64_t cookie) {
  struct in_addr a;
  if (buf == NULL || ipv4 == NULL || inet_pton(AF_INET, ipv4, &a) != 1) return -1;
  int n = snprintf(buf, cap, TCP_ID_PREFIX "%s:%u/%016" PRIx64, ipv4, (unsigned)port, cookie);
  return n < 0 || (size_t)n >= cap ? -1 : n;
}
