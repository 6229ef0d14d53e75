#include "reveille_mosquitto.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

/* libmosquitto is opened when `reveilled` runs as `reveille-mqtt`, not linked: linked, it (and
 * its TLS library) would be mapped into the daemon, which never talks to the network. Each
 * function of its API the bridge uses is defined here with libmosquitto's own prototype (the
 * header checks them) and calls the library's through a pointer found by dlsym. */

typedef void (*connect_callback)(struct mosquitto *, void *, int);
typedef void (*message_callback)(struct mosquitto *, void *, const struct mosquitto_message *);
typedef int (*password_callback)(char *, int, int, void *);

/* X(return type, name, parameters, arguments) */
#define RV_FUNCTIONS(X) \
    X(int, mosquitto_lib_init, (void), ()) \
    X(struct mosquitto *, mosquitto_new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj)) \
    X(int, mosquitto_int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value)) \
    X(int, mosquitto_username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), \
      (mosq, username, password)) \
    X(int, mosquitto_tls_set, \
      (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, \
       password_callback pw_callback), \
      (mosq, cafile, capath, certfile, keyfile, pw_callback)) \
    X(int, mosquitto_will_set, \
      (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, topic, payloadlen, payload, qos, retain)) \
    X(int, mosquitto_connect_bind, \
      (struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address), \
      (mosq, host, port, keepalive, bind_address)) \
    X(const char *, mosquitto_strerror, (int mosq_errno), (mosq_errno)) \
    X(const char *, mosquitto_connack_string, (int connack_code), (connack_code)) \
    X(int, mosquitto_socket, (struct mosquitto *mosq), (mosq)) \
    X(bool, mosquitto_want_write, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_loop_read, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, mosquitto_loop_write, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, mosquitto_loop_misc, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_disconnect, (struct mosquitto *mosq), (mosq)) \
    X(int, mosquitto_subscribe, (struct mosquitto *mosq, int *mid, const char *sub, int qos), (mosq, mid, sub, qos)) \
    X(int, mosquitto_publish, \
      (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, mid, topic, payloadlen, payload, qos, retain))

/* The same for those that return nothing. */
#define RV_PROCEDURES(X) \
    X(mosquitto_destroy, (struct mosquitto *mosq), (mosq)) \
    X(mosquitto_user_data_set, (struct mosquitto *mosq, void *obj), (mosq, obj)) \
    X(mosquitto_connect_callback_set, (struct mosquitto *mosq, connect_callback on_connect), (mosq, on_connect)) \
    X(mosquitto_disconnect_callback_set, (struct mosquitto *mosq, connect_callback on_disconnect), \
      (mosq, on_disconnect)) \
    X(mosquitto_message_callback_set, (struct mosquitto *mosq, message_callback on_message), (mosq, on_message))

#define RV_POINTER(type, name, parameters, arguments) static type(*p_##name) parameters;
#define RV_PROCEDURE_POINTER(name, parameters, arguments) static void(*p_##name) parameters;
RV_FUNCTIONS(RV_POINTER)
RV_PROCEDURES(RV_PROCEDURE_POINTER)

#define RV_FORWARD(type, name, parameters, arguments) \
    type name parameters { return p_##name arguments; }
#define RV_PROCEDURE_FORWARD(name, parameters, arguments) \
    void name parameters { p_##name arguments; }
RV_FUNCTIONS(RV_FORWARD)
RV_PROCEDURES(RV_PROCEDURE_FORWARD)

static char problem[256];

const char *RV_mosquitto_problem(void) { return problem; }

int RV_mosquitto_open(void) {
    void *library = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(problem, sizeof problem, "libmosquitto is not installed (%s): sudo apt install libmosquitto1",
                 dlerror());
        return -1;
    }
#define RV_FIND(name)                                                                                   \
    if (!(*(void **)&p_##name = dlsym(library, #name))) {                                               \
        snprintf(problem, sizeof problem, "libmosquitto.so.1 has no %s: install libmosquitto1 2.0 or later", \
                 #name);                                                                                \
        return -1;                                                                                      \
    }
#define RV_FIND_FUNCTION(type, name, parameters, arguments) RV_FIND(name)
#define RV_FIND_PROCEDURE(name, parameters, arguments) RV_FIND(name)
    RV_FUNCTIONS(RV_FIND_FUNCTION)
    RV_PROCEDURES(RV_FIND_PROCEDURE)
    return 0;
}

/* The process's data size now (/proc/self/statm's data field, in bytes), or 0. */
static unsigned long data_bytes(void) {
    static int fd = -2;
    if (fd == -2) fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[128];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    if (got <= 0) return 0;
    text[got] = 0;
    unsigned long size, resident, shared, code, library, data;
    if (sscanf(text, "%lu %lu %lu %lu %lu %lu", &size, &resident, &shared, &code, &library, &data) != 6) return 0;
    return data * (unsigned long)sysconf(_SC_PAGESIZE);
}

int RV_mosquitto_loop_read_bounded(struct mosquitto *mosq, unsigned long headroom) {
    struct rlimit was;
    int lowered = 0;
    unsigned long now = data_bytes();
    if (now > 0 && getrlimit(RLIMIT_DATA, &was) == 0) {
        rlim_t bound = (rlim_t)(now + headroom);
        if (was.rlim_cur == RLIM_INFINITY || bound < was.rlim_cur) {
            struct rlimit tighter = { bound, was.rlim_max };
            lowered = setrlimit(RLIMIT_DATA, &tighter) == 0;
        }
    }
    int code = p_mosquitto_loop_read(mosq, 1);
    if (lowered) setrlimit(RLIMIT_DATA, &was);
    return code;
}
