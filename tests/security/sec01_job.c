/* SEC-01 job: forms a job over hostshm and checks that every local peer's heap is that peer's
 * and nobody else's. Each PE puts data derived from (source pe, target pe, index) into every
 * PE's heap, then checks what it received from every PE; it also checks that no memfd of the
 * attacker (named "xshmem-sec01-attacker") is mapped into this process. Exit 0 when all holds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xshmem/xshmem.h>

#define WORDS 4096

static uint64_t pattern(int src, int dst, int i) {
  uint64_t x = ((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ (uint64_t)i;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 29;
  return x;
}

static int attacker_mapped(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  if (!f) return 0;
  while (fgets(line, sizeof(line), f))
    if (strstr(line, "xshmem-sec01-attacker")) found = 1;
  fclose(f);
  return found;
}

int main(void) {
  xshmem_init();
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  uint64_t *buf = (uint64_t *)xshmem_calloc((size_t)n * WORDS, sizeof(uint64_t));
  uint64_t *src = (uint64_t *)malloc(WORDS * sizeof(uint64_t));
  int bad = 0;
  if (!buf || !src) {
    fprintf(stderr, "sec01 job: pe %d: allocation failed\n", me);
    return 1;
  }
  for (int pe = 0; pe < n; ++pe)
    if (!xshmem_ptr(buf, pe)) {
      fprintf(stderr, "sec01 job: pe %d: the heap of pe %d is not mapped (hostshm not used)\n", me,
              pe);
      bad = 1;
    }
  for (int pe = 0; pe < n; ++pe) {
    for (int i = 0; i < WORDS; ++i) src[i] = pattern(me, pe, i);
    xshmem_putmem(buf + (size_t)me * WORDS, src, WORDS * sizeof(uint64_t), pe);
  }
  xshmem_barrier_all();
  for (int pe = 0; pe < n; ++pe)
    for (int i = 0; i < WORDS; ++i)
      if (buf[(size_t)pe * WORDS + i] != pattern(pe, me, i)) {
        fprintf(stderr, "sec01 job: pe %d: word %d from pe %d is %016llx, want %016llx\n", me, i,
                pe, (unsigned long long)buf[(size_t)pe * WORDS + i],
                (unsigned long long)pattern(pe, me, i));
        bad = 1;
        break;
      }
  if (attacker_mapped()) {
    fprintf(stderr, "sec01 job: pe %d: a memfd of the attacker is mapped in this process\n", me);
    bad = 1;
  }
  xshmem_barrier_all();
  xshmem_free(buf);
  free(src);
  xshmem_finalize();
  return bad;
}
