#define _GNU_SOURCE
#include "reveille_shims.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <fcntl.h>
#include <sys/fanotify.h>
#include <wchar.h>
#include <locale.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/socket.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

int RV_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t length = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) {
        return -1;
    }
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int RV_peer_groups(int fd, gid_t *groups, int capacity) {
    socklen_t length = (socklen_t)(capacity * sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) {
        if (errno == ERANGE) {
            return (int)(length / sizeof(gid_t));
        }
        return -1;
    }
    return (int)(length / sizeof(gid_t));
}

int RV_accept_cloexec(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>

int RV_timerfd_realtime(void) {
    return timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC | TFD_NONBLOCK);
}

int RV_timerfd_arm_realtime(int fd, long long seconds, long nanoseconds) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = nanoseconds;
    /* it_value of zero would disarm: an instant in the past fires at once at 1 ns. */
    if (seconds <= 0 && nanoseconds <= 0) {
        spec.it_value.tv_nsec = 1;
    }
    return timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &spec, NULL);
}

int RV_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

#include <fcntl.h>
#include <unistd.h>

int RV_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

#include <spawn.h>

int RV_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

#include <sys/inotify.h>

int RV_inotify_watch_directory(const char *path) {
    int fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (fd < 0) return -1;
    if (inotify_add_watch(fd, path, IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_CLOSE_WRITE | IN_ATTRIB) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}


int RV_wcwidth(unsigned int scalar) {
    static int ready = 0;
    if (!ready) {
        locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
        if (utf8) uselocale(utf8);
        ready = 1;
    }
    return wcwidth((wchar_t)scalar);
}

int RV_fanotify_probe(void) {
    int fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY);
    if (fd < 0) {
        return errno;
    }
    close(fd);
    return 0;
}

int RV_clock_synchronized(void) {
    struct timex state = {0};
    int result = adjtimex(&state);
    if (result < 0) {
        return -1;
    }
    return result == TIME_ERROR ? 0 : 1;
}

int RV_fanotify_open(void) {
    return fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE);
}

int RV_fanotify_mark_filesystem_exec(int fd, const char *path) {
    return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM, AT_FDCWD, path);
}

int RV_fanotify_mark_mount_exec(int fd, const char *path) {
    return fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_EXEC_PERM, AT_FDCWD, path);
}

void RV_fanotify_unmark_exec(int fd, const char *path) {
    fanotify_mark(fd, FAN_MARK_REMOVE | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM, AT_FDCWD, path);
    fanotify_mark(fd, FAN_MARK_REMOVE | FAN_MARK_MOUNT, FAN_OPEN_EXEC_PERM, AT_FDCWD, path);
}

int RV_fanotify_mark_open(int fd, const char *path) {
    return fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, path);
}

int RV_fanotify_unmark_open(int fd, const char *path) {
    return fanotify_mark(fd, FAN_MARK_REMOVE, FAN_OPEN_PERM, AT_FDCWD, path);
}

int RV_fanotify_flush(int fd) {
    return fanotify_mark(fd, FAN_MARK_FLUSH, 0, AT_FDCWD, NULL);
}

int RV_fanotify_respond(int fd, int event_fd, int allow);

