// Two nodes on one machine, before any data transport reaches the other node: the tcp bootstrap
// plugin, loaded directly as tests/bootstrap/bootstrap_test.cc does, across the veth pair that
// `xshmem-run --nodes 2` makes.
//
//   xshmem-run -n N --nodes 2 [--placement cyclic] twonode_bootstrap PER_NODE [cyclic]
//
// Every PE checks that rank 0's address is not loopback (the job really crosses the veth),
// allgathers a record {host name, rank, pid, PE-dependent words} into a poisoned, guarded buffer
// and checks it: exactly N/PER_NODE distinct host names, the PEs of its own node (block-wise,
// PER_NODE each; with "cyclic", PE k on node k mod 2) sharing its host name and no others, every
// record's words derived from its rank and pid. The first PE of the second node is also a stranger
// before it joins: it holds an idle connection to rank 0's port during the whole init, and first
// tries to join with a wrong job token, which must be refused; rank 0 must log the refusal (from
// a 10.213. address) and one "turned away" summary, and the job must still start.
#include <arpa/inet.h>
#include <dlfcn.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <xshmem/plugin/bootstrap_v1.h>

#include "fake_services.h"

namespace {

const xshmem_bootstrap_v1_t *g_ops = nullptr;
int g_rank = -1;

[[noreturn]] void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fail(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  fprintf(stderr, "FAIL (pe %d): %s\n", g_rank, msg);
  fflush(stderr);
  _exit(1);
}

// ---- Services: the tests' one fake table (tests/common/fake_services.h) ------------------------

[[noreturn]] void fail_message(const char *msg) {
  fail("%s", msg);
}

const xshmem_core_services_v1_t *services() {
  return xt::fake_services(
      {.prefix = "twonode", .register_prefix = "XSHMEM_BOOTSTRAP_", .on_error = fail_message});
}

bool logged(const char *needle) {
  return xt::fake_logged(needle);
}

// ---- The check -------------------------------------------------------------------------------

constexpr int kWords = 16;
constexpr size_t kGuard = 64;
constexpr uint8_t kPoison = 0xA5;

struct Record {
  char host[64];
  int32_t rank;
  uint32_t pid;
  uint64_t words[kWords];
};

uint64_t word(int rank, uint32_t pid, int i) {
  uint64_t x = (uint64_t(rank) << 48) ^ (uint64_t(pid) << 16) ^ uint64_t(i);
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return x;
}

int env_int(const char *name) {
  const char *v = getenv(name);
  if (!v) fail("%s is not set: run this under xshmem-run --nodes 2", name);
  return atoi(v);
}

// An idle connection to rank 0's listener from this process's network namespace.
int connect_idle(const std::string &root) {
  auto colon = root.rfind(':');
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(atoi(root.c_str() + colon + 1)));
  if (colon == std::string::npos ||
      inet_pton(AF_INET, root.substr(0, colon).c_str(), &a.sin_addr) != 1)
    fail("XSHMEM_BOOTSTRAP_TCP_ROOT='%s' is not addr:port", root.c_str());
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0 || connect(s, reinterpret_cast<sockaddr *>(&a), sizeof(a)) != 0)
    fail("the idle stranger cannot connect to %s: %s", root.c_str(), strerror(errno));
  return s;
}

