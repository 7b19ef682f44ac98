/* Two nodes on one machine: libfabric's tcp provider across the veth pair, without xshmem.
 *
 *   FI_PROVIDER=tcp FI_TCP_IFACE=xsn0 xshmem-run -n 2 --nodes 2 twonode_fabric
 *
 * What the libfabric transport's two-node entries rely on: in each node, fi_getinfo for an RDM
 * endpoint pinned to xsn0 finds the node's own veth address (rank 0's address for node a, the
 * next one for node b), and a message goes from node b to node a and back. The two PEs swap
 * endpoint names through files named by the job token (the nodes share the file system, not
 * the network); pe 1 sends words derived from its pid, pe 0 checks them in a poisoned, guarded
 * buffer and answers with words derived from the received ones and its own pid, which pe 1
 * checks. Every wait has a deadline. Exit 0 when everything holds. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define WORDS 512
#define GUARD 8
#define POISON 0xA5A5A5A5A5A5A5A5ULL
#define DEADLINE_S 10.0

static int g_rank = -1;
static char g_mine[128]; /* this PE's name file, removed on failure too */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "twonode_fabric: FAIL (pe %d): ", g_rank);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  if (g_mine[0]) unlink(g_mine);
  exit(1);
}

/* Stopped by the launcher (another PE failed, the timeout): leave no name file behind. */
static void on_term(int sig) {
  if (g_mine[0]) unlink(g_mine);
  signal(sig, SIG_DFL);
  raise(sig);
}

#define FI_CHECK(call)                                                     \
  do {                                                                     \
    int _r = (int)(call);                                                  \
    if (_r != 0) fail("%s returned %d (%s)", #call, _r, fi_strerror(-_r)); \
  } while (0)

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t word(uint64_t seed, int i) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (uint64_t)i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return x;
}

/* Waits for one completion on cq (progressing the endpoint), or fails after the deadline. */
static void wait_cq(struct fid_cq *cq, const char *what) {
  const double end = now_s() + DEADLINE_S;
  struct fi_cq_entry e;
  for (;;) {
    ssize_t r = fi_cq_read(cq, &e, 1);
    if (r == 1) return;
    if (r == -FI_EAVAIL) {
      struct fi_cq_err_entry err;
      memset(&err, 0, sizeof(err));
      fi_cq_readerr(cq, &err, 0);
      fail("%s completed with error %d (%s)", what, err.err, fi_strerror(err.err));
    }
    if (r != -FI_EAGAIN) fail("fi_cq_read for %s returned %zd (%s)", what, r, fi_strerror((int)-r));
    if (now_s() > end) fail("%s did not complete within %.0f s", what, DEADLINE_S);
    usleep(200);
  }
}

/* fi_send, retried while the provider is not ready (connecting: -FI_EAGAIN), progressing the
 * endpoint through the completion queue meanwhile; fails after the deadline. */
static void send_retry(struct fid_ep *ep, struct fid_cq *cq, const void *buf, size_t len,
                       fi_addr_t to, struct fi_context *ctx, const char *what) {
  const double end = now_s() + DEADLINE_S;
  for (;;) {
    ssize_t r = fi_send(ep, buf, len, NULL, to, ctx);
    if (r == 0) return;
    if (r != -FI_EAGAIN) fail("fi_send for %s returned %zd (%s)", what, r, fi_strerror((int)-r));
    if (now_s() > end) fail("fi_send for %s was not accepted within %.0f s", what, DEADLINE_S);
    (void)fi_cq_read(cq, NULL, 0);
    usleep(200);
  }
}

static void name_file(char *out, size_t n, const char *token, int rank) {
  snprintf(out, n, "/tmp/xsn-fabric-%.32s.%d", token, rank);
}