int RV_fanotify_read(int fd, RV_exec_event *events, int capacity, int *unanswered) {
    *unanswered = 0;
    char buffer[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
    ssize_t length = read(fd, buffer, sizeof(buffer));
    if (length < 0) {
        return (errno == EAGAIN) ? 0 : -1;
    }
    int count = 0;
    struct fanotify_event_metadata *event = (struct fanotify_event_metadata *)buffer;
    while (FAN_EVENT_OK(event, length)) {
        if (event->vers == FANOTIFY_METADATA_VERSION && event->fd >= 0) {
            int permission = (event->mask & (FAN_OPEN_EXEC_PERM | FAN_OPEN_PERM)) != 0;
            if (permission && count < capacity) {
                events[count].fd = event->fd;
                events[count].pid = event->pid;
                events[count].exec = (event->mask & FAN_OPEN_EXEC_PERM) != 0;
                count++;
            } else if (permission) {
                // Never leave an exec or an open waiting; one that cannot be answered is counted.
                if (RV_fanotify_respond(fd, event->fd, 1) != 0) (*unanswered)++;
            } else {
                close(event->fd);
            }
        }
        event = FAN_EVENT_NEXT(event, length);
    }
    return count;
}

int RV_fanotify_respond(int fd, int event_fd, int allow) {
    struct fanotify_response response = {.fd = event_fd, .response = allow ? FAN_ALLOW : FAN_DENY};
    ssize_t written;
    do {
        written = write(fd, &response, sizeof(response));
    } while (written < 0 && errno == EINTR);
    int saved = errno;
    close(event_fd);
    errno = saved;
    return written == sizeof(response) ? 0 : -1;
}

int RV_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int RV_pidfd_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>

int RV_timerfd_monotonic(void) {
    return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
}

int RV_timerfd_arm_relative(int fd, long long seconds, long nanoseconds, long interval_ms) {
    struct itimerspec spec = {0};
    spec.it_value.tv_sec = (time_t)seconds;
    spec.it_value.tv_nsec = nanoseconds;
    spec.it_interval.tv_sec = interval_ms / 1000;
    spec.it_interval.tv_nsec = (interval_ms % 1000) * 1000000L;
    return timerfd_settime(fd, 0, &spec, NULL);
}

int RV_signalfd_termination(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

int RV_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t count = read(fd, &info, sizeof(info));
    if (count == (ssize_t)sizeof(info)) return (int)info.ssi_signo;
    if (count < 0 && errno == EAGAIN) return 0;
    return -1;
}

int RV_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int RV_epoll_control(int epfd, int op, int fd, unsigned long long tag, unsigned int events) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.u64 = tag;
    int ops[] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    return epoll_ctl(epfd, ops[op], fd, &event);
}

int RV_epoll_wait(int epfd, unsigned long long *tags, unsigned int *events, int capacity, int timeout_ms) {
    struct epoll_event ready[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        tags[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

#include <linux/input.h>
#include <sys/ioctl.h>
#include <string.h>

int RV_evdev_grab(int fd, int on) {
    return ioctl(fd, EVIOCGRAB, on ? 1 : 0) == 0 ? 0 : -errno;
}

int RV_evdev_name(int fd, char *name, int capacity) {
    if (capacity <= 0) return -EINVAL;
    memset(name, 0, (size_t)capacity);
    int length = ioctl(fd, EVIOCGNAME(capacity - 1), name);
    return length >= 0 ? length : -errno;
}

int RV_evdev_has_key(int fd, unsigned int code) {
    unsigned char bits[KEY_MAX / 8 + 1];
    memset(bits, 0, sizeof bits);
    if (code > KEY_MAX) return 0;
    if (ioctl(fd, EVIOCGBIT(EV_KEY, sizeof bits), bits) < 0) return -errno;
    return (bits[code / 8] >> (code % 8)) & 1;
}

void RV_close_from_on_exec(int first) {
    for (int fd = first; fd < 65536; fd++) {
        int flags = fcntl(fd, F_GETFD);
        if (flags >= 0 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
}

#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int RV_confine_helper(unsigned long memory_bytes, unsigned long cpu_seconds) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -errno;
    (void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);  // EINVAL on old kernels: nothing to clear
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &header, data) != 0) return -errno;
    struct rlimit memory = { memory_bytes, memory_bytes };
    if (setrlimit(RLIMIT_AS, &memory) != 0) return -errno;
    struct rlimit cpu = { cpu_seconds, cpu_seconds };
    if (setrlimit(RLIMIT_CPU, &cpu) != 0) return -errno;
    return 0;
}

unsigned long long RV_effective_capabilities(void) {
    struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[2];
    if (syscall(SYS_capget, &header, data) != 0) return ~0ULL;
    return ((unsigned long long)data[1].effective << 32) | data[0].effective;
}


int RV_malloc_trim(void) { return malloc_trim(0); }

void RV_name_this_thread(const char *name) {
    char cut[16];
    snprintf(cut, sizeof cut, "%s", name);
    (void)pthread_setname_np(pthread_self(), cut);
}
