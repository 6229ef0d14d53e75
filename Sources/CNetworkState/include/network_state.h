#ifndef REVEILLE_NETWORK_STATE_H
#define REVEILLE_NETWORK_STATE_H
#include <stddef.h>

/// systemd-networkd's state, heard on the system bus: its manager's PropertiesChanged, and the
/// service coming or going. Nothing is started by asking (no bus activation).
typedef struct RV_network_watch RV_network_watch;

/// A connection to the system bus that hears networkd's changes; NULL (errno set) without a bus.
RV_network_watch *RV_network_watch_open(void);
/// The descriptor to poll: when readable, call RV_network_watch_process.
int RV_network_watch_fd(RV_network_watch *watch);
/// Reads what arrived: 1 when networkd's state may have changed, 0 when not, a negative errno
/// when the bus went away.
int RV_network_watch_process(RV_network_watch *watch);
/// networkd's OperationalState now ("routable", "no-carrier", ...) into `state`: 0, or a negative
/// errno (networkd not running: -ENOENT or the bus's error), within half a second at most.
int RV_network_state(RV_network_watch *watch, char *state, size_t size);
void RV_network_watch_close(RV_network_watch *watch);

#endif