// This PE's node as the launcher made it: lo up, and xsn0 up with the node's address, which is
// rank 0's address (node a) or the next one (node b), in 10.213.0.0/16 with a /30 netmask.
void check_interfaces(const std::string &root, int node) {
  in_addr root_addr{};
  inet_pton(AF_INET, root.substr(0, root.rfind(':')).c_str(), &root_addr);
  const uint32_t want = ntohl(root_addr.s_addr) + static_cast<uint32_t>(node);
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0) fail("getifaddrs: %s", strerror(errno));
  bool lo_up = false, veth_ok = false;
  std::string seen;
  for (ifaddrs *i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    const uint32_t a = ntohl(reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr.s_addr);
    const uint32_t m = ntohl(reinterpret_cast<sockaddr_in *>(i->ifa_netmask)->sin_addr.s_addr);
    char text[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in *>(i->ifa_addr)->sin_addr, text, sizeof(text));
    seen += std::string(seen.empty() ? "" : ", ") + i->ifa_name + " " + text;
    if (strcmp(i->ifa_name, "lo") == 0) lo_up = (i->ifa_flags & IFF_UP) != 0;
    if (strcmp(i->ifa_name, "xsn0") == 0)
      veth_ok = (i->ifa_flags & IFF_UP) && a == want && m == 0xfffffffcu && (a >> 16) == 0x0ad5u;
  }
  freeifaddrs(list);
  if (!lo_up) fail("lo is not up in node %c (IPv4 interfaces: %s)", 'a' + node, seen.c_str());
  if (!veth_ok)
    fail(
        "node %c has no xsn0 up with rank 0's address + %d/30 in 10.213.0.0/16 (IPv4 "
        "interfaces: %s)",
        'a' + node, node, seen.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  const bool cyclic = argc == 3 && strcmp(argv[2], "cyclic") == 0;
  if ((argc != 2 && !cyclic) || atoi(argv[1]) < 1) {
    fprintf(stderr, "usage: xshmem-run -n N --nodes 2 [--placement cyclic] %s PER_NODE [cyclic]\n",
            argv[0]);
    return 2;
  }
  const int per_node = atoi(argv[1]);
  const int me = env_int("XSHMEM_BOOTSTRAP_TCP_RANK"), n = env_int("XSHMEM_BOOTSTRAP_TCP_SIZE");
  g_rank = me;
  const std::string root =
      getenv("XSHMEM_BOOTSTRAP_TCP_ROOT") ? getenv("XSHMEM_BOOTSTRAP_TCP_ROOT") : "";
  if (n % per_node != 0 || n / per_node != 2)
    fail("%d pes with %d per node is not two nodes", n, per_node);
  if (root.rfind("127.", 0) == 0)
    fail("rank 0 listens on %s, a loopback address: the job does not cross nodes", root.c_str());

  // The node of a PE, as the launcher places them.
  auto node_of = [&](int r) { return cyclic ? r % (n / per_node) : r / per_node; };
  check_interfaces(root, node_of(me));

  void *h = dlopen(XSHMEM_TEST_TCP_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  if (!h) fail("dlopen %s: %s", XSHMEM_TEST_TCP_PLUGIN, dlerror());
  g_ops = static_cast<const xshmem_bootstrap_v1_t *>(dlsym(h, XSHMEM_BOOTSTRAP_SYMBOL_V1));
  if (!g_ops || g_ops->abi_version != XSHMEM_BOOTSTRAP_ABI_VERSION)
    fail("%s: no bootstrap ABI %u", XSHMEM_TEST_TCP_PLUGIN, XSHMEM_BOOTSTRAP_ABI_VERSION);
  if (g_ops->load(services()) != XSHMEM_SUCCESS) fail("load() failed");

  char host[64] = {0};
  if (gethostname(host, sizeof(host) - 1) != 0) fail("gethostname: %s", strerror(errno));

  const bool stranger = me == (cyclic ? 1 : per_node);  // the first PE of node b
  int idle = -1;
  if (stranger) {
    idle = connect_idle(root);
    sockaddr_in local{};
    socklen_t len = sizeof(local);
    getsockname(idle, reinterpret_cast<sockaddr *>(&local), &len);
    char from[INET_ADDRSTRLEN] = {0};
    inet_ntop(AF_INET, &local.sin_addr, from, sizeof(from));
    printf("pe %d on %s: stranger connected to %s from %s (idle during init)\n", me, host,
           root.c_str(), from);
    std::string good = getenv("XSHMEM_BOOTSTRAP_TCP_TOKEN"), bad = good;
    bad[0] = bad[0] == '0' ? '1' : '0';
    setenv("XSHMEM_BOOTSTRAP_TCP_TOKEN", bad.c_str(), 1);
    void *ctx = nullptr;
    int r = -1, s = -1;
    if (g_ops->init(nullptr, &ctx, &r, &s) == XSHMEM_SUCCESS)
      fail("init with a wrong job token from node b succeeded");
    if (!logged("refused")) fail("the refusal of the wrong token was not logged on pe %d", me);
    printf("pe %d on %s: a wrong job token from node b was refused\n", me, host);
    setenv("XSHMEM_BOOTSTRAP_TCP_TOKEN", good.c_str(), 1);
  }

  void *ctx = nullptr;
  int rank = -1, size = -1;
  if (g_ops->init(nullptr, &ctx, &rank, &size) != XSHMEM_SUCCESS) fail("init failed");
  if (rank != me || size != n)
    fail("init gave rank %d of %d, the launcher said %d of %d", rank, size, me, n);

  Record mine{};
  snprintf(mine.host, sizeof(mine.host), "%s", host);
  mine.rank = rank;
  mine.pid = static_cast<uint32_t>(getpid());
  for (int i = 0; i < kWords; ++i) mine.words[i] = word(rank, mine.pid, i);
  std::vector<uint8_t> out(sizeof(Record) * n + kGuard, kPoison);
  if (g_ops->allgather(ctx, &mine, out.data(), sizeof(Record)) != XSHMEM_SUCCESS)
    fail("allgather failed");
  for (size_t i = sizeof(Record) * n; i < out.size(); ++i)
    if (out[i] != kPoison) fail("allgather: guard byte %zu overwritten", i - sizeof(Record) * n);
  std::vector<Record> all(n);
  memcpy(all.data(), out.data(), sizeof(Record) * n);
  std::set<std::string> hosts;
  for (int r = 0; r < n; ++r) {
    const Record &x = all[r];
    if (x.rank != r) fail("record %d carries rank %d", r, x.rank);
    for (int i = 0; i < kWords; ++i)
      if (x.words[i] != word(r, x.pid, i))
        fail("record of pe %d: word %d is %016llx, expected %016llx", r, i,
             static_cast<unsigned long long>(x.words[i]),
             static_cast<unsigned long long>(word(r, x.pid, i)));
    if (memchr(x.host, 0, sizeof(x.host)) == nullptr)
      fail("record of pe %d: host name not terminated", r);
    hosts.insert(x.host);
    const bool same_node = node_of(r) == node_of(me);
    const bool same_host = strcmp(x.host, host) == 0;
    if (same_node != same_host)
      fail("pe %d is on host '%s' and this pe on '%s', but they are %s node", r, x.host, host,
           same_node ? "on the same" : "not on the same");
  }
  if (hosts.size() != 2) fail("%zu distinct host names among %d pes, expected 2", hosts.size(), n);
  if (strcmp(all[0].host, all[n - 1].host) == 0)
    fail("pe 0 and pe %d share host '%s'", n - 1, all[0].host);

  if (g_ops->barrier(ctx) != XSHMEM_SUCCESS) fail("barrier failed");
  if (rank == 0) {
    if (!logged("wrong job token")) fail("pe 0 did not log the wrong token from node b");
    if (!logged("turned away")) fail("pe 0 did not report the strangers it turned away");
    if (!logged("from 10.213.")) fail("pe 0's refusal does not name a 10.213. (node b) address");
    printf("pe 0: the strangers from node b were turned away and the job started\n");
  }
  if (g_ops->finalize(ctx) != XSHMEM_SUCCESS) fail("finalize failed");
  if (idle >= 0) close(idle);
  std::string peers;
  for (int r = 0; r < n; ++r)
    if (node_of(r) == node_of(me)) peers += (peers.empty() ? "" : ",") + std::to_string(r);
  printf("pe %d on %s: %zu host names (%s, %s), node peers {%s}: ok\n", me, host, hosts.size(),
         all[0].host, all[n - 1].host, peers.c_str());
  return 0;
}
