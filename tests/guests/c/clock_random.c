/* Clocks, randomness, sleeping and yielding.
 *
 *   clock_random [--print-random]
 *
 * Prints `clock ok` (realtime after 2020-01-01, monotonic never goes back), `res ok`
 * (clock resolutions are between 1 ns and 1 s), `random ok` (two 16-byte getentropy draws
 * differ), `sleep ok` (a 10 ms nanosleep lets the monotonic clock advance by at least 10 ms),
 * `yield ok`. With --print-random, also prints the first draw as `random1 HEX` and the second
 * as `random2 HEX` (for a host with a seeded generator). Exits 1 if a check fails.
 * WASI: clock_time_get, clock_res_get, random_get, poll_oneoff (clock), sched_yield. */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "errname.h"

static int failures;

static void fail(const char *what) {
  printf("FAIL %s (errno %s)\n", what, errname(errno));
  failures++;
}

static int64_t ns(const struct timespec *t) { return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec; }

static void print_hex(const char *label, const unsigned char *bytes, size_t len) {
  printf("%s ", label);
  for (size_t i = 0; i < len; i++) printf("%02x", bytes[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  int print_random = argc > 1 && strcmp(argv[1], "--print-random") == 0;
  struct timespec real, mono1, mono2, res;

  if (clock_gettime(CLOCK_REALTIME, &real) != 0) fail("clock_gettime realtime");
  if (clock_gettime(CLOCK_MONOTONIC, &mono1) != 0) fail("clock_gettime monotonic");
  if (clock_gettime(CLOCK_MONOTONIC, &mono2) != 0) fail("clock_gettime monotonic");
  if (real.tv_sec <= 1577836800) fail("realtime is before 2020-01-01");
  else if (ns(&mono2) < ns(&mono1)) fail("monotonic went back");
  else if (!failures) printf("clock ok\n");

  int res_ok = 1;
  clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};
  for (size_t i = 0; i < 2; i++) {
    if (clock_getres(clocks[i], &res) != 0) {
      fail("clock_getres");
      res_ok = 0;
    } else if (ns(&res) < 1 || ns(&res) > 1000000000) {
      printf("FAIL clock %zu resolution %lld ns\n", i, (long long)ns(&res));
      failures++;
      res_ok = 0;
    }
  }
  if (res_ok) printf("res ok\n");

  unsigned char r1[16], r2[16];
  if (getentropy(r1, sizeof r1) != 0 || getentropy(r2, sizeof r2) != 0) fail("getentropy");
  else if (memcmp(r1, r2, sizeof r1) == 0) fail("two random draws are equal");
  else printf("random ok\n");
  if (print_random) {
    print_hex("random1", r1, sizeof r1);
    print_hex("random2", r2, sizeof r2);
  }

  struct timespec before, after, ten_ms = {0, 10000000};
  if (clock_gettime(CLOCK_MONOTONIC, &before) != 0) fail("clock_gettime monotonic");
  if (nanosleep(&ten_ms, NULL) != 0) fail("nanosleep");
  if (clock_gettime(CLOCK_MONOTONIC, &after) != 0) fail("clock_gettime monotonic");
  int64_t slept = ns(&after) - ns(&before);
  if (slept < 10000000) {
    printf("FAIL slept only %lld ns\n", (long long)slept);
    failures++;
  } else {
    printf("sleep ok\n");
  }

  if (sched_yield() != 0) fail("sched_yield");
  else printf("yield ok\n");

  return failures ? 1 : 0;
}
