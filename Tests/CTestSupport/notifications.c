// A stand-in for the desktop's notification service (org.freedesktop.Notifications) on a session
// bus the test starts: it records what it is asked to show, and can tap a notification's "ask"
// action the way a person would, and the first "again" action too. sd-bus, from libsystemd.
#include "include/test_support.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define RVT_MAX_NOTES 64

struct RVT_notifications {
    sd_bus *bus;
    pthread_t thread;
    pthread_mutex_t lock;
    volatile int stop;
    int tap_ask;
    int tap_again;
    uint32_t next_id;
    int count;
    char *notes[RVT_MAX_NOTES];
    uint32_t pending_tap;
    const char *pending_key;
};

static int notify(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)error;
    struct RVT_notifications *self = userdata;
    const char *app = NULL, *icon = NULL, *summary = NULL, *body = NULL;
    uint32_t replaces = 0;
    char **actions = NULL;
    int32_t timeout = 0;
    int r = sd_bus_message_read(m, "susss", &app, &replaces, &icon, &summary, &body);
    if (r >= 0) r = sd_bus_message_read_strv(m, &actions);
    if (r >= 0) r = sd_bus_message_skip(m, "a{sv}");
    if (r >= 0) r = sd_bus_message_read(m, "i", &timeout);
    if (r < 0) return r;
    int asks = 0, agains = 0;
    char action_text[256] = "";
    for (char **a = actions; a != NULL && *a != NULL; a++) {
        if (strcmp(*a, "ask") == 0) asks = 1;
        if (strcmp(*a, "again") == 0) agains = 1;
        strncat(action_text, *a, sizeof action_text - strlen(action_text) - 2);
        strcat(action_text, ";");
    }
    pthread_mutex_lock(&self->lock);
    uint32_t id = ++self->next_id;
    if (self->count < RVT_MAX_NOTES) {
        size_t size = strlen(summary) + strlen(body) + strlen(action_text) + 8;
        char *note = malloc(size);
        snprintf(note, size, "%s|%s|%s", summary, body, action_text);
        self->notes[self->count++] = note;
    }
    if (asks && self->tap_ask) {
        self->tap_ask = 0;
        self->pending_tap = id;
        self->pending_key = "ask";
    } else if (agains && self->tap_again) {
        self->tap_again = 0;
        self->pending_tap = id;
        self->pending_key = "again";
    }
    pthread_mutex_unlock(&self->lock);
    for (char **a = actions; a != NULL && *a != NULL; a++) free(*a);
    free(actions);
    return sd_bus_reply_method_return(m, "u", id);
}

static int capabilities(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    return sd_bus_reply_method_return(m, "as", 2, "body", "actions");
}

static const sd_bus_vtable vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", notify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetCapabilities", "", "as", capabilities, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_SIGNAL("ActionInvoked", "us", 0),
    SD_BUS_VTABLE_END,
};

static void *serve(void *argument) {
    struct RVT_notifications *self = argument;
    while (!self->stop) {
        while (sd_bus_process(self->bus, NULL) > 0) {
        }
        pthread_mutex_lock(&self->lock);
        uint32_t tap = self->pending_tap;
        const char *key = self->pending_key;
        self->pending_tap = 0;
        pthread_mutex_unlock(&self->lock);
        if (tap != 0)
            sd_bus_emit_signal(self->bus, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                               "ActionInvoked", "us", tap, key);
        sd_bus_wait(self->bus, 100 * 1000);
    }
    return NULL;
}

RVT_notifications *RVT_notifications_start(const char *address, int tap_ask) {
    struct RVT_notifications *self = calloc(1, sizeof *self);
    pthread_mutex_init(&self->lock, NULL);
    self->tap_ask = tap_ask;
    self->tap_again = tap_ask;
    int r = sd_bus_new(&self->bus);
    if (r >= 0) r = sd_bus_set_address(self->bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(self->bus, 1);
    if (r >= 0) r = sd_bus_start(self->bus);
    if (r >= 0)
        r = sd_bus_add_object_vtable(self->bus, NULL, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                     vtable, self);
    if (r >= 0) r = sd_bus_request_name(self->bus, "org.freedesktop.Notifications", 0);
    if (r >= 0) r = pthread_create(&self->thread, NULL, serve, self) == 0 ? 0 : -errno;
    if (r < 0) {
        fprintf(stderr, "notification stub: %s\n", strerror(-r));
        sd_bus_flush_close_unref(self->bus);
        free(self);
        return NULL;
    }
    return self;
}

int RVT_notifications_count(RVT_notifications *self) {
    pthread_mutex_lock(&self->lock);
    int count = self->count;
    pthread_mutex_unlock(&self->lock);
    return count;
}

void RVT_notifications_get(RVT_notifications *self, int index, char *text, size_t capacity) {
    pthread_mutex_lock(&self->lock);
    snprintf(text, capacity, "%s", index < self->count ? self->notes[index] : "");
    pthread_mutex_unlock(&self->lock);
}

void RVT_notifications_stop(RVT_notifications *self) {
    self->stop = 1;
    pthread_join(self->thread, NULL);
    sd_bus_flush_close_unref(self->bus);
    for (int i = 0; i < self->count; i++) free(self->notes[i]);
    pthread_mutex_destroy(&self->lock);
    free(self);
}
