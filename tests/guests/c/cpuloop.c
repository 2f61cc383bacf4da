/* A CoreMark-style CPU loop: linked-list work, a small matrix multiply and a number-parsing
 * state machine, each folded into a CRC-16 per iteration. Deterministic: the same checksum on
 * every platform (fixed-width unsigned arithmetic only).
 *
 *   cpuloop [ITERATIONS]      default 2000
 *
 * Prints `cpuloop ITERATIONS checksum 0xXXXX list 0xXXXX matrix 0xXXXX state 0xXXXX`.
 * WASI: args, fd_write, proc_exit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NODES 64
#define N 12

/* CRC-16 (reflected polynomial 0xA001), one byte at a time. */
static uint16_t crc8(uint8_t byte, uint16_t crc) {
  crc ^= byte;
  for (int i = 0; i < 8; i++) crc = (crc & 1) ? (uint16_t)((crc >> 1) ^ 0xA001) : (uint16_t)(crc >> 1);
  return crc;
}
static uint16_t crc16(uint16_t value, uint16_t crc) { return crc8((uint8_t)(value >> 8), crc8((uint8_t)value, crc)); }
static uint16_t crc32v(uint32_t value, uint16_t crc) { return crc16((uint16_t)(value >> 16), crc16((uint16_t)value, crc)); }

static uint32_t seed = 1;
static uint32_t next_random(void) {
  seed = seed * 1664525u + 1013904223u;
  return seed >> 8;
}

/* ---- linked list ---- */
struct node {
  struct node *next;
  uint16_t key;
  uint16_t data;
};
static struct node pool[NODES];

static struct node *list_build(void) {
  for (int i = 0; i < NODES; i++) {
    pool[i].key = (uint16_t)(next_random() & 0x3ff);
    pool[i].data = (uint16_t)i;
    pool[i].next = i + 1 < NODES ? &pool[i + 1] : NULL;
  }
  return &pool[0];
}

static struct node *list_reverse(struct node *head) {
  struct node *prev = NULL;
  while (head) {
    struct node *next = head->next;
    head->next = prev;
    prev = head;
    head = next;
  }
  return prev;
}

/* Stable merge sort by key (then data, which is unique). */
static struct node *list_sort(struct node *head) {
  if (!head || !head->next) return head;
  struct node *slow = head, *fast = head->next;
  while (fast && fast->next) {
    slow = slow->next;
    fast = fast->next->next;
  }
  struct node *right = slow->next;
  slow->next = NULL;
  struct node *a = list_sort(head), *b = list_sort(right), out = {0}, *tail = &out;
  while (a && b) {
    if (a->key < b->key || (a->key == b->key && a->data <= b->data)) {
      tail->next = a;
      a = a->next;
    } else {
      tail->next = b;
      b = b->next;
    }
    tail = tail->next;
  }
  tail->next = a ? a : b;
  return out.next;
}

static int list_find(const struct node *head, uint16_t key) {
  for (int i = 0; head; head = head->next, i++)
    if (head->key == key) return i;
  return -1;
}

static uint16_t bench_list(uint16_t crc) {
  struct node *head = list_build();
  head = list_reverse(head);
  crc = crc16(head->data, crc);
  head = list_sort(head);
  for (const struct node *n = head; n; n = n->next) crc = crc16(n->key ^ n->data, crc);
  crc = crc16((uint16_t)list_find(head, pool[NODES / 2].key), crc);
  crc = crc16((uint16_t)list_find(head, 0x400), crc); /* never present: -1 */
  return crc;
}

/* ---- matrix ---- */
static uint32_t ma[N][N], mb[N][N], mc[N][N];

static uint16_t bench_matrix(uint16_t crc) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      ma[i][j] = next_random() & 0xffff;
      mb[i][j] = next_random() & 0xffff;
    }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t sum = 0;
      for (int k = 0; k < N; k++) sum += ma[i][k] * mb[k][j];
      mc[i][j] = sum;
    }
  uint32_t trace = 0, mixed = 0;
  for (int i = 0; i < N; i++) {
    trace += mc[i][i];
    for (int j = 0; j < N; j++) mixed = (mixed << 1 | mixed >> 31) ^ mc[i][j];
  }
  return crc32v(mixed, crc32v(trace, crc));
}

/* ---- state machine: classifies comma-separated tokens as numbers ---- */
enum state { START, SIGN, INT, POINT, FRACTION, EXP, EXP_SIGN, SCIENTIFIC, INVALID, STATES };

static enum state step(enum state s, char c) {
  int digit = c >= '0' && c <= '9';
  switch (s) {
    case START: return digit ? INT : (c == '+' || c == '-') ? SIGN : c == '.' ? POINT : INVALID;
    case SIGN: return digit ? INT : c == '.' ? POINT : INVALID;
    case INT: return digit ? INT : c == '.' ? POINT : (c == 'e' || c == 'E') ? EXP : INVALID;
    case POINT: return digit ? FRACTION : INVALID;
    case FRACTION: return digit ? FRACTION : (c == 'e' || c == 'E') ? EXP : INVALID;
    case EXP: return digit ? SCIENTIFIC : (c == '+' || c == '-') ? EXP_SIGN : INVALID;
    case EXP_SIGN: return digit ? SCIENTIFIC : INVALID;
    case SCIENTIFIC: return digit ? SCIENTIFIC : INVALID;
    default: return INVALID;
  }
}

static uint16_t bench_state(uint16_t crc) {
  static const char *const tokens[] = {"5012", "1234", "-874", "+122", "35.54400", ".1234500", "-110.700",
                                       "+0.64400", "5.500e+3", "-.123e-2", "-87e+832", "+0.6e-12",
                                       "T0.3e-1F", "-T.T++Tq", "1T3.4e4z", "34.0e-T^"};
  char buf[256];
  size_t len = 0;
  /* A pseudo-random selection of tokens, with a few characters corrupted. */
  for (int t = 0; t < 24; t++) {
    const char *tok = tokens[next_random() % 16];
    for (; *tok; tok++) buf[len++] = (next_random() % 29 == 0) ? (char)('!' + next_random() % 90) : *tok;
    buf[len++] = ',';
  }
  uint32_t finals[STATES] = {0}, transitions = 0;
  enum state s = START;
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == ',') {
      finals[s]++;
      s = START;
      continue;
    }
    enum state next = step(s, buf[i]);
    transitions += next != s;
    s = next;
  }
  for (int i = 0; i < STATES; i++) crc = crc32v(finals[i], crc);
  return crc32v(transitions, crc);
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 2000;
  if (iterations < 1) {
    fprintf(stderr, "usage: cpuloop [ITERATIONS >= 1]\n");
    return 2;
  }
  uint16_t list = 0, matrix = 0, state = 0, total = 0;
  for (long i = 0; i < iterations; i++) {
    list = bench_list(list);
    matrix = bench_matrix(matrix);
    state = bench_state(state);
    total = crc16(list, crc16(matrix, crc16(state, total)));
  }
  printf("cpuloop %ld checksum 0x%04x list 0x%04x matrix 0x%04x state 0x%04x\n", iterations, total, list, matrix,
         state);
  return 0;
}
