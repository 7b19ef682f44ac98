// GLOB-06 (docs/globals.md): a global keeps its value through xshmem_init, is symmetric while the
// runtime is up, keeps its value and stays writable after the last xshmem_finalize (private
// memory again: no heap mapping is left), and is symmetric again after a second init.
// Run with xshmem-run -n N (N >= 2); exits 0 when every check held, 1 with a line per failure.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <xshmem/xshmem.h>

namespace {

long g_value = 5;    // .data
long g_array[4096];  // .bss, more than a page
int g_failures = 0;

#define EXPECT(cond, ...)                                                      \
  do {                                                                         \
    if (!(cond)) {                                                             \
      ++g_failures;                                                            \
      fprintf(stderr, "globals_life: FAILED %s (line %d): ", #cond, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

// Lines of /proc/self/maps that map the heap's memfd ("xshmem-heap").
int heap_mappings() {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "xshmem-heap")) ++n;
  fclose(f);
  return n;
}

void round_trip(int round) {
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  xshmem_long_p(&g_value, 1000L * round + me, right);
  for (int i = 0; i < 4096; i += 511) xshmem_long_p(&g_array[i], 77L * round + i + me, right);
  xshmem_barrier_all();
  EXPECT(g_value == 1000L * round + left, "round %d: g_value %ld, expected %ld from pe %d", round,
         g_value, 1000L * round + left, left);
  for (int i = 0; i < 4096; i += 511)
    EXPECT(g_array[i] == 77L * round + i + left, "round %d: g_array[%d] %ld", round, i, g_array[i]);
  xshmem_barrier_all();
}

}  // namespace

int main() {
  g_array[4095] = 31;  // written before init: the copy into the heap keeps it
  xshmem_init();
  const int me = xshmem_my_pe();
  if (xshmem_n_pes() < 2) {
    fprintf(stderr, "globals_life: needs 2 PEs or more\n");
    xshmem_finalize();
    return 77;
  }
  EXPECT(g_value == 5, "g_value %ld after init, expected 5", g_value);
  EXPECT(g_array[4095] == 31, "g_array[4095] %ld after init, expected 31", g_array[4095]);
  EXPECT(heap_mappings() >= 2, "%d heap mappings while up (heap and the globals window)",
         heap_mappings());
  xshmem_barrier_all();  // every PE checked its values before any writes
  round_trip(1);
  const long kept = g_value;
  xshmem_finalize();
  EXPECT(g_value == kept, "g_value %ld after finalize, expected %ld", g_value, kept);
  EXPECT(heap_mappings() == 0, "%d heap mappings left after finalize", heap_mappings());
  g_value = -3;  // private memory again: writable
  g_array[1] = -4;
  EXPECT(g_value == -3 && g_array[1] == -4, "globals not writable after finalize");

  xshmem_init();
  EXPECT(g_value == -3, "g_value %ld after the second init, expected -3", g_value);
  EXPECT(g_array[1] == -4, "g_array[1] %ld after the second init, expected -4", g_array[1]);
  xshmem_barrier_all();
  round_trip(2);
  xshmem_finalize();
  EXPECT(heap_mappings() == 0, "%d heap mappings left after the second finalize", heap_mappings());
  if (g_failures == 0) printf("globals_life: pe %d: all checks passed\n", me);
  return g_failures == 0 ? 0 : 1;
}
