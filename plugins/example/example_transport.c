/*
 * xshmem example transport: a complete PROXY-mode transport over TCP sockets, in plain C.
 *
 * It is the code docs/writing-a-transport.md walks through. It builds out of tree against the
 * installed SDK only (find_package(xshmem) and xshmem::plugin_sdk: headers, no libxshmem), so it
 * is also the test that the installed SDK is complete.
 *
 * How it works:
 *   - init: every PE listens on 127.0.0.1 (a kernel-chosen port) and the ports are exchanged
 *     through the services table's allgather.
 *   - connect: every PE opens one connection per (channel, selected peer), itself included,
 *     and accepts the same number of connections from its peers. One receiver thread per PE
 *     serves all incoming connections: it executes each request on this PE's own heap, in
 *     arrival order, and answers the requests that ask for it (get: the bytes; fetching
 *     atomics: the old value; flush: an acknowledgement).
 *   - data operations (xshmem_transport_data_ops_v1_t): the calling thread writes a request to
 *     the target's connection of its channel. put returns once the bytes are in the socket (the
 *     source may be reused); get and fetching atomics wait for their answer. quiet sends a flush
 *     on every connection of the channel with unanswered requests and waits for its answer:
 *     requests execute in order, so that answer acknowledges every earlier request of the
 *     connection. One TCP connection per (channel, target) and one thread executing its
 *     requests in order make puts arrive in issue order, so fence has nothing to do.
 *   - failures: a reply that does not come within XSHMEM_EXAMPLE_TIMEOUT, or a connection that
 *     closes without the peer having said goodbye, is an error naming the peer, returned by the
 *     failing operation and by error_query.
 *   - shutdown: heap_deregister completes everything, waits for every PE (barrier) and sends
 *     BYE on each connection; finalize stops the receiver thread.
 *
 * It serves host heaps of PEs on one host (it binds to 127.0.0.1 only): CPU PEs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <xshmem/plugin/transport_v1.h>

#define SUBSYS "example"
#define LOG(lvl, ...) XSHMEM_PLOG(g_svc, (lvl), SUBSYS, __VA_ARGS__)

/* Puts up to this size go out as one write with their request header. */
#define SMALL_PUT 4096

static const xshmem_core_services_v1_t *g_svc; /* set by load; valid until the process ends */

/* ---- Configuration: one table, registered in load, read in init ---- */
/* Fields: name, type, default, choices (ENUM and LIST only), one-sentence doc. */
static const xshmem_config_entry_v1_t k_config[] = {
    {"XSHMEM_EXAMPLE_TIMEOUT", XSHMEM_CONFIG_DURATION, "10s", NULL,
     "Longest wait of the example transport for a peer's connection or reply; a peer silent for "
     "longer is reported as failed."},
};

/* ---- The wire: fixed-size little structs, in the host's byte order (one host only) ---- */
enum { OP_PUT = 1, OP_GET = 2, OP_AMO = 3, OP_PUT_SIGNAL = 4, OP_FLUSH = 5, OP_BYE = 6 };

typedef struct hello { /* the first bytes of every connection */
  uint32_t magic;      /* HELLO_MAGIC */
  int32_t from_pe;
  int32_t channel;
  char token[64]; /* the job token: a stranger on the port is turned away */
} hello_t;
#define HELLO_MAGIC 0x58455831u /* "XEX1" */

typedef struct request { /* put and put_signal are followed by nbytes of data */
  uint32_t op;           /* OP_* */
  uint32_t sub;          /* OP_AMO: xshmem_amo_op_t; OP_PUT_SIGNAL: sig_op */
  uint32_t type;         /* OP_AMO: xshmem_amo_type_t */
  uint32_t reply;        /* 1: the issuer waits for an answer (get, fetching atomics, flush) */
  uint64_t offset;       /* in the target's heap */
  uint64_t nbytes;
  uint64_t operand; /* OP_AMO: the operand; OP_PUT_SIGNAL: the signal value */
  uint64_t extra;   /* OP_AMO: the compare value; OP_PUT_SIGNAL: the signal's offset */
} request_t;

typedef struct reply { /* the answer to a request with reply = 1 */
  int32_t status;      /* the first failure of this or an earlier request since the last answer */
  uint32_t pad;
  uint64_t value;  /* OP_AMO: the old value */
  uint64_t nbytes; /* OP_GET: the bytes that follow */
} reply_t;

/* ---- State ---- */
typedef struct out_conn { /* this PE -> peer, one per (channel, peer) */
  int fd;                 /* -1: not connected */
  int dirty;              /* requests were sent since the last answer (quiet must flush) */
} out_conn_t;

