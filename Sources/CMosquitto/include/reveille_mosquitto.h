#ifndef REVEILLE_MOSQUITTO_H
#define REVEILLE_MOSQUITTO_H

// libmosquitto's API, as its header declares it; the functions are this target's, each passing
// the call on to libmosquitto, which is opened (dlopen) by RV_mosquitto_open and never linked:
// `reveille-mqtt` is a name of `reveilled`, and the daemon's process must not load the library.
#include <mosquitto.h>
#include <mqtt_protocol.h>

/// Opens libmosquitto.so.1 and finds every function the bridge calls. 0, or -1 when the library
/// is not installed or lacks one (RV_mosquitto_problem says which). Call before any other.
int RV_mosquitto_open(void);

/// Why RV_mosquitto_open failed.
const char *RV_mosquitto_problem(void);

/// mosquitto_loop_read(mosq, 1) with the process's data size held (RLIMIT_DATA) to what it is now
/// plus `headroom` bytes during the call: libmosquitto allocates a packet's whole claimed length
/// before it reads it (up to 256 MiB), and a broker that claims more than the headroom gets
/// MOSQ_ERR_NOMEM (the connection ends) instead of the bridge's memory.
int RV_mosquitto_loop_read_bounded(struct mosquitto *mosq, unsigned long headroom);

#endif
