#ifndef REVEILLE_SHIMS_H
#define REVEILLE_SHIMS_H

#include <sys/types.h>

/// The credentials of the process at the other end of a connected Unix socket (SO_PEERCRED).
/// Returns 0, or -1 with errno set.
int RV_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// The supplementary groups of the peer (SO_PEERGROUPS, Linux 4.13+). Writes at most `capacity`
/// ids into `groups` and returns how many the peer has, or -1 with errno set.
int RV_peer_groups(int fd, gid_t *groups, int capacity);


/// accept4(fd, NULL, NULL, SOCK_CLOEXEC): a connection that no child process inherits.
int RV_accept_cloexec(int fd);

#endif