typedef struct example {
  int me, n, nch;
  int timeout_ms;
  const char *token;
  int listen_fd;
  uint16_t *ports; /* [n] */
  char *heap;      /* this PE's heap, as registered */
  size_t heap_size;
  out_conn_t *out;          /* [nch * n] */
  pthread_mutex_t *chan_mu; /* [nch]: the ABI allows one thread per channel; this makes sure */
  int *in_fd, *in_pe, n_in; /* incoming connections (the receiver thread's) */
  int *in_err;              /* per incoming connection: a refused request, for the next answer */
  pthread_t rx;
  int rx_started;
  int wake[2]; /* finalize writes to wake[1] to stop the receiver thread */
  pthread_mutex_t err_mu;
  int err_status; /* the first asynchronous failure, for error_query */
  char err[200];
} example_t;

/* Records the first asynchronous failure (error_query reports it) and logs it. */
static void set_error(example_t *ex, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_error(example_t *ex, int status, const char *fmt, ...) {
  char line[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  LOG(XSHMEM_LOG_ERROR, "%s (pe %d)", line, ex->me);
  pthread_mutex_lock(&ex->err_mu);
  if (ex->err_status == XSHMEM_SUCCESS) {
    ex->err_status = status;
    snprintf(ex->err, sizeof ex->err, "%s", line);
  }
  pthread_mutex_unlock(&ex->err_mu);
}

/* ---- Socket helpers: whole buffers, with a deadline ---- */
static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until fd is readable (POLLIN) or writable (POLLOUT) or the deadline passes. */
static xshmem_status_t wait_fd(int fd, short events, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left <= 0) return XSHMEM_ERR_TIMEOUT;
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, (int)left);
    if (r > 0) return XSHMEM_SUCCESS; /* ready, or an error the next call reports */
    if (r < 0 && errno != EINTR) return XSHMEM_ERR_IO;
  }
}

/* Reads exactly len bytes. XSHMEM_ERR_PEER_FAILED: the peer closed the connection. */
static xshmem_status_t read_full(int fd, void *buf, size_t len, int timeout_ms) {
  char *p = buf;
  const int64_t deadline = now_ms() + timeout_ms;
  while (len > 0) {
    ssize_t r = recv(fd, p, len, MSG_DONTWAIT);
    if (r > 0) {
      p += r;
      len -= (size_t)r;
    } else if (r == 0) {
      return XSHMEM_ERR_PEER_FAILED;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      xshmem_status_t st = wait_fd(fd, POLLIN, deadline);
      if (st != XSHMEM_SUCCESS) return st;
    } else if (errno != EINTR) {
      return errno == ECONNRESET ? XSHMEM_ERR_PEER_FAILED : XSHMEM_ERR_IO;
    }
  }
  return XSHMEM_SUCCESS;
}

/* Writes exactly len bytes (MSG_NOSIGNAL: a closed peer is EPIPE, not SIGPIPE). */
static xshmem_status_t write_full(int fd, const void *buf, size_t len, int timeout_ms) {
  const char *p = buf;
  const int64_t deadline = now_ms() + timeout_ms;
  while (len > 0) {
    ssize_t r = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (r > 0) {
      p += r;
      len -= (size_t)r;
    } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      xshmem_status_t st = wait_fd(fd, POLLOUT, deadline);
      if (st != XSHMEM_SUCCESS) return st;
    } else if (r < 0 && errno != EINTR) {
      return (errno == EPIPE || errno == ECONNRESET) ? XSHMEM_ERR_PEER_FAILED : XSHMEM_ERR_IO;
    }
  }
  return XSHMEM_SUCCESS;
}

static const char *why(xshmem_status_t st) {
  switch (st) {
    case XSHMEM_ERR_PEER_FAILED:
      return "the connection was closed (did the peer die?)";
    case XSHMEM_ERR_TIMEOUT:
      return "no answer within XSHMEM_EXAMPLE_TIMEOUT";
    case XSHMEM_ERR_INVALID:
      return "the target refused the request (out of its heap?)";
    default:
      return "a socket call failed";
  }
}

/* ---- The target side: executing requests on this PE's heap ---- */

/* One atomic on the heap word p, with the CPU's atomic instructions, so it is atomic with
 * respect to every other atomic on that word (the hostshm transport's included). 4- and 8-byte
 * words; floating-point types only fetch, set and swap, which move bits. Returns the old value. */
