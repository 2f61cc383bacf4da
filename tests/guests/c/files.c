/* The file system through ordinary libc calls, inside one directory.
 *
 *   files DIR        DIR: an absolute path to an existing, empty, writable directory
 *
 * Prints one line per check: `ok NAME [values]` when a call did what it should,
 * `NAME errno ENAME` when a call failed as it should, and `FAIL ...` otherwise. Ends with
 * `done` and leaves DIR empty again. Exits 1 if any check failed.
 * Nothing printed depends on the host: no inode numbers, devices, block counts or current
 * times, and errno values are printed by name.
 * WASI: path_open, fd_write, fd_read, fd_seek, fd_tell, fd_pread, fd_pwrite, fd_filestat_get,
 * fd_filestat_set_size, fd_filestat_set_times, path_filestat_get, path_filestat_set_times,
 * path_create_directory, path_remove_directory, path_unlink_file, path_rename, path_symlink,
 * path_readlink, path_link, fd_readdir, fd_sync, fd_datasync, fd_advise, fd_close,
 * fd_fdstat_get, fd_fdstat_set_flags, fd_allocate, fd_prestat_get, fd_prestat_dir_name. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errname.h"

static const char *dir;
static int failures;

static const char *at(const char *name) {
  static char paths[4][512];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, sizeof paths[0], "%s/%s", dir, name);
  return p;
}

static void fail(const char *what) {
  printf("FAIL %s (errno %s)\n", what, errname(errno));
  failures++;
}

/* `ok NAME` when cond holds, else a failure line. */
static void check(int cond, const char *name) {
  if (cond)
    printf("ok %s\n", name);
  else
    fail(name);
}

/* A call that must fail with `want`: prints `NAME errno ENAME` with the errno it got. */
static void expect_errno(int result, int want, const char *name) {
  if (result >= 0) {
    printf("FAIL %s succeeded\n", name);
    failures++;
  } else {
    printf("%s errno %s\n", name, errname(errno));
    if (errno != want) failures++;
  }
}

static void write_file(const char *name, const char *text) {
  int fd = open(at(name), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) != 0) fail(name);
}

/* The whole file as text (up to 255 bytes), or "" on error. */
static const char *read_file(const char *name) {
  static char buf[256];
  buf[0] = '\0';
  int fd = open(at(name), O_RDONLY);
  if (fd < 0) return buf;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  buf[n < 0 ? 0 : n] = '\0';
  close(fd);
  return buf;
}

/* Text with newlines shown as \n, for one-line output. */
static const char *escaped(const char *text) {
  static char buf[512];
  size_t o = 0;
  for (; *text && o + 3 < sizeof buf; text++) {
    if (*text == '\n') {
      buf[o++] = '\\';
      buf[o++] = 'n';
    } else {
      buf[o++] = *text;
    }
  }
  buf[o] = '\0';
  return buf;
}

