/* errno -> symbolic name, so that guest output never depends on libc message strings.
 * The numeric values differ between Linux and WASI; the names do not. */
#ifndef SANDTAB_ERRNAME_H
#define SANDTAB_ERRNAME_H

#include <errno.h>
#include <stdio.h>

struct errname {
  int code;
  const char *name;
};

static const struct errname ERRNAMES[] = {
    /* Aliases (EOPNOTSUPP == ENOTSUP, EWOULDBLOCK == EAGAIN) are left out: first match wins. */
    {EPERM, "EPERM"},
    {ENOENT, "ENOENT"},
    {EIO, "EIO"},
    {E2BIG, "E2BIG"},
    {EBADF, "EBADF"},
    {EAGAIN, "EAGAIN"},
    {ENOMEM, "ENOMEM"},
    {EACCES, "EACCES"},
    {EFAULT, "EFAULT"},
    {EBUSY, "EBUSY"},
    {EEXIST, "EEXIST"},
    {EXDEV, "EXDEV"},
    {ENODEV, "ENODEV"},
    {ENOTDIR, "ENOTDIR"},
    {EISDIR, "EISDIR"},
    {EINVAL, "EINVAL"},
    {ENFILE, "ENFILE"},
    {EMFILE, "EMFILE"},
    {ENOTTY, "ENOTTY"},
    {ETXTBSY, "ETXTBSY"},
    {EFBIG, "EFBIG"},
    {ENOSPC, "ENOSPC"},
    {ESPIPE, "ESPIPE"},
    {EROFS, "EROFS"},
    {EMLINK, "EMLINK"},
    {EPIPE, "EPIPE"},
    {ERANGE, "ERANGE"},
    {ENAMETOOLONG, "ENAMETOOLONG"},
    {ENOSYS, "ENOSYS"},
    {ENOTEMPTY, "ENOTEMPTY"},
    {ELOOP, "ELOOP"},
    {EOVERFLOW, "EOVERFLOW"},
    {EILSEQ, "EILSEQ"},
    {ENOTSUP, "ENOTSUP"},
    {EINTR, "EINTR"},
    {ENXIO, "ENXIO"},
    {ESRCH, "ESRCH"},
    {EDQUOT, "EDQUOT"},
#ifdef ENOTCAPABLE
    {ENOTCAPABLE, "ENOTCAPABLE"},
#endif
};

static const char *errname(int code) {
  static char unknown[32];
  for (size_t i = 0; i < sizeof ERRNAMES / sizeof ERRNAMES[0]; i++)
    if (ERRNAMES[i].code == code) return ERRNAMES[i].name;
  snprintf(unknown, sizeof unknown, "E?%d", code);
  return unknown;
}

#endif
