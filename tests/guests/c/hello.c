/* Arguments, environment, stdout/stderr and the exit status.
 *
 *   hello [STATUS] [ARGS...]
 *
 * Prints each argument as `argv[i]=...`, then `GREETING=...` (or `GREETING unset`), writes
 * one line to stderr, and exits with STATUS when argv[1] is a number from 0 to 255 (else 0).
 * WASI: args_sizes_get/args_get, environ_sizes_get/environ_get, fd_write, proc_exit. */
#include <stdio.h>
#include <stdlib.h>

static int parse_status(const char *s) {
  int value = 0;
  if (*s == '\0') return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    value = value * 10 + (*s - '0');
    if (value > 255) return -1;
  }
  return value;
}

int main(int argc, char **argv) {
  for (int i = 0; i < argc; i++) printf("argv[%d]=%s\n", i, argv[i]);
  const char *greeting = getenv("GREETING");
  if (greeting)
    printf("GREETING=%s\n", greeting);
  else
    printf("GREETING unset\n");
  fprintf(stderr, "hello: %d argument(s) on stderr\n", argc);
  int status = argc > 1 ? parse_status(argv[1]) : 0;
  return status < 0 ? 0 : status;
}
