/* Two nodes on one machine, through the data transports:
 *
 *   xshmem-run -n N --nodes 2 [--placement cyclic] twonode_teams PER_NODE [cyclic]
 *   xshmem-run -n N --nodes 1 twonode_teams N       (one node: the same checks, teams = world)
 *
 * XSHMEMX_TEAM_NODE and XSHMEM_TEAM_SHARED must be real subsets: this PE's node, PER_NODE PEs
 * placed block-wise (with "cyclic": PE k on node k mod 2, a team of stride 2), numbered in world
 * order; xshmem_ptr reaches exactly the PEs of this node.
 * Then every PE puts words derived from (source, target, index) into a guarded slot of every
 * other PE's heap, across the nodes too, and checks what it received and that the guards hold.
 * Without a transport that reaches the other node, xshmem_init stops the job: twonode.no_remote
 * checks that error. Exit 0 when everything holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xshmem/xshmem.h>

#define WORDS 1024
#define GUARD 8
#define POISON 0xA5A5A5A5A5A5A5A5ULL

static uint64_t pattern(int src, int dst, int i) {
  uint64_t x = ((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ (uint64_t)i ^ 0x7473u;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return x;
}

static int bad;
static int g_nodes, g_per_node, g_cyclic;

static int node_of(int pe) {
  return g_cyclic ? pe % g_nodes : pe / g_per_node;
}
/* World PE of the node's i-th PE, and a PE's number in its node. */
static int member(int node, int i) {
  return g_cyclic ? node + i * g_nodes : node * g_per_node + i;
}
static int index_in_node(int pe) {
  return g_cyclic ? pe / g_nodes : pe % g_per_node;
}
#define CHECK(cond, ...)                                         \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "twonode_teams: pe %d: ", xshmem_my_pe()); \
      fprintf(stderr, __VA_ARGS__);                              \
      fputc('\n', stderr);                                       \
      bad = 1;                                                   \
    }                                                            \
  } while (0)

static void check_team(xshmem_team_t team, const char *name, int me, int per_node) {
  const int node = node_of(me);
  CHECK(xshmem_team_n_pes(team) == per_node, "%s has %d pes, expected %d (this node's)", name,
        xshmem_team_n_pes(team), per_node);
  CHECK(xshmem_team_my_pe(team) == index_in_node(me), "%s: my number is %d, expected %d", name,
        xshmem_team_my_pe(team), index_in_node(me));
  for (int i = 0; i < per_node; ++i) {
    int w = xshmem_team_translate_pe(team, i, XSHMEM_TEAM_WORLD);
    CHECK(w == member(node, i), "%s pe %d is world pe %d, expected %d", name, i, w,
          member(node, i));
  }
  for (int pe = 0; pe < xshmem_n_pes(); ++pe) {
    int t = xshmem_team_translate_pe(XSHMEM_TEAM_WORLD, pe, team);
    int want = node_of(pe) == node ? index_in_node(pe) : -1;
    CHECK(t == want, "world pe %d is %s pe %d, expected %d", pe, name, t, want);
  }
}

int main(int argc, char **argv) {
  const int per_node = argc >= 2 ? atoi(argv[1]) : 0;
  g_cyclic = argc == 3 && strcmp(argv[2], "cyclic") == 0;
  if (per_node < 1 || argc > 3 || (argc == 3 && !g_cyclic)) {
    fprintf(stderr, "usage: xshmem-run -n N --nodes 2 [--placement cyclic] %s PER_NODE [cyclic]\n",
            argv[0]);
    return 2;
  }
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  if (n % per_node != 0 || n / per_node > 2) {
    fprintf(stderr, "twonode_teams: %d pes with %d per node is not one or two nodes\n", n,
            per_node);
    return 1;
  }
  g_nodes = n / per_node;
  g_per_node = per_node;
  check_team(XSHMEMX_TEAM_NODE, "XSHMEMX_TEAM_NODE", me, per_node);
  check_team(XSHMEM_TEAM_SHARED, "XSHMEM_TEAM_SHARED", me, per_node);

  const size_t slot = WORDS + 2 * GUARD;
  uint64_t *buf = (uint64_t *)xshmem_malloc((size_t)n * slot * sizeof(uint64_t));
  uint64_t *src = (uint64_t *)malloc(WORDS * sizeof(uint64_t));
  if (!buf || !src) {
    fprintf(stderr, "twonode_teams: pe %d: allocation failed\n", me);
    return 1;
  }
  for (size_t i = 0; i < (size_t)n * slot; ++i) buf[i] = POISON;
  for (int pe = 0; pe < n; ++pe) {
    int local = node_of(pe) == node_of(me);
    CHECK((xshmem_ptr(buf, pe) != NULL) == local, "xshmem_ptr for pe %d is %p; it is %s node", pe,
          xshmem_ptr(buf, pe), local ? "on this" : "on the other");
  }
  xshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    for (int i = 0; i < WORDS; ++i) src[i] = pattern(me, pe, i);
    xshmem_putmem(buf + (size_t)me * slot + GUARD, src, WORDS * sizeof(uint64_t), pe);
  }
  xshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe) {
    const uint64_t *s = buf + (size_t)pe * slot;
    for (int g = 0; g < GUARD; ++g) {
      CHECK(s[g] == POISON, "guard word %d before pe %d's slot is %016llx", g, pe,
            (unsigned long long)s[g]);
      CHECK(s[GUARD + WORDS + g] == POISON, "guard word %d after pe %d's slot is %016llx", g, pe,
            (unsigned long long)s[GUARD + WORDS + g]);
    }
    for (int i = 0; i < WORDS; ++i)
      if (s[GUARD + i] != pattern(pe, me, i)) {
        CHECK(0, "word %d from pe %d is %016llx, expected %016llx", i, pe,
              (unsigned long long)s[GUARD + i], (unsigned long long)pattern(pe, me, i));
        break;
      }
  }
  xshmem_barrier_all();
  if (!bad) {
    char host[64] = {0};
    gethostname(host, sizeof(host) - 1);
    char pes[256] = {0};
    for (int i = 0; i < per_node && strlen(pes) + 16 < sizeof(pes); ++i)
      snprintf(pes + strlen(pes), sizeof(pes) - strlen(pes), "%s%d", i ? "," : "",
               member(node_of(me), i));
    printf("pe %d on %s: node and shared teams are pes {%s}; puts to all %d pes ok\n", me, host,
           pes, n);
  }
  xshmem_free(buf);
  free(src);
  xshmem_finalize();
  return bad;
}
