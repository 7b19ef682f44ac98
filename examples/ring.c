/*
 * ring.c — a first xshmem program.
 *
 * Build (inside the xshmem tree it is built for you as bin/xshmem-example-ring):
 *   cc -std=c11 ring.c -I<prefix>/include -L<prefix>/lib -lxshmem -o ring
 * Run with 4 PEs on this machine (any count >= 1 works):
 *   xshmem-run -n 4 ./ring
 *
 * Every PE (processing element: one process of the job) runs this same program. The PEs share a
 * *symmetric heap*: xshmem_malloc, called by all PEs with the same size, returns on each PE an
 * address that names "the same" object on every PE. Passing that local address together with a
 * PE number to a put, get or atomic reaches the object on that PE.
 *
 * The program shows four things, each followed by a check of what arrived:
 *   1. a ring of puts: each PE writes an array into its right neighbour's copy;
 *   2. put-with-signal: data plus a flag in one call, the receiver waits on the flag;
 *   3. atomics: fetch_add on a counter at PE 0, and a compare_swap chain that passes a token;
 *   4. barrier_all, which is what makes step 1 safe to read.
 * It exits with status 0 only if every check on this PE passed.
 */
#define _POSIX_C_SOURCE 200809L /* for sched_yield */

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <xshmem/xshmem.h>

enum { RING_LEN = 16, PAYLOAD_LEN = 32, SHOWN = 4 };

/* The value element i of the ring array has when PE `pe` sends it. It depends on both, so a
 * receiver can tell which PE wrote it and that no element was lost or shifted. */
static int ring_value(int pe, int i) {
  return 1000 * (pe + 1) + 3 * i;
}

/* The put-with-signal payload: different from the ring data, so the two cannot be confused. */
static long payload_value(int pe, int i) {
  return -100000L * (pe + 1) - 7L * i;
}