// clang-format off
#define AMO_ON(T, p, op, v, cmp, old)                                                        \
  do {                                                                                       \
    T *w = (T *)(p), x = (T)(v), e = (T)(cmp);                                               \
    switch (op) {                                                                            \
      case XSHMEM_AMO_FETCH: old = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;              \
      case XSHMEM_AMO_SET: __atomic_store_n(w, x, __ATOMIC_SEQ_CST); break;                  \
      case XSHMEM_AMO_SWAP: old = __atomic_exchange_n(w, x, __ATOMIC_SEQ_CST); break;        \
      case XSHMEM_AMO_COMPARE_SWAP:                                                          \
        __atomic_compare_exchange_n(w, &e, x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
        old = e;                                                                             \
        break;                                                                               \
      case XSHMEM_AMO_ADD: case XSHMEM_AMO_FETCH_ADD:                                        \
        old = __atomic_fetch_add(w, x, __ATOMIC_SEQ_CST); break;                             \
      case XSHMEM_AMO_AND: case XSHMEM_AMO_FETCH_AND:                                        \
        old = __atomic_fetch_and(w, x, __ATOMIC_SEQ_CST); break;                             \
      case XSHMEM_AMO_OR: case XSHMEM_AMO_FETCH_OR:                                          \
        old = __atomic_fetch_or(w, x, __ATOMIC_SEQ_CST); break;                              \
      case XSHMEM_AMO_XOR: case XSHMEM_AMO_FETCH_XOR:                                        \
        old = __atomic_fetch_xor(w, x, __ATOMIC_SEQ_CST); break;                             \
    }                                                                                        \
  } while (0)
// clang-format on

static int amo_width(uint32_t type) {
  return (type == XSHMEM_AMO_U32 || type == XSHMEM_AMO_I32 || type == XSHMEM_AMO_F32) ? 4 : 8;
}

/* Whether [offset, offset + len) lies in this PE's heap. */
static int in_heap(const example_t *ex, uint64_t offset, uint64_t len) {
  return offset <= ex->heap_size && len <= ex->heap_size - offset;
}

/* Reads and drops len bytes (the data of a request the target refused). */
static xshmem_status_t discard(example_t *ex, int fd, uint64_t len) {
  char sink[4096];
  while (len > 0) {
    size_t k = len < sizeof sink ? (size_t)len : sizeof sink;
    xshmem_status_t st = read_full(fd, sink, k, ex->timeout_ms);
    if (st != XSHMEM_SUCCESS) return st;
    len -= k;
  }
  return XSHMEM_SUCCESS;
}

/* Executes one request from incoming connection i and answers it if asked to. A request the
 * target refuses (bytes outside its heap) is remembered and reported by the next answer on that
 * connection. Returns 1 when the peer said goodbye, 0 for a request served, a negative status
 * when the connection broke. */
static int serve_one(example_t *ex, int i) {
  const int fd = ex->in_fd[i];
  request_t q;
  xshmem_status_t st = read_full(fd, &q, sizeof q, ex->timeout_ms);
  if (st != XSHMEM_SUCCESS) return st;
  reply_t r = {.status = XSHMEM_SUCCESS};
  const void *data = NULL; /* what the answer carries after its header (get) */
  int bad = 0;             /* the request names bytes outside the heap */
  switch (q.op) {
    case OP_BYE:
      return 1;
    case OP_FLUSH:
      break;
    case OP_PUT:
    case OP_PUT_SIGNAL:
      bad = !in_heap(ex, q.offset, q.nbytes) ||
            (q.op == OP_PUT_SIGNAL && (!in_heap(ex, q.extra, 8) || q.extra % 8 != 0));
      if (bad) {
        st = discard(ex, fd, q.nbytes);
        break;
      }
      st = read_full(fd, ex->heap + q.offset, q.nbytes, ex->timeout_ms); /* the data */
      if (st == XSHMEM_SUCCESS && q.op == OP_PUT_SIGNAL) {
        /* Then the signal, atomically: a PE that sees it sees the data too. */
        uint64_t *sig = (uint64_t *)(ex->heap + q.extra);
        if (q.sub == 1 /* XSHMEM_SIGNAL_ADD */)
          __atomic_fetch_add(sig, q.operand, __ATOMIC_SEQ_CST);
        else
          __atomic_store_n(sig, q.operand, __ATOMIC_SEQ_CST);
      }
      break;
    case OP_GET:
      bad = !in_heap(ex, q.offset, q.nbytes);
      if (!bad) {
        data = ex->heap + q.offset;
        r.nbytes = q.nbytes;
      }
      break;
    case OP_AMO: {
      const int width = amo_width(q.type);
      bad = !in_heap(ex, q.offset, (uint64_t)width) || q.offset % (uint64_t)width != 0 ||
            q.sub > XSHMEM_AMO_FETCH_XOR;
      if (bad) break;
      if (width == 4) {
        uint32_t old = 0;
        AMO_ON(uint32_t, ex->heap + q.offset, q.sub, q.operand, q.extra, old);
        r.value = old;
      } else {
        AMO_ON(uint64_t, ex->heap + q.offset, q.sub, q.operand, q.extra, r.value);
      }
      break;
    }
    default:
      LOG(XSHMEM_LOG_ERROR, "request with unknown op %u from pe %d; closing its connection (pe %d)",
          q.op, ex->in_pe[i], ex->me);
      return XSHMEM_ERR_INTERNAL;
  }
  if (st != XSHMEM_SUCCESS) return st;
  if (bad && ex->in_err[i] == XSHMEM_SUCCESS) ex->in_err[i] = XSHMEM_ERR_INVALID;
  if (!q.reply) return 0;
  r.status = ex->in_err[i];
  ex->in_err[i] = XSHMEM_SUCCESS;
  st = write_full(fd, &r, sizeof r, ex->timeout_ms);
  if (st == XSHMEM_SUCCESS && data != NULL) st = write_full(fd, data, r.nbytes, ex->timeout_ms);
  return st;
}

/* The receiver thread: waits on every incoming connection and serves whichever has a request. */
static void *receiver(void *arg) {
  example_t *ex = arg;
  struct pollfd *p = calloc((size_t)ex->n_in + 1, sizeof *p);
  int *idx = calloc((size_t)ex->n_in + 1, sizeof *idx);
  if (p == NULL || idx == NULL) {
    set_error(ex, XSHMEM_ERR_NOMEM, "receiver thread: out of memory");
    free(p);
    free(idx);
    return NULL;
  }
  for (;;) {
    int np = 0;
    p[np++] = (struct pollfd){.fd = ex->wake[0], .events = POLLIN};
    for (int i = 0; i < ex->n_in; ++i)
      if (ex->in_fd[i] >= 0) {
        idx[np] = i;
        p[np++] = (struct pollfd){.fd = ex->in_fd[i], .events = POLLIN};
      }
    if (poll(p, (nfds_t)np, -1) < 0 && errno != EINTR) break;
    if (p[0].revents) break; /* finalize */
    for (int k = 1; k < np; ++k) {
      if (!p[k].revents) continue;
      const int i = idx[k];
      int r = serve_one(ex, i);
      if (r == 0) continue;
      if (r < 0)
        set_error(ex, XSHMEM_ERR_PEER_FAILED,
                  "connection from pe %d lost while serving its requests: %s", ex->in_pe[i],
                  why(r));
      close(ex->in_fd[i]); /* goodbye, or broken */
      ex->in_fd[i] = -1;
    }
  }
  free(p);
  free(idx);
  return NULL;
}

/* ---- The issuing side ---- */

/* Sends request q, followed by q->nbytes of data when data is not NULL; a small put goes out
 * as one write. */
static xshmem_status_t send_request(example_t *ex, out_conn_t *c, const request_t *q,
                                    const void *data) {
  xshmem_status_t st;
  if (data != NULL && q->nbytes <= SMALL_PUT) {
    char buf[sizeof *q + SMALL_PUT];
    memcpy(buf, q, sizeof *q);
    memcpy(buf + sizeof *q, data, q->nbytes);
    st = write_full(c->fd, buf, sizeof *q + q->nbytes, ex->timeout_ms);
  } else {
    st = write_full(c->fd, q, sizeof *q, ex->timeout_ms);
    if (st == XSHMEM_SUCCESS && data != NULL)
      st = write_full(c->fd, data, q->nbytes, ex->timeout_ms);
  }
  if (st == XSHMEM_SUCCESS && !q->reply) c->dirty = 1;
  return st;
}

/* Waits for the answer to the request just sent: the target answers in order and only the
 * requests that ask for it, so the next answer on c is this one. It acknowledges every earlier
 * request of c too. A get's bytes go to dst. */
static xshmem_status_t wait_answer(example_t *ex, out_conn_t *c, reply_t *r, void *dst,
                                   size_t nbytes) {
  xshmem_status_t st = read_full(c->fd, r, sizeof *r, ex->timeout_ms);
  if (st == XSHMEM_SUCCESS && r->nbytes != 0)
    st = r->nbytes == nbytes ? read_full(c->fd, dst, nbytes, ex->timeout_ms) : XSHMEM_ERR_INTERNAL;
  if (st != XSHMEM_SUCCESS) return st;
  c->dirty = 0;
  return r->status;
}

/* The connection of (channel, pe), with the channel locked; NULL (and an error) if pe is not a
 * peer of this transport. */
static out_conn_t *begin(example_t *ex, int channel, int pe, const char *op) {
  if (pe < 0 || pe >= ex->n || channel < 0 || channel >= ex->nch ||
      ex->out[channel * ex->n + pe].fd < 0) {
    LOG(XSHMEM_LOG_ERROR, "%s: pe %d (channel %d) is not connected through this transport (pe %d)",
        op, pe, channel, ex->me);
    return NULL;
  }
  pthread_mutex_lock(&ex->chan_mu[channel]);
  return &ex->out[channel * ex->n + pe];
}

/* Unlocks the channel; a failure becomes one line naming the operation and the peer. */
static xshmem_status_t end(example_t *ex, int channel, int pe, const char *op, xshmem_status_t st) {
  pthread_mutex_unlock(&ex->chan_mu[channel]);
  if (st != XSHMEM_SUCCESS)
    set_error(ex, st, "%s to pe %d (channel %d) failed: %s", op, pe, channel, why(st));
  return st;
}

static xshmem_status_t ex_put(void *ctx, int channel, int pe, uint64_t remote_offset,
                              const void *src, size_t nbytes, uint32_t flags) {
  (void)flags; /* a sent put's source is reusable at once, so blocking and NBI are the same */
  example_t *ex = ctx;
  out_conn_t *c = begin(ex, channel, pe, "put");
  if (c == NULL) return XSHMEM_ERR_INVALID;
  request_t q = {.op = OP_PUT, .offset = remote_offset, .nbytes = nbytes};
  return end(ex, channel, pe, "put", send_request(ex, c, &q, src));
}

static xshmem_status_t ex_get(void *ctx, int channel, int pe, void *dst, uint64_t remote_offset,
                              size_t nbytes, uint32_t flags) {
  (void)flags; /* completing at once is allowed for NBI too */
  example_t *ex = ctx;
  out_conn_t *c = begin(ex, channel, pe, "get");
  if (c == NULL) return XSHMEM_ERR_INVALID;
  request_t q = {.op = OP_GET, .reply = 1, .offset = remote_offset, .nbytes = nbytes};
  reply_t r;
  xshmem_status_t st = send_request(ex, c, &q, NULL);
  if (st == XSHMEM_SUCCESS) st = wait_answer(ex, c, &r, dst, nbytes);
  return end(ex, channel, pe, "get", st);
}

static xshmem_status_t ex_amo(void *ctx, int channel, int pe, uint64_t remote_offset,
                              xshmem_amo_op_t op, xshmem_amo_type_t type, uint64_t operand,
                              uint64_t compare, uint64_t *fetched, uint32_t flags) {
  (void)flags;
  example_t *ex = ctx;
  out_conn_t *c = begin(ex, channel, pe, "atomic");
  if (c == NULL) return XSHMEM_ERR_INVALID;
  request_t q = {.op = OP_AMO,
                 .sub = (uint32_t)op,
                 .type = (uint32_t)type,
                 .reply = fetched != NULL, /* a fetching form waits for the old value */
                 .offset = remote_offset,
                 .operand = operand,
                 .extra = compare};
  xshmem_status_t st = send_request(ex, c, &q, NULL);
  reply_t r;
  if (st == XSHMEM_SUCCESS && fetched != NULL) st = wait_answer(ex, c, &r, NULL, 0);
  if (st == XSHMEM_SUCCESS && fetched != NULL) *fetched = r.value;
  return end(ex, channel, pe, "atomic", st);
}

static xshmem_status_t ex_put_signal(void *ctx, int channel, int pe, uint64_t remote_offset,
                                     const void *src, size_t nbytes, uint64_t signal_offset,
                                     uint64_t signal, int sig_op, uint32_t flags) {
  (void)flags;
  example_t *ex = ctx;
  out_conn_t *c = begin(ex, channel, pe, "put_signal");
  if (c == NULL) return XSHMEM_ERR_INVALID;
  request_t q = {.op = OP_PUT_SIGNAL,
                 .sub = (uint32_t)sig_op,
                 .offset = remote_offset,
                 .nbytes = nbytes,
                 .operand = signal,
                 .extra = signal_offset};
  return end(ex, channel, pe, "put_signal", send_request(ex, c, &q, src));
}

/* Requests of one channel to one target travel on one connection and are executed in order:
 * they are ordered already. */
static xshmem_status_t ex_fence(void *ctx, int channel) {
  (void)ctx;
  (void)channel;
  return XSHMEM_SUCCESS;
}

/* Completes every request the channel sent: a flush on each connection with unanswered
 * requests, and its answer. */
static xshmem_status_t ex_quiet(void *ctx, int channel) {
  example_t *ex = ctx;
  if (channel < 0 || channel >= ex->nch) return XSHMEM_ERR_INVALID;
  xshmem_status_t st = XSHMEM_SUCCESS;
  pthread_mutex_lock(&ex->chan_mu[channel]);
  int failed = -1;
  for (int pe = 0; pe < ex->n && st == XSHMEM_SUCCESS; ++pe) {
    out_conn_t *c = &ex->out[channel * ex->n + pe];
    if (c->fd < 0 || !c->dirty) continue;
    const request_t flush = {.op = OP_FLUSH, .reply = 1};
    reply_t r;
    st = send_request(ex, c, &flush, NULL);
    if (st == XSHMEM_SUCCESS) st = wait_answer(ex, c, &r, NULL, 0);
    if (st != XSHMEM_SUCCESS) failed = pe;
  }
  return end(ex, channel, failed, "quiet", st);
}

static xshmem_status_t ex_error_query(void *ctx, char *buf, size_t len) {
  example_t *ex = ctx;
  pthread_mutex_lock(&ex->err_mu);
  xshmem_status_t st = ex->err_status;
  if (buf != NULL && len > 0) snprintf(buf, len, "%s", st ? ex->err : "");
  pthread_mutex_unlock(&ex->err_mu);
  return st;
}

static const xshmem_transport_data_ops_v1_t k_data_ops = {
    .struct_size = sizeof(xshmem_transport_data_ops_v1_t),
    .flags = XSHMEM_DATA_OPS_ORDERED | XSHMEM_DATA_OPS_AMO_COHERENT,
    .put = ex_put,
    .get = ex_get,
    .amo = ex_amo,
    .put_signal = ex_put_signal,
    .fence = ex_fence,
    .quiet = ex_quiet,
    .progress = NULL,       /* the receiver thread makes progress by itself */
    .mem_register = NULL,   /* sockets read and write any local buffer */
    .mem_deregister = NULL, /* ditto */
    .error_query = ex_error_query,
};

/* ---- Setup and teardown ---- */

static xshmem_status_t ex_load(const xshmem_core_services_v1_t *svc) {
  g_svc = svc;
  return svc->config_register(k_config, sizeof k_config / sizeof k_config[0]);
}

static xshmem_status_t ex_init(void **ctx) {
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  example_t *ex = calloc(1, sizeof *ex);
  if (ex == NULL) return XSHMEM_ERR_NOMEM;
  ex->me = job->my_pe;
  ex->n = job->n_pes;
  ex->nch = XSHMEM_JOB_INFO_HAS(job, num_channels) && job->num_channels > 0 ? job->num_channels : 1;
  ex->token = job->job_token;
  ex->timeout_ms = (int)g_svc->config_get_int("XSHMEM_EXAMPLE_TIMEOUT");
  ex->wake[0] = ex->wake[1] = -1;
  ex->listen_fd = -1;
  pthread_mutex_init(&ex->err_mu, NULL);
  ex->ports = calloc((size_t)ex->n, sizeof *ex->ports);
  ex->out = calloc((size_t)ex->nch * (size_t)ex->n, sizeof *ex->out);
  ex->chan_mu = calloc((size_t)ex->nch, sizeof *ex->chan_mu);
  *ctx = ex;
  if (ex->ports == NULL || ex->out == NULL || ex->chan_mu == NULL) return XSHMEM_ERR_NOMEM;
  for (int i = 0; i < ex->nch * ex->n; ++i) ex->out[i].fd = -1;
  for (int i = 0; i < ex->nch; ++i) pthread_mutex_init(&ex->chan_mu[i], NULL);

  /* Listen on 127.0.0.1, port chosen by the kernel. */
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof a;
  ex->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (ex->listen_fd < 0 || bind(ex->listen_fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      listen(ex->listen_fd, SOMAXCONN) != 0 ||
      getsockname(ex->listen_fd, (struct sockaddr *)&a, &alen) != 0) {
    LOG(XSHMEM_LOG_ERROR, "cannot listen on 127.0.0.1: %s (pe %d)", strerror(errno), ex->me);
    return XSHMEM_ERR_IO;
  }
  /* Every PE learns every PE's port (collective: every PE calls init). */
  uint16_t mine = ntohs(a.sin_port);
  xshmem_status_t st = g_svc->allgather(&mine, ex->ports, sizeof mine);
  if (st != XSHMEM_SUCCESS) return st;
  LOG(XSHMEM_LOG_DEBUG, "pe %d listens on 127.0.0.1:%u, %d channel(s)", ex->me, mine, ex->nch);
  return XSHMEM_SUCCESS;
}

static xshmem_status_t ex_heap_register(void *ctx, const xshmem_mem_region_v1_t *heap) {
  example_t *ex = ctx;
  if (heap->kind != XSHMEM_MEM_HOST) return XSHMEM_ERR_UNSUPPORTED; /* caps say host heaps */
  ex->heap = heap->base;
  ex->heap_size = heap->size;
  return XSHMEM_SUCCESS;
}

/* Every PE of this host, through the PROXY path. Local and cheap: no communication. */
static xshmem_status_t fill_reach(int same_host, xshmem_peer_info_v1_t *info) {
  const int has_reason = XSHMEM_PEER_INFO_HAS(info, reason);
  if (!same_host) {
    if (has_reason)
      snprintf(info->reason, sizeof info->reason,
               "peer on another host (the example transport listens on 127.0.0.1 only)");
    return XSHMEM_ERR_UNREACHABLE;
  }
  info->path = XSHMEM_PATH_PROXY;
  info->flags = XSHMEM_PEER_ORDERED;
  info->latency_ns = 50000;    /* a loopback round trip and a thread wake-up */
  info->bandwidth_mbps = 2000; /* loopback TCP, one copy on each side */
  if (has_reason) snprintf(info->reason, sizeof info->reason, "tcp over 127.0.0.1, proxy path");
  return XSHMEM_SUCCESS;
}

static xshmem_status_t ex_can_reach(void *ctx, int pe, xshmem_peer_info_v1_t *info) {
  example_t *ex = ctx;
  const xshmem_job_info_v1_t *job = g_svc->job_info();
  if (pe < 0 || pe >= ex->n) return XSHMEM_ERR_UNREACHABLE;
  return fill_reach(job->host_id[pe] == job->host_id[ex->me], info);
}

/* The plan without a job (xshmem-info --plan): the same answer from the topology alone. */
static xshmem_status_t ex_predict(const xshmem_plan_pe_v1_t *self, const xshmem_plan_pe_v1_t *peer,
                                  xshmem_peer_info_v1_t *info) {
  if (self->heap != XSHMEM_MEM_HOST || peer->heap != XSHMEM_MEM_HOST) {
    if (XSHMEM_PEER_INFO_HAS(info, reason))
      snprintf(info->reason, sizeof info->reason, "serves host heaps only");
    return XSHMEM_ERR_UNREACHABLE;
  }
  return fill_reach(self->host_id == peer->host_id, info);
}

/* Opens this PE's connection of `channel` to pe and introduces itself. */
static xshmem_status_t dial(example_t *ex, int channel, int pe) {
  struct sockaddr_in a = {.sin_family = AF_INET,
                          .sin_port = htons(ex->ports[pe]),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return XSHMEM_ERR_IO;
  ex->out[channel * ex->n + pe].fd = fd;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); /* small requests go out at once */
  /* The peer's listener queues the connection (backlog) even before it calls accept. */
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    LOG(XSHMEM_LOG_ERROR, "connect to pe %d at 127.0.0.1:%u failed: %s (pe %d)", pe, ex->ports[pe],
        strerror(errno), ex->me);
    return XSHMEM_ERR_IO;
  }
  hello_t h = {.magic = HELLO_MAGIC, .from_pe = ex->me, .channel = channel};
  snprintf(h.token, sizeof h.token, "%s", ex->token ? ex->token : "");
  return write_full(fd, &h, sizeof h, ex->timeout_ms);
}

/* Accepts `count` connections from peers; a connection whose hello is wrong is closed. */
static xshmem_status_t accept_peers(example_t *ex, const uint8_t *selected, int count) {
  const int64_t deadline = now_ms() + ex->timeout_ms;
  char token[64] = {0}; /* compared whole: the bytes after the NUL too */
  snprintf(token, sizeof token, "%s", ex->token ? ex->token : "");
  while (ex->n_in < count) {
    if (wait_fd(ex->listen_fd, POLLIN, deadline) != XSHMEM_SUCCESS) {
      LOG(XSHMEM_LOG_ERROR,
          "only %d of %d peer connections arrived within XSHMEM_EXAMPLE_TIMEOUT (%d ms); is a "
          "peer stuck? (pe %d)",
          ex->n_in, count, ex->timeout_ms, ex->me);
      return XSHMEM_ERR_TIMEOUT;
    }
    int fd = accept4(ex->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) continue;
    hello_t h;
    int left = (int)(deadline - now_ms());
    if (read_full(fd, &h, sizeof h, left > 0 ? left : 1) != XSHMEM_SUCCESS ||
        h.magic != HELLO_MAGIC || h.from_pe < 0 || h.from_pe >= ex->n || !selected[h.from_pe] ||
        h.channel < 0 || h.channel >= ex->nch || memcmp(h.token, token, sizeof token) != 0) {
      LOG(XSHMEM_LOG_WARN, "turned away a connection that is not from a peer of this job (pe %d)",
          ex->me);
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ex->in_fd[ex->n_in] = fd;
    ex->in_pe[ex->n_in] = h.from_pe;
    ex->n_in++;
  }
  return XSHMEM_SUCCESS;
}

/* Collective: connects to every selected peer (itself included) on every channel, accepts their
 * connections, starts the receiver thread and fills the PROXY descriptor. */
static xshmem_status_t ex_connect(void *ctx, const uint8_t *selected,
                                  xshmem_peer_info_v1_t *infos) {
  example_t *ex = ctx;
  int peers = 0;
  for (int pe = 0; pe < ex->n; ++pe) peers += selected[pe] != 0;
  const int count = peers * ex->nch;
  ex->in_fd = calloc((size_t)count + 1, sizeof *ex->in_fd);
  ex->in_pe = calloc((size_t)count + 1, sizeof *ex->in_pe);
  ex->in_err = calloc((size_t)count + 1, sizeof *ex->in_err);
  if (ex->in_fd == NULL || ex->in_pe == NULL || ex->in_err == NULL) return XSHMEM_ERR_NOMEM;
  xshmem_status_t st = XSHMEM_SUCCESS;
  for (int ch = 0; ch < ex->nch && st == XSHMEM_SUCCESS; ++ch)
    for (int pe = 0; pe < ex->n && st == XSHMEM_SUCCESS; ++pe)
      if (selected[pe]) st = dial(ex, ch, pe);
  if (st == XSHMEM_SUCCESS) st = accept_peers(ex, selected, count);
  if (st == XSHMEM_SUCCESS && pipe2(ex->wake, O_CLOEXEC) != 0) st = XSHMEM_ERR_IO;
  if (st == XSHMEM_SUCCESS) {
    if (pthread_create(&ex->rx, NULL, receiver, ex) != 0) return XSHMEM_ERR_IO;
    ex->rx_started = 1;
  }
  if (st != XSHMEM_SUCCESS) return st;
  for (int pe = 0; pe < ex->n; ++pe) {
    if (!selected[pe]) continue;
    infos[pe].path = XSHMEM_PATH_PROXY;
    if (XSHMEM_PEER_INFO_HAS(&infos[pe], desc)) {
      memset(&infos[pe].desc, 0, sizeof infos[pe].desc);
      infos[pe].desc.kind = XSHMEM_DESC_PROXY;
    }
  }
  LOG(XSHMEM_LOG_INFO, "pe %d: connected to %d peer(s) on %d channel(s)", ex->me, peers, ex->nch);
  return XSHMEM_SUCCESS;
}

/* Collective: completes this PE's requests, waits until every PE has (no request is in flight
 * anywhere after the barrier), then says goodbye on each connection and closes it. */
static xshmem_status_t ex_heap_deregister(void *ctx) {
  example_t *ex = ctx;
  xshmem_status_t st = XSHMEM_SUCCESS;
  for (int ch = 0; ch < ex->nch; ++ch) {
    xshmem_status_t q = ex_quiet(ex, ch);
    if (st == XSHMEM_SUCCESS) st = q;
  }
  xshmem_status_t b = g_svc->barrier();
  if (st == XSHMEM_SUCCESS) st = b;
  const request_t bye = {.op = OP_BYE};
  for (int i = 0; i < ex->nch * ex->n; ++i) {
    if (ex->out[i].fd < 0) continue;
    (void)write_full(ex->out[i].fd, &bye, sizeof bye, ex->timeout_ms);
    close(ex->out[i].fd);
    ex->out[i].fd = -1;
  }
  ex->heap = NULL;
  return st;
}

/* Frees everything init and connect created; safe after a failed init or connect. */
static xshmem_status_t ex_finalize(void *ctx) {
  example_t *ex = ctx;
  if (ex == NULL) return XSHMEM_SUCCESS;
  if (ex->rx_started) {
    char c = 1;
    if (write(ex->wake[1], &c, 1) != 1)
      LOG(XSHMEM_LOG_WARN, "cannot wake the receiver thread: %s (pe %d)", strerror(errno), ex->me);
    pthread_join(ex->rx, NULL);
  }
  for (int i = 0; i < 2; ++i)
    if (ex->wake[i] >= 0) close(ex->wake[i]);
  for (int i = 0; i < ex->n_in; ++i)
    if (ex->in_fd[i] >= 0) close(ex->in_fd[i]);
  for (int i = 0; ex->out != NULL && i < ex->nch * ex->n; ++i)
    if (ex->out[i].fd >= 0) close(ex->out[i].fd);
  if (ex->listen_fd >= 0) close(ex->listen_fd);
  for (int i = 0; ex->chan_mu != NULL && i < ex->nch; ++i) pthread_mutex_destroy(&ex->chan_mu[i]);
  pthread_mutex_destroy(&ex->err_mu);
  free(ex->in_fd);
  free(ex->in_pe);
  free(ex->in_err);
  free(ex->out);
  free(ex->chan_mu);
  free(ex->ports);
  free(ex);
  return XSHMEM_SUCCESS;
}

/* The one exported symbol. The loader checks abi_version and struct_size, then calls load. */
__attribute__((visibility("default"))) const xshmem_transport_v1_t xshmem_transport_plugin_v1 = {
    .abi_version = XSHMEM_TRANSPORT_ABI_VERSION,
    .struct_size = sizeof(xshmem_transport_v1_t),
    .name = "example",
    .caps = XSHMEM_TRANSPORT_CAP_HOST_HEAP,
    .load = ex_load,
    .init = ex_init,
    .heap_register = ex_heap_register,
    .can_reach = ex_can_reach,
    .connect = ex_connect,
    .heap_deregister = ex_heap_deregister,
    .finalize = ex_finalize,
    .heap_grow = NULL, /* host heaps do not grow in chunks */
    .data_ops = &k_data_ops,
    .predict = ex_predict,
};
