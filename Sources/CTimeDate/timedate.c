#include "timedate.h"
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

int RV_set_timezone(const char *zone, char *message, size_t size) {
    sd_bus *bus = NULL;
    sd_bus_error error = SD_BUS_ERROR_NULL;
    sd_bus_message *reply = NULL;
    int r = sd_bus_open_system(&bus);
    if (r < 0) {
        snprintf(message, size, "the system bus: %s", strerror(-r));
        return r;
    }
    r = sd_bus_call_method(bus, "org.freedesktop.timedate1", "/org/freedesktop/timedate1",
                           "org.freedesktop.timedate1", "SetTimezone", &error, &reply, "sb", zone, 0);
    if (r < 0) snprintf(message, size, "%s", error.message ? error.message : strerror(-r));
    sd_bus_error_free(&error);
    sd_bus_message_unref(reply);
    sd_bus_flush_close_unref(bus);
    return r;
}
