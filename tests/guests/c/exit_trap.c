/* Ways for a guest to end, well or badly. argv[1] picks one:
 *
 *   exit N      prints `exit N`, then exit(N)                        (proc_exit)
 *   trap        prints `before trap`, then __builtin_trap()          (unreachable)
 *   loop        spins forever on a volatile counter                  (needs a host deadline)
 *   alloc       mallocs 64 MiB blocks, touching every page, and keeps them; prints `block N`
 *               per block; if malloc fails, prints `alloc failed after N blocks` and exits 3
 *               (or the host stops it first); after 64 blocks (4 GiB: more than wasm32 can
 *               address) prints `alloc not limited after 64 blocks` and exits 5
 *   recurse     recursion without end                                (call stack exhaustion)
 *   flood       writes 1 MiB blocks to stdout forever; on a write error, prints
 *               `flood write errno ENAME after N MiB` to stderr and exits 4
 *   escape [D]  tries to open files outside the sandbox and prints, per path,
 *               `escape PATH errno ENAME` (or `escape PATH OPENED`): ../../etc/passwd,
 *               /etc/passwd, and with a preopened directory D, D/../../../etc/passwd
 * Anything else prints a usage line to stderr and exits 2. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errname.h"

static volatile unsigned long long spin;
static volatile unsigned sink;
static char *volatile kept[64];

/* Not a tail call (the result is used after the call), so it cannot become a loop. */
__attribute__((noinline)) static unsigned recurse(unsigned depth) {
  if (depth == 0xFFFFFFFFu) return 0;
  unsigned below = recurse(depth + 1);
  sink = below;
  return below * 31u + depth;
}

static void try_open(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd >= 0) {
    printf("escape %s OPENED\n", path);
    close(fd);
  } else {
    printf("escape %s errno %s\n", path, errname(errno));
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "exit") == 0 && argc > 2) {
    int status = atoi(argv[2]);
    printf("exit %d\n", status);
    exit(status);
  }
  if (strcmp(mode, "trap") == 0) {
    printf("before trap\n");
    fflush(stdout);
    __builtin_trap();
  }
  if (strcmp(mode, "loop") == 0) {
    for (;;) spin++;
  }
  if (strcmp(mode, "alloc") == 0) {
    const size_t block = 64u << 20;
    for (unsigned long blocks = 0; blocks < 64; blocks++) {
      char *p = malloc(block);
      if (!p) {
        printf("alloc failed after %lu blocks\n", blocks);
        return 3;
      }
      for (size_t i = 0; i < block; i += 4096) p[i] = (char)i;
      kept[blocks] = p; /* a volatile store: the compiler may not drop the allocation */
      printf("block %lu\n", blocks + 1);
      fflush(stdout);
    }
    printf("alloc not limited after 64 blocks\n");
    return 5;
  }
  if (strcmp(mode, "recurse") == 0) {
    printf("recursing\n");
    fflush(stdout);
    printf("%u\n", recurse(0));
    return 0;
  }
  if (strcmp(mode, "flood") == 0) {
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    for (unsigned long long mib = 0;; mib++) {
      size_t done = 0;
      while (done < sizeof block) {
        ssize_t n = write(1, block + done, sizeof block - done);
        if (n < 0) {
          fprintf(stderr, "flood write errno %s after %llu MiB\n", errname(errno), mib);
          return 4;
        }
        done += (size_t)n;
      }
    }
  }
  if (strcmp(mode, "escape") == 0) {
    try_open("../../etc/passwd");
    try_open("/etc/passwd");
    if (argc > 2) {
      char path[512];
      snprintf(path, sizeof path, "%s/../../../etc/passwd", argv[2]);
      try_open(path);
    }
    return 0;
  }
  fprintf(stderr, "usage: exit_trap exit N | trap | loop | alloc | recurse | flood | escape [DIR]\n");
  return 2;
}