int main(void) {
  /* Join the job. Every PE must call this before any other xshmem function. */
  /* This program reads and writes its own symmetric heap with plain C loads and stores, so the
   * heap must live in host memory. On a machine with GPUs the default heap is GPU memory, which
   * host code cannot dereference: ask for a host heap unless the user chose otherwise. (GPU
   * programs use examples/gpu_ring.cu instead.) */
  setenv("XSHMEM_HEAP", "host", 0);
  xshmem_init();
  const int me = xshmem_my_pe();
  const int npes = xshmem_n_pes();
  /* Neighbours on a ring. With one PE, both are this PE itself: puts to yourself are allowed. */
  const int right = (me + 1) % npes;
  const int left = (me + npes - 1) % npes;
  int failures = 0;

  /* ---- 1. A ring of puts -------------------------------------------------------------------- */

  /* Collective: every PE allocates the same size; `ring` is symmetric. The source of a put does
   * not have to be symmetric, so `mine` is an ordinary local array. */
  int *ring = xshmem_malloc(RING_LEN * sizeof(int));
  if (ring == NULL) {
    fprintf(stderr, "pe %d: xshmem_malloc of %zu bytes failed\n", me, RING_LEN * sizeof(int));
    xshmem_global_exit(1);
  }
  int mine[RING_LEN];
  for (int i = 0; i < RING_LEN; i++) mine[i] = ring_value(me, i);

  /* Copy RING_LEN ints from my local array into `ring` on PE `right`. A blocking put returns as
   * soon as `mine` may be reused; it does NOT wait until the data has arrived at `right`. */
  xshmem_int_put(ring, mine, RING_LEN, right);

  /* Why the barrier: my left neighbour writes into my `ring`, and nothing so far tells me it has
   * done so. xshmem_barrier_all first completes every put this PE issued (like xshmem_quiet),
   * then waits until every PE has reached the barrier. After it, every put of step 1 has
   * landed, so reading `ring` is safe. */
  xshmem_barrier_all();

  int ring_ok = 1;
  for (int i = 0; i < RING_LEN; i++) {
    if (ring[i] != ring_value(left, i)) {
      fprintf(stderr, "pe %d: ring[%d] = %d, expected %d (from pe %d)\n", me, i, ring[i],
              ring_value(left, i), left);
      ring_ok = 0;
    }
  }
  printf("pe %d: received ring data from pe %d: [", me, left);
  for (int i = 0; i < SHOWN; i++) printf("%d, ", ring[i]);
  printf("...] %s\n", ring_ok ? "ok" : "WRONG");
  fflush(stdout);
  failures += !ring_ok;

  /* ---- 2. Put with signal -------------------------------------------------------------------- */

  /* The signal is a symmetric uint64_t. xshmem_calloc zeroes it on every PE and, like
   * xshmem_malloc, ends with a barrier: no PE can signal a flag that is not zero yet. */
  long *payload = xshmem_malloc(PAYLOAD_LEN * sizeof(long));
  uint64_t *signal = xshmem_calloc(1, sizeof(uint64_t));
  if (payload == NULL || signal == NULL) {
    fprintf(stderr, "pe %d: symmetric allocation for put-with-signal failed\n", me);
    xshmem_global_exit(1);
  }
  long out[PAYLOAD_LEN];
  for (int i = 0; i < PAYLOAD_LEN; i++) out[i] = payload_value(me, i);

  /* One call writes the payload into `payload` at PE `right`, then sets `signal` there to 1.
   * The runtime guarantees that a PE which sees the new signal value also sees the payload:
   * no barrier is needed, only the receiver's wait. */
  xshmem_putmem_signal(payload, out, sizeof(out), signal, 1, XSHMEM_SIGNAL_SET, right);

  /* Block until my own `signal` equals 1, i.e. until my left neighbour's payload is here. */
  uint64_t seen = xshmem_signal_wait_until(signal, XSHMEM_CMP_EQ, 1);
  int payload_ok = 1;
  for (int i = 0; i < PAYLOAD_LEN; i++) {
    if (payload[i] != payload_value(left, i)) {
      fprintf(stderr, "pe %d: payload[%d] = %ld, expected %ld\n", me, i, payload[i],
              payload_value(left, i));
      payload_ok = 0;
    }
  }
  printf("pe %d: signal %llu from pe %d, payload %s\n", me, (unsigned long long)seen, left,
         payload_ok ? "ok" : "WRONG");
  fflush(stdout);
  failures += !payload_ok;

  /* ---- 3a. fetch_add on a counter at PE 0 --------------------------------------------------- */

  /* `counter` lives on every PE, but only PE 0's copy is used. `fetched` collects at PE 0 the
   * value each PE got back, one slot per PE. */
  int *counter = xshmem_calloc(1, sizeof(int));
  int *fetched = xshmem_calloc((size_t)npes, sizeof(int));
  if (counter == NULL || fetched == NULL) {
    fprintf(stderr, "pe %d: symmetric allocation for atomics failed\n", me);
    xshmem_global_exit(1);
  }
  /* Atomically add 1 to `counter` on PE 0 and return the value it had before. The PEs race, but
   * atomics never lose an update: the old values are 0..npes-1, each seen by exactly one PE. */
  int old = xshmem_int_atomic_fetch_add(counter, 1, 0);
  /* Report it to PE 0 with a single-element put into my slot of `fetched`. */
  xshmem_int_p(&fetched[me], old, 0);
  /* Completes the fetch_adds and the puts of all PEs before PE 0 reads the results. */
  xshmem_barrier_all();

  if (me == 0) {
    int counter_ok = (*counter == npes);
    int permutation_ok = 1;
    int *count = calloc((size_t)npes, sizeof(int));
    if (count == NULL) xshmem_global_exit(1);
    for (int pe = 0; pe < npes; pe++) {
      if (fetched[pe] < 0 || fetched[pe] >= npes || count[fetched[pe]]++ != 0) {
        fprintf(stderr, "pe 0: pe %d fetched %d: out of range or seen twice\n", pe, fetched[pe]);
        permutation_ok = 0;
      }
    }
    free(count);
    printf("pe 0: counter = %d (expected %d), fetched values %s\n", *counter, npes,
           permutation_ok ? "form a permutation" : "DO NOT form a permutation");
    fflush(stdout);
    failures += !counter_ok + !permutation_ok;
  }

  /* ---- 3b. A compare_swap chain ---------------------------------------------------------------
   */

  /* A token at PE 0 holds the number of the PE whose turn it is. PE k waits for value k and
   * replaces it with k+1: compare_swap writes the new value only if the old one equals `cond`,
   * and always returns the old one. So the PEs pass the token in order 0, 1, 2, ... */
  int *token = xshmem_calloc(1, sizeof(int));
  if (token == NULL) xshmem_global_exit(1);
  int attempts = 0;
  for (;;) {
    int was = xshmem_int_atomic_compare_swap(token, me, me + 1, 0);
    attempts++;
    if (was == me) break;
    if (was > me) { /* cannot happen: only PE k ever writes k+1 */
      fprintf(stderr, "pe %d: token is already %d, past my turn\n", me, was);
      failures++;
      break;
    }
    /* Not my turn. Let other processes run: there may be more PEs than cores. */
    sched_yield();
  }
  printf("pe %d: compare_swap chain: token %d -> %d after %d attempt(s)\n", me, me, me + 1,
         attempts);
  fflush(stdout);
  xshmem_barrier_all();
  if (me == 0) {
    int chain_ok = (*token == npes);
    printf("pe 0: token = %d (expected %d) %s\n", *token, npes, chain_ok ? "ok" : "WRONG");
    fflush(stdout);
    failures += !chain_ok;
  }

  /* ---- Clean up --------------------------------------------------------------------------------
   */

  /* xshmem_free is collective too (it barriers on entry, so no PE frees memory a peer is still
   * writing). Then leave the job; finalize is collective as well. */
  xshmem_free(token);
  xshmem_free(fetched);
  xshmem_free(counter);
  xshmem_free(signal);
  xshmem_free(payload);
  xshmem_free(ring);
  xshmem_finalize();
  return failures == 0 ? 0 : 1;
}
