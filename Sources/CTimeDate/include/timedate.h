#ifndef REVEILLE_TIMEDATE_H
#define REVEILLE_TIMEDATE_H
#include <stddef.h>

/// Sets the system's time zone through systemd-timedated on the system bus (SetTimezone, not
/// interactive: polkit decides, by the rule the package ships for the daemon's user). Returns 0,
/// or a negative errno with the bus's error message in `message`.
int RV_set_timezone(const char *zone, char *message, size_t size);

#endif
