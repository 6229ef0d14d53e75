#ifndef REVEILLE_TEST_SUPPORT_H
#define REVEILLE_TEST_SUPPORT_H

#include <stddef.h>

/// posix_openpt + grantpt + unlockpt + ptsname_r (which need _XOPEN_SOURCE, out of Swift's
/// reach): a new pseudo-terminal's master descriptor (close-on-exec), its slave path in `name`.
/// Returns -1 with errno set.
int RVT_open_pty(char *name, size_t capacity);

#endif
