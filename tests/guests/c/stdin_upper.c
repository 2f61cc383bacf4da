/* Streams stdin to stdout upper-cased (ASCII letters only), chunk by chunk as it arrives,
 * then prints the total byte count to stderr as `bytes N`.
 * WASI: fd_read on fd 0, fd_write on fds 1 and 2. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "errname.h"

static int write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

int main(void) {
  static char buf[4096];
  unsigned long long total = 0;
  for (;;) {
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      fprintf(stderr, "read: errno %s\n", errname(errno));
      return 1;
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; i++)
      if (buf[i] >= 'a' && buf[i] <= 'z') buf[i] = (char)(buf[i] - 'a' + 'A');
    if (write_all(1, buf, (size_t)n) < 0) {
      fprintf(stderr, "write: errno %s\n", errname(errno));
      return 1;
    }
    total += (unsigned long long)n;
  }
  fprintf(stderr, "bytes %llu\n", total);
  return 0;
}
