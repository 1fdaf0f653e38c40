/*
 * host_ucx_floor: what UCX itself costs between PE 0 and PE 1, through the plain UCP API in a UCP context of
 * this program's own (the UCX library gpushmem loads, GPUSHMEM_UCX_LIBRARY, with the same UCX_* settings),
 * in microseconds per operation. These are the floors under the library's operations over UCX, and under
 * any other OpenSHMEM on the same UCX transport, measured in the same run (docs/perftest.md).
 *   -a OP (or all, the default):
 *   put_flush    SIZE-byte ucp_put_nbx, then ucp_worker_flush_nbx waited for   (putmem + quiet)
 *   get          SIZE-byte ucp_get_nbx waited for                             (getmem)
 *   fetch_add    8-byte ucp_atomic_op_nbx(ADD) with its reply waited for      (atomic_fetch_add)
 *   am_stream    eager active messages of SIZE bytes back to back, one way; per message, until the target
 *                has handled the last                                        (a pushed broadcast)
 *   am_exchange  both PEs send a SIZE-byte eager active message and wait for the other's
 *                                                                            (a 2-PE barrier, reduction)
 *   am_pingpong  a SIZE-byte eager active message and its echo, half the round trip
 *   am_rndv      a SIZE-byte active message by rendezvous, received in place, each waited for
 *                                                                            (a flat broadcast's data)
 *   put_stream   SIZE-byte ucp_put_nbx back to back, one worker flush after the last; per put
 *                                                                            (putmem_nbi bandwidth)
 * The OpenSHMEM calls only start the run, exchange the workers' addresses and rkeys, and separate phases.
 * Checks: the target compares the bytes of every size's last put and message with the pattern; PE 0
 * compares every get's.
 */
#include <dlfcn.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucp/api/ucp.h>

#include "perf_host.h"

/* The UCP calls this program makes, loaded from the library at run time (as gpushmem does). */
#define FLOOR_UCX_CALLS(X)          \
  X(ucp_config_read)                \
  X(ucp_config_modify)              \
  X(ucp_config_release)             \
  X(ucp_init_version)               \
  X(ucp_cleanup)                    \
  X(ucp_worker_create)              \
  X(ucp_worker_destroy)             \
  X(ucp_worker_get_address)         \
  X(ucp_worker_release_address)     \
  X(ucp_worker_progress)            \
  X(ucp_worker_flush_nbx)           \
  X(ucp_ep_create)                  \
  X(ucp_ep_close_nbx)               \
  X(ucp_ep_rkey_unpack)             \
  X(ucp_rkey_destroy)               \
  X(ucp_rkey_pack)                  \
  X(ucp_rkey_buffer_release)        \
  X(ucp_mem_map)                    \
  X(ucp_mem_unmap)                  \
  X(ucp_put_nbx)                    \
  X(ucp_get_nbx)                    \
  X(ucp_atomic_op_nbx)              \
  X(ucp_am_send_nbx)                \
  X(ucp_worker_set_am_recv_handler) \
  X(ucp_am_recv_data_nbx)           \
  X(ucp_request_check_status)       \
  X(ucp_request_free)               \
  X(ucs_status_string)
static struct {
#define FLOOR_MEMBER(name) __typeof__(&name) name;
  FLOOR_UCX_CALLS(FLOOR_MEMBER)
#undef FLOOR_MEMBER
} U;

enum { PUT_FLUSH, GET, FETCH_ADD, AM_STREAM, AM_EXCHANGE, AM_PINGPONG, AM_RNDV, PUT_STREAM, N_OPS };
static const char *const ops[] = {"put_flush",   "get",     "fetch_add",  "am_stream", "am_exchange",
                                  "am_pingpong", "am_rndv", "put_stream", "all",       NULL};
enum { AM_DATA = 1, AM_ECHO = 2, AM_STOP = 3 }; /* active-message ids */

typedef struct floor_ctx {
  perf_host *h;
  int op;
  size_t size;
  ucp_context_h context;
  ucp_worker_h worker;
  ucp_ep_h ep; /* to the other PE of the pair */
  ucp_mem_h memh;
  ucp_rkey_h rkey; /* the other PE's buffer */
  uint64_t remote; /* its address */
  char *buf;       /* this PE's registered buffer (max_bytes) */
  char *src;       /* what this PE sends (max_bytes, the pattern) */
  volatile uint64_t received, stop;
  uint64_t sent;
  uint64_t fetched;
  long bad;
} floor_ctx;

