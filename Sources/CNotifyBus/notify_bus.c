#include "notify_bus.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define RV_ACTION_QUEUE 16

struct RV_notify_bus {
    sd_bus *bus;
    sd_bus_slot *match;
    uint32_t ids[RV_ACTION_QUEUE];
    char keys[RV_ACTION_QUEUE][64];
    int count;
};

static const char *service = "org.freedesktop.Notifications";
static const char *path = "/org/freedesktop/Notifications";

static int on_action(sd_bus_message *message, void *userdata, sd_bus_error *error) {
    (void)error;
    RV_notify_bus *self = userdata;
    uint32_t id = 0;
    const char *key = NULL;
    if (sd_bus_message_read(message, "us", &id, &key) < 0 || key == NULL) return 0;
    if (self->count == RV_ACTION_QUEUE) return 0;  // a flood of taps: the rest are dropped
    self->ids[self->count] = id;
    strncpy(self->keys[self->count], key, sizeof self->keys[0] - 1);
    self->keys[self->count][sizeof self->keys[0] - 1] = 0;
    self->count++;
    return 0;
}

RV_notify_bus *RV_notify_open(int *error) {
    RV_notify_bus *self = calloc(1, sizeof *self);
    if (self == NULL) {
        *error = -ENOMEM;
        return NULL;
    }
    int r = sd_bus_open_user(&self->bus);
    if (r >= 0)
        r = sd_bus_match_signal(self->bus, &self->match, NULL, path, service, "ActionInvoked", on_action, self);
    if (r < 0) {
        *error = r;
        RV_notify_close(self);
        return NULL;
    }
    return self;
}

void RV_notify_close(RV_notify_bus *self) {
    if (self == NULL) return;
    sd_bus_slot_unref(self->match);
    sd_bus_flush_close_unref(self->bus);
    free(self);
}

int RV_notify_fd(RV_notify_bus *self) { return sd_bus_get_fd(self->bus); }

int RV_notify_events(RV_notify_bus *self) { return sd_bus_get_events(self->bus); }

int RV_notify_process(RV_notify_bus *self) {
    int r;
    do {
        r = sd_bus_process(self->bus, NULL);
    } while (r > 0);
    return r;
}

int RV_notify_send(RV_notify_bus *self, const char *app_name, const char *summary, const char *body,
                   const char *action_key, const char *action_label, int32_t timeout_ms, uint32_t *id,
                   char *message, int message_size) {
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    int r = sd_bus_message_new_method_call(self->bus, &call, service, path, service, "Notify");
    if (r >= 0) r = sd_bus_message_append(call, "susss", app_name, (uint32_t)0, "alarm-clock", summary, body);
    if (r >= 0) {
        if (action_key != NULL)
            r = sd_bus_message_append(call, "as", 2, action_key, action_label);
        else
            r = sd_bus_message_append(call, "as", 0);
    }
    // Urgency "normal" (1), so that the desktop shows it even in "do not disturb" only if it would.
    if (r >= 0) r = sd_bus_message_append(call, "a{sv}", 1, "urgency", "y", (uint8_t)1);
    if (r >= 0) r = sd_bus_message_append(call, "i", timeout_ms);
    if (r >= 0) r = sd_bus_call(self->bus, call, 5 * 1000 * 1000, &error, &reply);
    if (r >= 0) r = sd_bus_message_read(reply, "u", id);
    if (r < 0 && message != NULL && message_size > 0) {
        const char *text = error.message ? error.message : strerror(-r);
        strncpy(message, text, (size_t)message_size - 1);
        message[message_size - 1] = 0;
    }
    sd_bus_error_free(&error);
    sd_bus_message_unref(call);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 0;
}

int RV_notify_take_action(RV_notify_bus *self, uint32_t *id, char *key, int key_size) {
    if (self->count == 0) return 0;
    *id = self->ids[0];
    strncpy(key, self->keys[0], (size_t)key_size - 1);
    key[key_size - 1] = 0;
    memmove(self->ids, self->ids + 1, sizeof self->ids[0] * (size_t)(self->count - 1));
    memmove(self->keys, self->keys + 1, sizeof self->keys[0] * (size_t)(self->count - 1));
    self->count--;
    return 1;
}