static long long size_of(const char *name) {
  struct stat st;
  return stat(at(name), &st) == 0 ? (long long)st.st_size : -1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static const char *type_name(unsigned char type) {
  switch (type) {
    case DT_REG: return "file";
    case DT_DIR: return "dir";
    case DT_LNK: return "symlink";
    default: return "other";
  }
}

/* Prints `entries N` and `entry NAME TYPE` per entry, sorted, without "." and "..". */
static void list_dir(const char *path) {
  DIR *d = opendir(path);
  if (!d) {
    fail("opendir");
    return;
  }
  char *names[64];
  int count = 0;
  struct dirent *e;
  errno = 0;
  while ((e = readdir(d)) != NULL && count < 64) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    size_t len = strlen(e->d_name);
    names[count] = malloc(len + 2);
    names[count][0] = (char)e->d_type;
    memcpy(names[count] + 1, e->d_name, len + 1);
    count++;
  }
  if (errno != 0) fail("readdir");
  closedir(d);
  /* Sort by name: skip the leading type byte. */
  for (int i = 0; i < count; i++) names[i]++;
  qsort(names, (size_t)count, sizeof names[0], by_name);
  printf("entries %d\n", count);
  for (int i = 0; i < count; i++) {
    printf("entry %s %s\n", names[i], type_name((unsigned char)names[i][-1]));
    free(names[i] - 1);
  }
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] != '/') {
    fprintf(stderr, "usage: files /ABSOLUTE/EMPTY/DIR\n");
    return 2;
  }
  dir = argv[1];
  char buf[64];
  struct stat st;

  /* Exclusive creation, write, and a second exclusive creation that must fail. */
  int fd = open(at("a.txt"), O_CREAT | O_EXCL | O_WRONLY, 0644);
  check(fd >= 0, "exclusive-create");
  ssize_t n = write(fd, "hello world\n", 12);
  printf("%s write %zd\n", n == 12 ? "ok" : "FAIL", n);
  if (n != 12) failures++;
  check(close(fd) == 0, "close");
  expect_errno(open(at("a.txt"), O_CREAT | O_EXCL | O_WRONLY, 0644), EEXIST, "exclusive-create-again");

  /* Read/write descriptor: seeks, reads, positional I/O. */
  fd = open(at("a.txt"), O_RDWR);
  check(fd >= 0, "open-rdwr");
  off_t pos = lseek(fd, 6, SEEK_SET);
  n = read(fd, buf, 5);
  buf[n < 0 ? 0 : n] = '\0';
  check(pos == 6 && n == 5 && strcmp(buf, "world") == 0, "seek-set-read world");
  pos = lseek(fd, -11, SEEK_CUR);
  n = read(fd, buf, 4);
  buf[n < 0 ? 0 : n] = '\0';
  check(pos == 0 && strcmp(buf, "hell") == 0, "seek-cur-read hell");
  pos = lseek(fd, 0, SEEK_END);
  printf("%s seek-end %lld\n", pos == 12 ? "ok" : "FAIL", (long long)pos);
  if (pos != 12) failures++;
  expect_errno((int)lseek(fd, -100, SEEK_SET), EINVAL, "seek-negative");
  n = pwrite(fd, "HELLO", 5, 0);
  check(n == 5, "pwrite");
  n = pread(fd, buf, 5, 0);
  buf[n < 0 ? 0 : n] = '\0';
  check(n == 5 && strcmp(buf, "HELLO") == 0, "pread HELLO");
  pos = lseek(fd, 0, SEEK_CUR);
  printf("%s offset-after-pread %lld\n", pos == 12 ? "ok" : "FAIL", (long long)pos);
  if (pos != 12) failures++;
  n = pread(fd, buf, sizeof buf, 100);
  check(n == 0, "pread-past-end 0");

  /* Sizes: ftruncate down and up; the gap reads as zeros. */
  check(ftruncate(fd, 8) == 0 && fstat(fd, &st) == 0 && st.st_size == 8, "ftruncate-shrink fstat 8");
  check(size_of("a.txt") == 8, "stat 8");
  check(ftruncate(fd, 20) == 0 && fstat(fd, &st) == 0 && st.st_size == 20, "ftruncate-grow fstat 20");
  n = pread(fd, buf, sizeof buf, 0);
  int zeros = n == 20;
  for (int i = 8; zeros && i < 20; i++) zeros = buf[i] == 0;
  check(zeros && memcmp(buf, "HELLO wo", 8) == 0, "grown-tail-is-zero");
  check(S_ISREG(st.st_mode), "fstat-regular");
  check(fsync(fd) == 0, "fsync");
  check(fdatasync(fd) == 0, "fdatasync");
  int advice = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  printf("%s posix_fadvise %s\n", advice == 0 ? "ok" : "FAIL", advice == 0 ? "0" : errname(advice));
  if (advice != 0) failures++;
  check(close(fd) == 0, "close");
  expect_errno(close(fd), EBADF, "close-again");

  /* Directories. */
  check(mkdir(at("sub"), 0755) == 0, "mkdir");
  expect_errno(mkdir(at("sub"), 0755), EEXIST, "mkdir-again");
  write_file("sub/inner.txt", "inner\n");
  printf("%s nested-file %s\n", strcmp(read_file("sub/inner.txt"), "inner\n") == 0 ? "ok" : "FAIL",
         escaped(read_file("sub/inner.txt")));
  check(stat(at("sub"), &st) == 0 && S_ISDIR(st.st_mode), "stat-dir");
  write_file("b.txt", "bbb\n");
  list_dir(dir);

  /* Rename over an existing file, unlink. */
  check(rename(at("a.txt"), at("b.txt")) == 0, "rename-over");
  printf("%s b.txt size %lld\n", size_of("b.txt") == 20 ? "ok" : "FAIL", size_of("b.txt"));
  expect_errno(stat(at("a.txt"), &st), ENOENT, "stat-renamed-away");
  check(unlink(at("b.txt")) == 0, "unlink");
  expect_errno(stat(at("b.txt"), &st), ENOENT, "stat-unlinked");
  expect_errno(unlink(at("b.txt")), ENOENT, "unlink-again");

  /* rmdir: non-empty, then empty. */
  expect_errno(rmdir(at("sub")), ENOTEMPTY, "rmdir-nonempty");
  check(unlink(at("sub/inner.txt")) == 0, "unlink-nested");
  check(rmdir(at("sub")) == 0, "rmdir-empty");
  expect_errno(stat(at("sub"), &st), ENOENT, "stat-removed-dir");

  /* Symbolic link (relative target), readlink, lstat against stat. */
  write_file("target.txt", "target\n");
  check(symlink("target.txt", at("link")) == 0, "symlink");
  n = readlink(at("link"), buf, sizeof buf - 1);
  buf[n < 0 ? 0 : n] = '\0';
  printf("%s readlink %s\n", strcmp(buf, "target.txt") == 0 ? "ok" : "FAIL", buf);
  check(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode), "lstat-is-symlink");
  check(stat(at("link"), &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 7, "stat-follows 7");
  printf("%s read-through-symlink %s\n", strcmp(read_file("link"), "target\n") == 0 ? "ok" : "FAIL",
         escaped(read_file("link")));

  /* Hard link. */
  check(link(at("target.txt"), at("hard.txt")) == 0, "link");
  if (stat(at("hard.txt"), &st) == 0)
    printf("%s nlink %lld\n", st.st_nlink == 2 ? "ok" : "FAIL", (long long)st.st_nlink);
  else
    fail("stat hard.txt");
  list_dir(dir);
  check(unlink(at("hard.txt")) == 0 && stat(at("target.txt"), &st) == 0 && st.st_nlink == 1, "unlink-hard nlink 1");

  /* Times: utimensat with fixed times, futimens with UTIME_OMIT for atime. */
  struct timespec times[2] = {{1000000000, 250000000}, {1234567890, 500000000}};
  check(utimensat(AT_FDCWD, at("target.txt"), times, 0) == 0, "utimensat");
  if (stat(at("target.txt"), &st) == 0)
    printf("times atime %lld.%09ld mtime %lld.%09ld\n", (long long)st.st_atim.tv_sec, (long)st.st_atim.tv_nsec,
           (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
  fd = open(at("target.txt"), O_WRONLY);
  struct timespec only_mtime[2] = {{0, UTIME_OMIT}, {1500000000, 0}};
  check(fd >= 0 && futimens(fd, only_mtime) == 0, "futimens");
  close(fd);
  if (stat(at("target.txt"), &st) == 0)
    printf("times atime %lld.%09ld mtime %lld.%09ld\n", (long long)st.st_atim.tv_sec, (long)st.st_atim.tv_nsec,
           (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);

  /* O_APPEND: writes go to the end whatever the offset; O_TRUNC empties. */
  fd = open(at("app.txt"), O_CREAT | O_WRONLY | O_APPEND, 0644);
  check(fd >= 0 && write(fd, "one\n", 4) == 4, "append-write");
  lseek(fd, 0, SEEK_SET);
  check(write(fd, "two\n", 4) == 4, "append-write-after-seek");
  close(fd);
  printf("%s append-content %s\n", strcmp(read_file("app.txt"), "one\ntwo\n") == 0 ? "ok" : "FAIL",
         escaped(read_file("app.txt")));
  fd = open(at("app.txt"), O_WRONLY | O_TRUNC);
  check(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0, "truncate-on-open 0");
  /* fcntl: turn O_APPEND on for an open descriptor. */
  int flags = fcntl(fd, F_GETFL);
  check(flags >= 0 && !(flags & O_APPEND) && (flags & O_ACCMODE) == O_WRONLY, "fcntl-getfl wronly");
  check(fcntl(fd, F_SETFL, flags | O_APPEND) == 0 && (fcntl(fd, F_GETFL) & O_APPEND), "fcntl-setfl append");
  check(write(fd, "x\n", 2) == 2 && lseek(fd, 0, SEEK_SET) == 0 && write(fd, "y\n", 2) == 2, "write-after-setfl");
  close(fd);
  printf("%s setfl-content %s\n", strcmp(read_file("app.txt"), "x\ny\n") == 0 ? "ok" : "FAIL",
         escaped(read_file("app.txt")));

  /* posix_fallocate: a host may not support it (WASI fd_allocate is deprecated); either
   * answer prints the same line, and the file is removed after. */
  fd = open(at("alloc.bin"), O_CREAT | O_RDWR, 0644);
  int allocated = posix_fallocate(fd, 0, 4096);
  check(fd >= 0 && ((allocated == 0 && fstat(fd, &st) == 0 && st.st_size == 4096) || allocated == ENOTSUP),
        "posix_fallocate");
  close(fd);
  check(unlink(at("alloc.bin")) == 0, "unlink alloc.bin");

  /* A directory whose listing does not fit in one fd_readdir buffer (libc asks for 4 KiB):
   * every entry must come back exactly once across the calls. */
  check(mkdir(at("many"), 0755) == 0, "mkdir many");
  char long_name[160];
  for (int i = 0; i < 60; i++) {
    snprintf(long_name, sizeof long_name, "many/%03d-%0100d", i, 0);
    write_file(long_name, "");
  }
  DIR *d = opendir(at("many"));
  int seen[60] = {0}, listed = 0, bad = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    int i = atoi(e->d_name);
    if (i < 0 || i >= 60 || seen[i]++ || strlen(e->d_name) != 104) bad++;
    listed++;
  }
  if (d) closedir(d);
  printf("%s readdir-many %d\n", listed == 60 && !bad ? "ok" : "FAIL", listed);
  if (listed != 60 || bad) failures++;
  int removed = 0;
  for (int i = 0; i < 60; i++) {
    snprintf(long_name, sizeof long_name, "many/%03d-%0100d", i, 0);
    removed += unlink(at(long_name)) == 0;
  }
  check(removed == 60 && rmdir(at("many")) == 0, "remove-many");

  /* Errors. */
  expect_errno(open(at("missing.txt"), O_RDONLY), ENOENT, "open-missing");
  check(mkdir(at("d"), 0755) == 0, "mkdir d");
  expect_errno(open(at("d"), O_WRONLY), EISDIR, "open-dir-for-writing");
  expect_errno(open(at("app.txt/x"), O_RDONLY), ENOTDIR, "open-under-file");
  expect_errno(rmdir(at("app.txt")), ENOTDIR, "rmdir-file");
  expect_errno(unlink(at("d")), EISDIR, "unlink-dir");

  /* Clean up: the directory ends empty. */
  check(rmdir(at("d")) == 0 && unlink(at("app.txt")) == 0 && unlink(at("link")) == 0 && unlink(at("target.txt")) == 0,
        "cleanup");
  list_dir(dir);
  printf("done\n");
  return failures ? 1 : 0;
}
