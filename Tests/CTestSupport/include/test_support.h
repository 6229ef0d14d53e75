#ifndef REVEILLE_TEST_SUPPORT_H
#define REVEILLE_TEST_SUPPORT_H

#include <stddef.h>

/// posix_openpt + grantpt + unlockpt + ptsname_r (which need _XOPEN_SOURCE, out of Swift's
/// reach): a new pseudo-terminal's master descriptor (close-on-exec), its slave path in `name`.
/// Returns -1 with errno set.
int RVT_open_pty(char *name, size_t capacity);

/// A stand-in notification service on the session bus at `address` (notifications.c): it records
/// each notification as "summary|body|actions;", and with `tap_ask` taps the "ask" action of the
/// first notification that offers it. NULL when it cannot start (said on stderr).
typedef struct RVT_notifications RVT_notifications;
RVT_notifications *RVT_notifications_start(const char *address, int tap_ask);
int RVT_notifications_count(RVT_notifications *stub);
void RVT_notifications_get(RVT_notifications *stub, int index, char *text, size_t capacity);
void RVT_notifications_stop(RVT_notifications *stub);

#endif
