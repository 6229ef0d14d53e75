#ifndef RV_NOTIFY_BUS_H
#define RV_NOTIFY_BUS_H
#include <stdint.h>

/// A connection to the user's session bus and what the notification service said back: the
/// actions invoked, queued until taken (sd-bus, from libsystemd).
typedef struct RV_notify_bus RV_notify_bus;

/// Connects to the session bus ($DBUS_SESSION_BUS_ADDRESS, else $XDG_RUNTIME_DIR/bus) and
/// listens for ActionInvoked. NULL with -errno in *error on failure.
RV_notify_bus *RV_notify_open(int *error);
void RV_notify_close(RV_notify_bus *bus);
/// The descriptor to poll, and the events to poll it for.
int RV_notify_fd(RV_notify_bus *bus);
int RV_notify_events(RV_notify_bus *bus);
/// Handles what arrived; < 0 (-errno) once the bus is gone.
int RV_notify_process(RV_notify_bus *bus);
/// org.freedesktop.Notifications.Notify: one action (`action_key`, `action_label`; NULL for
/// none). The notification's id in *id. 0 or -errno; the service's error text in `message`.
int RV_notify_send(RV_notify_bus *bus, const char *app_name, const char *summary, const char *body,
                   const char *action_key, const char *action_label, int32_t timeout_ms, uint32_t *id,
                   char *message, int message_size);
/// The oldest action invoked not yet taken: 1 with its notification id and key, else 0.
int RV_notify_take_action(RV_notify_bus *bus, uint32_t *id, char *key, int key_size);

#endif
