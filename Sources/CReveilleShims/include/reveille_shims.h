#ifndef REVEILLE_SHIMS_H
#define REVEILLE_SHIMS_H

#include <spawn.h>
#include <sys/types.h>

/// The credentials of the process at the other end of a connected Unix socket (SO_PEERCRED).
/// Returns 0, or -1 with errno set.
int RV_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// The supplementary groups of the peer (SO_PEERGROUPS, Linux 4.13+). Writes at most `capacity`
/// ids into `groups` and returns how many the peer has, or -1 with errno set.
int RV_peer_groups(int fd, gid_t *groups, int capacity);


/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): a connection that no child process inherits.
int RV_accept_cloexec(int fd);  /* accept4(SOCK_CLOEXEC | SOCK_NONBLOCK) */

/// timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC).
int RV_timerfd_realtime(void);

/// Arms a realtime timerfd at an absolute wall-clock instant, with TFD_TIMER_CANCEL_ON_SET: a
/// read then fails with ECANCELED as soon as someone sets the clock (a jump, not a slew).
int RV_timerfd_arm_realtime(int fd, long long seconds, long nanoseconds);

/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a doorbell another thread can ring.
int RV_eventfd(void);

/// pipe2(fds, O_CLOEXEC): a pipe no other child inherits.
int RV_pipe_cloexec(int fds[2]);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+): the child closes every descriptor
/// from `lowest` up, so it inherits nothing the daemon holds.
int RV_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

/// An inotify descriptor (IN_CLOEXEC | IN_NONBLOCK) watching `path` for entries created, moved in,
/// deleted, rewritten or given new attributes: how the daemon sees /etc/localtime replaced, and an
/// input device created by udev and then given its permissions. Returns -1 with errno set.
int RV_inotify_watch_directory(const char *path);

/// Columns a character takes on a terminal (glibc's wcwidth in the C.UTF-8 locale, set for the
/// calling thread at the first call): 2 for CJK and emoji, 0 for combining marks, -1 for controls.
int RV_wcwidth(unsigned int scalar);

/// Whether the kernel offers fanotify permission events: fanotify_init(FAN_CLASS_CONTENT |
/// FAN_CLOEXEC, O_RDONLY), closed at once. Returns 0, or an errno (EPERM: not root; EINVAL or
/// ENOSYS: the kernel lacks them).
int RV_fanotify_probe(void);

/// The kernel's clock discipline (adjtimex): 1 when synchronized (NTP), 0 when not, -1 on error.
int RV_clock_synchronized(void);

/// One permission event: the event's descriptor (open on the file), the pid doing the exec or
/// the open, and whether it is an exec (FAN_OPEN_EXEC_PERM) rather than a plain open (FAN_OPEN_PERM).
typedef struct {
    int fd;
    int pid;
    int exec;
} RV_exec_event;

/// fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK, O_RDONLY | O_LARGEFILE):
/// a descriptor for permission events, or -1 with errno set.
int RV_fanotify_open(void);

/// fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM, AT_FDCWD, path):
/// every exec of a file on the file system holding `path`, through any mount of it in any mount
/// namespace, waits for an answer. Returns 0, or -1 with errno set.
int RV_fanotify_mark_filesystem_exec(int fd, const char *path);

/// The same with FAN_MARK_MOUNT: execs through the mount at `path` only (where a file system
/// mark is refused).
int RV_fanotify_mark_mount_exec(int fd, const char *path);

/// Removes the exec mark of the file system, or the mount, at `path`.
void RV_fanotify_unmark_exec(int fd, const char *path);

/// fanotify_mark(fd, FAN_MARK_ADD, FAN_OPEN_PERM, AT_FDCWD, path): every open of that inode
/// (any of its names) waits for an answer: how a script read by its interpreter is seen.
int RV_fanotify_mark_open(int fd, const char *path);

/// FAN_MARK_REMOVE of the open mark.
int RV_fanotify_unmark_open(int fd, const char *path);

/// fanotify_mark(fd, FAN_MARK_FLUSH, ...): removes every mark.
int RV_fanotify_flush(int fd);

/// Reads pending events into `events` (at most `capacity`); returns how many, 0 when none are
/// pending, or -1 with errno set. Events without a descriptor or of another kind are skipped.
int RV_fanotify_read(int fd, RV_exec_event *events, int capacity, int *unanswered);

/// Answers an event (FAN_ALLOW or FAN_DENY) and closes its descriptor.
int RV_fanotify_respond(int fd, int event_fd, int allow);

/// pidfd_open(pid, 0): a descriptor that becomes readable when the process exits; -1 with errno.
int RV_pidfd_open(int pid);

/// pidfd_send_signal(pidfd, signal, NULL, 0).
int RV_pidfd_signal(int pidfd, int signal);

/// Marks every descriptor from `first` on close-on-exec (before the daemon executes itself again).
void RV_close_from_on_exec(int first);

/* Gives the memory free in every malloc arena back to the system (glibc's malloc_trim(0)):
   a thread's arena outlives the thread. Returns 1 when some was released. */
int RV_malloc_trim(void);

/* Names the calling thread (pthread_setname_np, which needs _GNU_SOURCE); at most 15 bytes are kept. */
void RV_name_this_thread(const char *name);

#endif

/// timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK): for the event loop's own deadlines.
int RV_timerfd_monotonic(void);

/// Arms a timerfd `seconds` + `nanoseconds` from now, relative (both 0: disarm);
/// `interval_ms` > 0 repeats it.
int RV_timerfd_arm_relative(int fd, long long seconds, long nanoseconds, long interval_ms);

/// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and returns a signalfd
/// (SFD_CLOEXEC | SFD_NONBLOCK) that reads them; -1 with errno on failure.
int RV_signalfd_termination(void);

/// Reads one signalfd record; returns the signal number, 0 when none is pending, -1 on error.
int RV_signalfd_read(int fd);

/// epoll_create1(EPOLL_CLOEXEC).
int RV_epoll_create(void);

/// epoll_ctl with `tag` as the event's data (the loop's fd and registration generation):
/// op 0 add, 1 modify, 2 delete.
int RV_epoll_control(int epfd, int op, int fd, unsigned long long tag, unsigned int events);

/// epoll_wait filling parallel arrays of tags and their events.
int RV_epoll_wait(int epfd, unsigned long long *tags, unsigned int *events, int capacity, int timeout_ms);

/// EVIOCGRAB: `on` 1 takes the input device for this descriptor alone, 0 gives it back.
/// 0, or -errno (ENOTTY: not an evdev device, such as a test's FIFO; EBUSY: grabbed elsewhere).
int RV_evdev_grab(int fd, int on);

/// EVIOCGNAME into `name` (NUL-terminated); the length, or -errno.
int RV_evdev_name(int fd, char *name, int capacity);

/// Whether the device reports key `code` (EVIOCGBIT of EV_KEY): 1 yes, 0 no, -errno when the
/// descriptor is not an evdev device.
int RV_evdev_has_key(int fd, unsigned int code);

/// For a helper that reads untrusted input on the daemon's behalf: no new privileges, no
/// capabilities (ambient, effective, permitted, inheritable), and at most `memory_bytes` of address
/// space and `cpu_seconds` of CPU. 0, or -errno.
int RV_confine_helper(unsigned long memory_bytes, unsigned long cpu_seconds);

/// The calling process's effective capabilities (CapEff), or ~0 when they cannot be read.
unsigned long long RV_effective_capabilities(void);

