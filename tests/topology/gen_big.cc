// topo_gen_big FILE [gpus]: writes the large recorded machine of big_fixture.h (default 1024 GPUs).
#include <cstdio>
#include <cstdlib>

#include "big_fixture.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: topo_gen_big FILE [gpus]\n");
    return 2;
  }
  const int gpus = argc > 2 ? atoi(argv[2]) : 1024;
  if (gpus <= 0 || !xt::write_big_machine(argv[1], gpus)) {
    fprintf(stderr, "topo_gen_big: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
