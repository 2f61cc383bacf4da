/* poll() on stdin with a timeout, then reads what is there.
 *
 * 1. poll() with no descriptors and a 20 ms timeout: prints `timeout poll 0` and checks that
 *    the monotonic clock advanced by at least 20 ms (`timeout ok`).
 * 2. poll() on fd 1 for POLLOUT: prints `stdout writable`.
 * 3. Loop: poll() on fd 0 for POLLIN with a 5 s timeout, then one read(); prints
 *    `stdin ready` and `read N: TEXT` (non-printing bytes as \xHH), until read returns 0,
 *    then prints `eof after N bytes`. A timeout prints `stdin timeout` and exits 2.
 * WASI: poll_oneoff (clock, fd_read and fd_write subscriptions), fd_read, clock_time_get. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

int main(void) {
  long long before = now_ns();
  int n = poll(NULL, 0, 20);
  long long waited = now_ns() - before;
  printf("timeout poll %d\n", n);
  if (n == 0 && waited >= 20000000)
    printf("timeout ok\n");
  else
    printf("FAIL timeout waited %lld ns (errno %s)\n", waited, errname(errno));

  struct pollfd out = {.fd = 1, .events = POLLOUT};
  n = poll(&out, 1, 1000);
  if (n == 1 && (out.revents & POLLOUT))
    printf("stdout writable\n");
  else
    printf("FAIL stdout poll %d revents %#x (errno %s)\n", n, (unsigned)out.revents, errname(errno));
  fflush(stdout);

  unsigned long long total = 0;
  for (;;) {
    struct pollfd in = {.fd = 0, .events = POLLIN};
    n = poll(&in, 1, 5000);
    if (n < 0) {
      if (errno == EINTR) continue;
      printf("FAIL stdin poll errno %s\n", errname(errno));
      return 1;
    }
    if (n == 0) {
      printf("stdin timeout\n");
      return 2;
    }
    if (!(in.revents & (POLLIN | POLLHUP))) {
      printf("FAIL stdin revents %#x\n", (unsigned)in.revents);
      return 1;
    }
    printf("stdin ready\n");
    char buf[256];
    ssize_t got = read(0, buf, sizeof buf);
    if (got < 0) {
      printf("FAIL read errno %s\n", errname(errno));
      return 1;
    }
    if (got == 0) break;
    total += (unsigned long long)got;
    printf("read %zd: ", got);
    for (ssize_t i = 0; i < got; i++) {
      unsigned char c = (unsigned char)buf[i];
      if (c >= 0x20 && c < 0x7f && c != '\\')
        putchar(c);
      else
        printf("\\x%02x", c);
    }
    printf("\n");
  }
  printf("eof after %llu bytes\n", total);
  return 0;
}
