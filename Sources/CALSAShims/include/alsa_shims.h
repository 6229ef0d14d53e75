#ifndef REVEILLE_ALSA_SHIMS_H
#define REVEILLE_ALSA_SHIMS_H

/// Where alsa-lib's error messages go once routed: the source position inside alsa-lib, the
/// error code (0 or a negative errno) and the message, already formatted.
typedef void (*RV_alsa_log_function)(const char *file, int line, const char *function, int err,
                                     const char *message);

/// snd_lib_error_set_handler with a handler that formats alsa-lib's printf-style message (a
/// variadic callback Swift cannot implement) and passes it to `log`; NULL restores stderr.
int RV_alsa_route_errors(RV_alsa_log_function log);

/// Installs a handler that does nothing for the signal the audio watchdog sends to a writer stuck
/// in a device (a blocking write that never returns): installed without SA_RESTART, so that the
/// write returns EINTR and the writer can drop the device. Returns the signal's number.
int RV_alsa_install_stall_signal(void);

/// Unblocks that signal for the calling thread (the daemon blocks signals it reads from a signalfd).
void RV_alsa_accept_stall_signal(void);

#endif