static void floor_die(const char *what, ucs_status_t st) {
  fprintf(stderr, "host_ucx_floor: PE %d: %s failed: %s\n", shmem_my_pe(), what, U.ucs_status_string(st));
  shmem_global_exit(1);
}

/* Waits for a request (NULL: already complete) while progressing the worker. */
static void floor_wait(floor_ctx *c, void *req, const char *what) {
  if (req == NULL) return;
  if (UCS_PTR_IS_ERR(req)) floor_die(what, UCS_PTR_STATUS(req));
  ucs_status_t st;
  while ((st = U.ucp_request_check_status(req)) == UCS_INPROGRESS) U.ucp_worker_progress(c->worker);
  U.ucp_request_free(req);
  if (st != UCS_OK) floor_die(what, st);
}

static void floor_send(floor_ctx *c, unsigned id, size_t bytes, uint32_t flags, int wait) {
  ucp_request_param_t p;
  memset(&p, 0, sizeof p);
  p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  p.flags = flags;
  void *req = U.ucp_am_send_nbx(c->ep, id, NULL, 0, c->src, bytes, &p);
  if (wait) return floor_wait(c, req, "ucp_am_send_nbx");
  if (UCS_PTR_IS_ERR(req)) floor_die("ucp_am_send_nbx", UCS_PTR_STATUS(req));
  if (req != NULL) U.ucp_request_free(req); /* completes in the background: c->src never changes */
}

static void floor_check(floor_ctx *c, const void *p, size_t n, const char *what) {
  c->bad += perf_check(c->h, p, n, (uint32_t)c->size, what);
}

static void on_recv_data(void *req, ucs_status_t st, size_t length, void *arg) {
  floor_ctx *c = (floor_ctx *)arg;
  (void)length;
  if (st != UCS_OK) floor_die("ucp_am_recv_data_nbx", st);
  c->received++;
  U.ucp_request_free(req);
}

static ucs_status_t on_am(void *arg, const void *header, size_t header_length, void *data, size_t length,
                          const ucp_am_recv_param_t *param) {
  floor_ctx *c = (floor_ctx *)arg;
  (void)header;
  (void)header_length;
  if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p.cb.recv_am = on_recv_data;
    p.user_data = c;
    void *req = U.ucp_am_recv_data_nbx(c->worker, data, c->buf, length, &p);
    if (req == NULL) c->received++;
    if (UCS_PTR_IS_ERR(req)) floor_die("ucp_am_recv_data_nbx", UCS_PTR_STATUS(req));
    return UCS_OK;
  }
  if (length != 0) memcpy(c->buf, data, length); /* what a receiver does with a message */
  c->received++;
  return UCS_OK;
}
static ucs_status_t on_stop(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param) {
  (void)header, (void)header_length, (void)data, (void)length, (void)param;
  ((floor_ctx *)arg)->stop = 1;
  return UCS_OK;
}

