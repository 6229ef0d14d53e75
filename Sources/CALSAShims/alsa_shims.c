#include "alsa_shims.h"

#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

static RV_alsa_log_function alsa_log;

static void alsa_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    char message[512];
    va_list arguments;
    va_start(arguments, fmt);
    vsnprintf(message, sizeof(message), fmt, arguments);
    va_end(arguments);
    RV_alsa_log_function log = alsa_log;
    if (log != NULL) {
        log(file, line, function, err, message);
    }
}

int RV_alsa_route_errors(RV_alsa_log_function log) {
    alsa_log = log;
    return snd_lib_error_set_handler(log == NULL ? NULL : alsa_error_handler);
}
