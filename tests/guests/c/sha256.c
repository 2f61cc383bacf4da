/* SHA-256 (FIPS 180-4) over a deterministic pseudo-random stream made in memory.
 *
 *   sha256 [MIB]      MIB: how many MiB to hash (default 16)
 *
 * The stream: xorshift64 (shifts 13, 7, 17) from the seed 0x9E3779B97F4A7C15, each state
 * after a step written out as 8 bytes, least significant first. Prints `sha256 MIB HEX`.
 * A CPU and memory benchmark with a checkable answer; WASI: args, fd_write, proc_exit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the cube roots of
 * the first 64 primes. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

struct sha256 {
  uint32_t h[8];
  uint8_t block[64];
  size_t used;       /* bytes in block */
  uint64_t length;   /* message length in bytes */
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* Section 6.2.2: one 512-bit block. */
static void compress(uint32_t h[8], const uint8_t *m) {
  uint32_t w[64];
  for (int t = 0; t < 16; t++)
    w[t] = (uint32_t)m[4 * t] << 24 | (uint32_t)m[4 * t + 1] << 16 | (uint32_t)m[4 * t + 2] << 8 | m[4 * t + 3];
  for (int t = 16; t < 64; t++) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = s1 + w[t - 7] + s0 + w[t - 16];
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int t = 0; t < 64; t++) {
    uint32_t big_s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    uint32_t ch = (e & f) ^ (~e & g);
    uint32_t t1 = hh + big_s1 + ch + K[t] + w[t];
    uint32_t big_s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = big_s0 + maj;
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

/* Section 5.3.3: the initial hash value. */
static void sha256_init(struct sha256 *s) {
  static const uint32_t H0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, H0, sizeof H0);
  s->used = 0;
  s->length = 0;
}

static void sha256_update(struct sha256 *s, const uint8_t *data, size_t len) {
  s->length += len;
  if (s->used > 0) {
    size_t take = 64 - s->used < len ? 64 - s->used : len;
    memcpy(s->block + s->used, data, take);
    s->used += take;
    data += take;
    len -= take;
    if (s->used < 64) return;
    compress(s->h, s->block);
    s->used = 0;
  }
  for (; len >= 64; data += 64, len -= 64) compress(s->h, data);
  memcpy(s->block, data, len);
  s->used = len;
}

/* Section 5.1.1: a 1 bit, zeros, and the length in bits as 64 bits, big-endian. */
static void sha256_final(struct sha256 *s, uint8_t out[32]) {
  uint64_t bits = s->length * 8;
  s->block[s->used++] = 0x80;
  if (s->used > 56) {
    memset(s->block + s->used, 0, 64 - s->used);
    compress(s->h, s->block);
    s->used = 0;
  }
  memset(s->block + s->used, 0, 56 - s->used);
  for (int i = 0; i < 8; i++) s->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  compress(s->h, s->block);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

static void print_digest(const char *label, const uint8_t digest[32]) {
  printf("%s ", label);
  for (int i = 0; i < 32; i++) printf("%02x", digest[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? atol(argv[1]) : 16;
  if (mib < 0 || mib > 4096) {
    fprintf(stderr, "usage: sha256 [MIB 0..4096]\n");
    return 2;
  }
  uint8_t digest[32];
  struct sha256 s;

  /* Known answers first (FIPS 180-2 appendix B): "abc" and the 448-bit message. */
  sha256_init(&s);
  sha256_update(&s, (const uint8_t *)"abc", 3);
  sha256_final(&s, digest);
  print_digest("sha256 abc", digest);
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  sha256_init(&s);
  sha256_update(&s, (const uint8_t *)two_blocks, strlen(two_blocks));
  sha256_final(&s, digest);
  print_digest("sha256 abcdbcde...", digest);

  static uint8_t chunk[65536];
  uint64_t x = 0x9E3779B97F4A7C15ull;
  sha256_init(&s);
  for (long c = 0; c < mib * 16; c++) {
    for (size_t i = 0; i < sizeof chunk; i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      for (int b = 0; b < 8; b++) chunk[i + b] = (uint8_t)(x >> (8 * b));
    }
    sha256_update(&s, chunk, sizeof chunk);
  }
  sha256_final(&s, digest);
  char label[32];
  snprintf(label, sizeof label, "sha256 %ld", mib);
  print_digest(label, digest);
  return 0;
}
