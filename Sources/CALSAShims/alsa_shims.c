#include <pthread.h>
#include <signal.h>
#include <string.h>
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

static void RV_alsa_stall_handler(int signal) { (void)signal; }

int RV_alsa_install_stall_signal(void) {
    int number = SIGRTMIN + 4;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = RV_alsa_stall_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0; /* no SA_RESTART: the blocked call returns EINTR */
    sigaction(number, &action, NULL);
    return number;
}

void RV_alsa_accept_stall_signal(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGRTMIN + 4);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}