int main(void) {
  const char *rank_s = getenv("XSHMEM_BOOTSTRAP_TCP_RANK"),
             *size_s = getenv("XSHMEM_BOOTSTRAP_TCP_SIZE");
  const char *root = getenv("XSHMEM_BOOTSTRAP_TCP_ROOT"),
             *token = getenv("XSHMEM_BOOTSTRAP_TCP_TOKEN");
  if (!rank_s || !size_s || !root || !token || atoi(size_s) != 2) {
    fprintf(stderr,
            "usage: FI_PROVIDER=tcp FI_TCP_IFACE=xsn0 xshmem-run -n 2 --nodes 2 twonode_fabric\n");
    return 2;
  }
  g_rank = atoi(rank_s);
  signal(SIGTERM, on_term);
  signal(SIGINT, on_term);
  const int peer = 1 - g_rank;
  char host[64] = {0};
  gethostname(host, sizeof(host) - 1);

  /* The node's veth address: rank 0's listener address, + 1 in node b. */
  char root_host[64];
  snprintf(root_host, sizeof(root_host), "%s", root);
  if (strrchr(root_host, ':')) *strrchr(root_host, ':') = 0;
  struct in_addr want;
  if (inet_pton(AF_INET, root_host, &want) != 1) fail("XSHMEM_BOOTSTRAP_TCP_ROOT='%s'", root);
  want.s_addr = htonl(ntohl(want.s_addr) + (uint32_t)g_rank);

  struct fi_info *hints = fi_allocinfo(), *info = NULL;
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_MSG;
  hints->mode = FI_CONTEXT;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->addr_format = FI_SOCKADDR_IN;
  int r = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info);
  if (r != 0 || !info)
    fail("fi_getinfo (RDM, FI_PROVIDER=%s, FI_TCP_IFACE=%s) found nothing: %d (%s)",
         getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "",
         getenv("FI_TCP_IFACE") ? getenv("FI_TCP_IFACE") : "", r, fi_strerror(-r));
  /* The first result must sit on this node's veth address. */
  const struct sockaddr_in *src = (const struct sockaddr_in *)info->src_addr;
  char src_text[INET_ADDRSTRLEN] = "?", want_text[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &want, want_text, sizeof(want_text));
  if (src && info->src_addrlen >= sizeof(*src) && src->sin_family == AF_INET)
    inet_ntop(AF_INET, &src->sin_addr, src_text, sizeof(src_text));
  if (!src || src->sin_family != AF_INET || src->sin_addr.s_addr != want.s_addr)
    fail("fi_getinfo's first %s endpoint is on %s, expected this node's veth address %s",
         info->fabric_attr->prov_name, src_text, want_text);

  struct fid_fabric *fabric;
  struct fid_domain *domain;
  struct fid_cq *cq;
  struct fid_av *av;
  struct fid_ep *ep;
  FI_CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
  FI_CHECK(fi_domain(fabric, info, &domain, NULL));
  struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 16};
  FI_CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
  struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
  FI_CHECK(fi_av_open(domain, &av_attr, &av, NULL));
  FI_CHECK(fi_endpoint(domain, info, &ep, NULL));
  FI_CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
  FI_CHECK(fi_ep_bind(ep, &av->fid, 0));
  FI_CHECK(fi_enable(ep));

  /* Post the receive first, then publish this endpoint's name. */
  static uint64_t in[WORDS + 2 * GUARD], out[WORDS];
  for (int i = 0; i < WORDS + 2 * GUARD; ++i) in[i] = POISON;
  struct fi_context rx_ctx, tx_ctx;
  FI_CHECK(fi_recv(ep, in + GUARD, sizeof(out), NULL, FI_ADDR_UNSPEC, &rx_ctx));

  char name[256];
  size_t name_len = sizeof(name);
  FI_CHECK(fi_getname(&ep->fid, name, &name_len));
  char tmp[160], theirs[128];
  char *mine = g_mine;
  name_file(mine, sizeof(g_mine), token, g_rank);
  name_file(theirs, sizeof(theirs), token, peer);
  snprintf(tmp, sizeof(tmp), "%s.tmp", mine);
  FILE *f = fopen(tmp, "wb");
  if (!f || fwrite(name, 1, name_len, f) != name_len || fclose(f) != 0 || rename(tmp, mine) != 0)
    fail("cannot write %s: %s", mine, strerror(errno));

  char peer_name[256];
  size_t peer_len = 0;
  const double end = now_s() + DEADLINE_S;
  for (;;) {
    f = fopen(theirs, "rb");
    if (f) {
      peer_len = fread(peer_name, 1, sizeof(peer_name), f);
      fclose(f);
      break;
    }
    if (now_s() > end)
      fail("pe %d's endpoint name (%s) did not appear within %.0f s", peer, theirs, DEADLINE_S);
    usleep(10000);
  }
  if (peer_len == 0) fail("%s is empty", theirs);
  fi_addr_t peer_addr;
  if (fi_av_insert(av, peer_name, 1, &peer_addr, 0, NULL) != 1)
    fail("fi_av_insert of pe %d's name failed", peer);

  const uint64_t my_seed = (uint64_t)getpid() << 8 | (uint64_t)g_rank;
  uint64_t got_seed = 0;
  if (g_rank == 1) {
    out[0] = my_seed;
    for (int i = 1; i < WORDS; ++i) out[i] = word(my_seed, i);
    send_retry(ep, cq, out, sizeof(out), peer_addr, &tx_ctx, "the message to pe 0");
    wait_cq(cq, "the send to pe 0");
  }
  wait_cq(cq, "the receive");
  for (int g = 0; g < GUARD; ++g)
    if (in[g] != POISON || in[GUARD + WORDS + g] != POISON)
      fail("guard word %d around the message was overwritten", g);
  got_seed = in[GUARD];
  if (g_rank == 0) {
    for (int i = 1; i < WORDS; ++i)
      if (in[GUARD + i] != word(got_seed, i))
        fail("word %d from pe 1 is %016llx, expected %016llx", i, (unsigned long long)in[GUARD + i],
             (unsigned long long)word(got_seed, i));
    unlink(mine); /* pe 1 has read it: its message came */
    out[0] = my_seed;
    for (int i = 1; i < WORDS; ++i) out[i] = word(got_seed ^ my_seed, i);
    send_retry(ep, cq, out, sizeof(out), peer_addr, &tx_ctx, "the answer to pe 1");
    wait_cq(cq, "the answer to pe 1");
  } else {
    for (int i = 1; i < WORDS; ++i)
      if (in[GUARD + i] != word(got_seed ^ my_seed, i))
        fail("word %d of pe 0's answer is %016llx, expected %016llx", i,
             (unsigned long long)in[GUARD + i], (unsigned long long)word(got_seed ^ my_seed, i));
    unlink(mine);
  }
  printf("pe %d on %s: libfabric %s on %s, %zu bytes each way across the veth: ok\n", g_rank, host,
         info->fabric_attr->prov_name, src_text, sizeof(out));
  /* pe 0 lingers briefly so that its answer is delivered before its endpoint closes. */
  if (g_rank == 0) usleep(300000);
  fi_close(&ep->fid);
  fi_close(&av->fid);
  fi_close(&cq->fid);
  fi_close(&domain->fid);
  fi_close(&fabric->fid);
  fi_freeinfo(info);
  fi_freeinfo(hints);
  return 0;
}