/* One timed call: n operations of c->op from this PE. */
static void floor_run(void *p, int n) {
  floor_ctx *c = (floor_ctx *)p;
  ucp_request_param_t rp;
  memset(&rp, 0, sizeof rp);
  for (int i = 0; i < n; ++i) {
    switch (c->op) {
      case PUT_FLUSH:
        floor_wait(c, U.ucp_put_nbx(c->ep, c->src, c->size, c->remote, c->rkey, &rp), "ucp_put_nbx");
        floor_wait(c, U.ucp_worker_flush_nbx(c->worker, &rp), "ucp_worker_flush_nbx");
        break;
      case GET:
        floor_wait(c, U.ucp_get_nbx(c->ep, c->buf, c->size, c->remote, c->rkey, &rp), "ucp_get_nbx");
        break;
      case FETCH_ADD: {
        ucp_request_param_t ap;
        uint64_t one = 1;
        memset(&ap, 0, sizeof ap);
        ap.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        ap.datatype = ucp_dt_make_contig(8);
        ap.reply_buffer = &c->fetched;
        floor_wait(c, U.ucp_atomic_op_nbx(c->ep, UCP_ATOMIC_OP_ADD, &one, 1, c->remote, c->rkey, &ap),
                   "ucp_atomic_op_nbx");
        break;
      }
      case AM_STREAM:
        floor_send(c, AM_DATA, c->size, UCP_AM_SEND_FLAG_EAGER, 0);
        c->sent++;
        break;
      case AM_EXCHANGE:
        floor_send(c, AM_DATA, c->size, UCP_AM_SEND_FLAG_EAGER, 0);
        c->sent++;
        while (c->received < c->sent) U.ucp_worker_progress(c->worker);
        break;
      case AM_PINGPONG: {
        const uint64_t want = c->received + 1;
        floor_send(c, AM_DATA, c->size, UCP_AM_SEND_FLAG_EAGER, 0);
        while (c->received < want) U.ucp_worker_progress(c->worker);
        break;
      }
      case AM_RNDV:
        floor_send(c, AM_DATA, c->size, UCP_AM_SEND_FLAG_RNDV, 1);
        break;
      case PUT_STREAM: {
        void *req = U.ucp_put_nbx(c->ep, c->src, c->size, c->remote, c->rkey, &rp);
        if (UCS_PTR_IS_ERR(req)) floor_die("ucp_put_nbx", UCS_PTR_STATUS(req));
        if (req != NULL) U.ucp_request_free(req); /* the flush below waits for it: c->src never changes */
        break;
      }
    }
  }
  if (c->op == PUT_STREAM) floor_wait(c, U.ucp_worker_flush_nbx(c->worker, &rp), "ucp_worker_flush_nbx");
  if (c->op == AM_STREAM) { /* until the target has handled them all: it echoes when it has */
    const uint64_t want = c->received + 1;
    ucp_request_param_t p;
    memset(&p, 0, sizeof p);
    floor_wait(c, U.ucp_am_send_nbx(c->ep, AM_ECHO, NULL, 0, &c->sent, sizeof c->sent, &p), "ucp_am_send_nbx");
    while (c->received < want) U.ucp_worker_progress(c->worker);
  }
}

/* PE 1 while PE 0 measures a one-sided operation: progresses (and echoes) until PE 0 says stop. */
static uint64_t echo_until;
static ucs_status_t on_echo(void *arg, const void *header, size_t header_length, void *data, size_t length,
                            const ucp_am_recv_param_t *param) {
  (void)header, (void)header_length, (void)param, (void)arg;
  if (length == sizeof(uint64_t)) memcpy(&echo_until, data, sizeof echo_until);
  return UCS_OK;
}
static void floor_serve(floor_ctx *c) {
  uint64_t echoed = 0;
  echo_until = 0;
  while (!c->stop) {
    U.ucp_worker_progress(c->worker);
    if (c->op == AM_PINGPONG && c->received > echoed) {
      floor_send(c, AM_DATA, c->size, UCP_AM_SEND_FLAG_EAGER, 0);
      echoed++;
    }
    if (c->op == AM_STREAM && echo_until != 0 && c->received >= echo_until) {
      floor_send(c, AM_DATA, 0, UCP_AM_SEND_FLAG_EAGER, 0); /* PE 0 counts it as received */
      echo_until = 0;
    }
  }
  c->stop = 0;
}

