#include "network_state.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

struct RV_network_watch {
    sd_bus *bus;
    int changed;
};

static int heard(sd_bus_message *message, void *data, sd_bus_error *error) {
    (void)message;
    (void)error;
    ((RV_network_watch *)data)->changed = 1;
    return 0;
}

RV_network_watch *RV_network_watch_open(void) {
    RV_network_watch *watch = calloc(1, sizeof *watch);
    if (!watch) return NULL;
    int r = sd_bus_open_system(&watch->bus);
    if (r >= 0) r = sd_bus_set_method_call_timeout(watch->bus, 500000);
    if (r >= 0)
        r = sd_bus_match_signal(watch->bus, NULL, "org.freedesktop.network1", "/org/freedesktop/network1",
                                "org.freedesktop.DBus.Properties", "PropertiesChanged", heard, watch);
    if (r >= 0)
        r = sd_bus_add_match(watch->bus, NULL,
                             "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                             "member='NameOwnerChanged',arg0='org.freedesktop.network1'",
                             heard, watch);
    if (r < 0) {
        RV_network_watch_close(watch);
        errno = -r;
        return NULL;
    }
    return watch;
}

int RV_network_watch_fd(RV_network_watch *watch) { return sd_bus_get_fd(watch->bus); }

int RV_network_watch_process(RV_network_watch *watch) {
    int r;
    while ((r = sd_bus_process(watch->bus, NULL)) > 0) {
    }
    if (r < 0) return r;
    int changed = watch->changed;
    watch->changed = 0;
    return changed;
}

int RV_network_state(RV_network_watch *watch, char *state, size_t size) {
    sd_bus_message *call = NULL, *reply = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    const char *value = NULL;
    int r = sd_bus_message_new_method_call(watch->bus, &call, "org.freedesktop.network1", "/org/freedesktop/network1",
                                           "org.freedesktop.DBus.Properties", "Get");
    if (r >= 0) r = sd_bus_message_set_auto_start(call, 0);
    if (r >= 0) r = sd_bus_message_append(call, "ss", "org.freedesktop.network1.Manager", "OperationalState");
    if (r >= 0) r = sd_bus_call(watch->bus, call, 500000, &error, &reply);
    if (r >= 0) r = sd_bus_message_read(reply, "v", "s", &value);
    if (r >= 0 && value) {
        strncpy(state, value, size - 1);
        state[size - 1] = '\0';
        r = 0;
    } else if (r >= 0) {
        r = -ENODATA;
    }
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(call);
    return r;
}

void RV_network_watch_close(RV_network_watch *watch) {
    if (!watch) return;
    sd_bus_flush_close_unref(watch->bus);
    free(watch);
}