static void floor_load(void) {
  const char *lib = getenv("GPUSHMEM_UCX_LIBRARY");
  void *so = dlopen(lib != NULL && *lib != '\0' ? lib : "libucp.so.0", RTLD_NOW | RTLD_GLOBAL);
  if (so == NULL) {
    fprintf(stderr, "host_ucx_floor: cannot load UCX (%s): install libucx0 or set GPUSHMEM_UCX_LIBRARY\n", dlerror());
    exit(2);
  }
#define FLOOR_LOAD(name)                                                                    \
  if ((*(void **)&U.name = dlsym(so, #name)) == NULL) {                                     \
    fprintf(stderr, "host_ucx_floor: UCX lacks %s (UCX 1.10 or later is needed)\n", #name); \
    exit(2);                                                                                \
  }
  FLOOR_UCX_CALLS(FLOOR_LOAD)
#undef FLOOR_LOAD
}

/* The pair's UCP set-up: context, worker, handlers, the registered buffer, and the exchange of address,
   buffer address and rkey with the other PE through symmetric memory. */
static void floor_setup(floor_ctx *c, size_t max_bytes) {
  ucp_config_t *config;
  ucs_status_t st = U.ucp_config_read(NULL, NULL, &config);
  if (st != UCS_OK) floor_die("ucp_config_read", st);
  /* As the ucx transport configures its context: a worker flush waits for the operations' completions,
     without a flush round trip on every endpoint too. */
  if (getenv("UCX_FLUSH_WORKER_EPS") == NULL) (void)U.ucp_config_modify(config, "FLUSH_WORKER_EPS", "n");
  ucp_params_t params;
  memset(&params, 0, sizeof params);
  params.field_mask = UCP_PARAM_FIELD_FEATURES;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
  st = U.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &c->context);
  U.ucp_config_release(config);
  if (st != UCS_OK) floor_die("ucp_init", st);
  ucp_worker_params_t wp;
  memset(&wp, 0, sizeof wp);
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SINGLE;
  if ((st = U.ucp_worker_create(c->context, &wp, &c->worker)) != UCS_OK) floor_die("ucp_worker_create", st);
  ucp_am_recv_callback_t cbs[] = {on_am, on_echo, on_stop};
  for (unsigned id = AM_DATA; id <= AM_STOP; ++id) {
    ucp_am_handler_param_t hp;
    memset(&hp, 0, sizeof hp);
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS | UCP_AM_HANDLER_PARAM_FIELD_CB |
                    UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = id;
    hp.flags = UCP_AM_FLAG_WHOLE_MSG;
    hp.cb = cbs[id - AM_DATA];
    hp.arg = c;
    if ((st = U.ucp_worker_set_am_recv_handler(c->worker, &hp)) != UCS_OK) floor_die("set_am_recv_handler", st);
  }
  c->buf = (char *)perf_host_private(c->h, max_bytes);
  c->src = (char *)perf_host_private(c->h, max_bytes);
  memset(c->buf, 0, max_bytes);
  ucp_mem_map_params_t mp;
  memset(&mp, 0, sizeof mp);
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = c->buf;
  mp.length = max_bytes;
  if ((st = U.ucp_mem_map(c->context, &mp, &c->memh)) != UCS_OK) floor_die("ucp_mem_map", st);
  ucp_address_t *addr;
  size_t addr_len, rkey_len;
  void *rkey_buf;
  if ((st = U.ucp_worker_get_address(c->worker, &addr, &addr_len)) != UCS_OK) floor_die("get_address", st);
  if ((st = U.ucp_rkey_pack(c->context, c->memh, &rkey_buf, &rkey_len)) != UCS_OK) floor_die("ucp_rkey_pack", st);
  enum { SLOT = 8192 };
  if (addr_len + rkey_len + 3 * sizeof(uint64_t) > SLOT) {
    fprintf(stderr, "host_ucx_floor: the worker address and rkey take %zu bytes, more than %d\n", addr_len + rkey_len,
            SLOT);
    shmem_global_exit(1);
  }
  char *slot = (char *)perf_host_malloc(c->h, SLOT), *peer = (char *)perf_host_private(c->h, SLOT);
  uint64_t head[3] = {addr_len, rkey_len, (uint64_t)(uintptr_t)c->buf};
  memcpy(slot, head, sizeof head);
  memcpy(slot + sizeof head, addr, addr_len);
  memcpy(slot + sizeof head + addr_len, rkey_buf, rkey_len);
  U.ucp_worker_release_address(c->worker, addr);
  U.ucp_rkey_buffer_release(rkey_buf);
  shmem_barrier_all();
  shmem_getmem(peer, slot, SLOT, 1 - c->h->me);
  memcpy(head, peer, sizeof head);
  ucp_ep_params_t ep;
  memset(&ep, 0, sizeof ep);
  ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  ep.address = (const ucp_address_t *)(peer + sizeof head);
  if ((st = U.ucp_ep_create(c->worker, &ep, &c->ep)) != UCS_OK) floor_die("ucp_ep_create", st);
  if ((st = U.ucp_ep_rkey_unpack(c->ep, peer + sizeof head + head[0], &c->rkey)) != UCS_OK)
    floor_die("ucp_ep_rkey_unpack", st);
  c->remote = head[2];
  shmem_barrier_all();
  shmem_free(slot);
  free(peer);
}

static void floor_teardown(floor_ctx *c) {
  U.ucp_rkey_destroy(c->rkey);
  ucp_request_param_t p;
  memset(&p, 0, sizeof p);
  floor_wait(c, U.ucp_ep_close_nbx(c->ep, &p), "ucp_ep_close_nbx"); /* both PEs close, progressing */
  U.ucp_mem_unmap(c->context, c->memh);
  U.ucp_worker_destroy(c->worker);
  U.ucp_cleanup(c->context);
  free(c->buf);
  free(c->src);
}

int main(int argc, char **argv) {
  perf_opts o;
  perf_opts_defaults(&o);
  o.max_bytes = 8;
  o.iters = 1000;
  o.warmup = 100;
  o.op = "all";
  perf_opts_parse(
      argc, argv, "befnwra",
      "-a put_flush | get | fetch_add | am_stream | am_exchange | am_pingpong | am_rndv | put_stream | all (default "
      "all)",
      &o);
  const int which = perf_opts_choose(o.prog, 'a', o.op, ops);
  floor_load();
  /* The library's progress thread would compete with the loops measured here for the cores; its waits
     progress by themselves. */
  setenv("GPUSHMEM_PROGRESS_THREAD", "off", 0);
  perf_host h;
  perf_host_start(&h, &o, "host_ucx_floor", 2, 0);
  floor_ctx c;
  memset(&c, 0, sizeof c);
  c.h = &h;
  const int active = h.me < 2;
  if (active) floor_setup(&c, o.max_bytes > 8 ? o.max_bytes : 8);
  for (int op = 0; op < N_OPS; ++op) {
    if (which != N_OPS && which != op) continue;
    for (size_t size = op == FETCH_ADD ? 8 : o.min_bytes; size != 0; size = perf_next_size(&o, size)) {
      if (op == FETCH_ADD && size != 8) break;
      c.op = op;
      c.size = size;
      c.received = c.sent = 0;
      c.bad = 0;
      if (active) perf_fill(c.src, size, (uint32_t)size);
      if (h.me == 1 && op == GET) memcpy(c.buf, c.src, size);
      shmem_barrier_all();
      perf_summary value;
      memset(&value, 0, sizeof value);
      if (h.me == 0 || (h.me == 1 && op == AM_EXCHANGE)) value = perf_host_time_us(&h, floor_run, &c);
      if (h.me == 0) floor_send(&c, AM_STOP, 0, UCP_AM_SEND_FLAG_EAGER, 1);
      if (h.me == 1) {
        if (op == AM_EXCHANGE) {
          while (!c.stop) U.ucp_worker_progress(c.worker); /* PE 0's stop, after its last exchange */
          c.stop = 0;
        } else {
          floor_serve(&c);
        }
        if (op != GET && op != FETCH_ADD) floor_check(&c, c.buf, size, "UCX's delivery to PE 1");
        const uint64_t ops_done = (uint64_t)o.warmup + (uint64_t)o.iters * (uint64_t)o.repeats;
        uint64_t word;
        memcpy(&word, c.buf, sizeof word);
        if (op == FETCH_ADD && word != ops_done) {
          fprintf(stderr, "host_ucx_floor: PE 1's word after %llu fetch_adds is %llu\n", (unsigned long long)ops_done,
                  (unsigned long long)word);
          c.bad++;
        }
      }
      if (h.me == 0 && op == GET) floor_check(&c, c.buf, size, "UCX get into PE 0");
      shmem_barrier_all();
      if (active) {
        for (int i = 0; i < 100; ++i) U.ucp_worker_progress(c.worker);
        memset(c.buf, 0, size > 8 ? size : 8);
      }
      perf_point p;
      memset(&p, 0, sizeof p);
      p.size = size;
      p.type = "";
      p.op = ops[op];
      p.scope = "ucx";
      p.metric = "lat_us";
      p.value = value;
      if (op == AM_PINGPONG && value.valid) p.value.median /= 2, p.value.min /= 2, p.value.max /= 2;
      p.errors = perf_host_errors(&h, c.bad);
      perf_report(&h, &p);
    }
  }
  shmem_barrier_all();
  if (active) floor_teardown(&c);
  return perf_host_finish(&h);
}
