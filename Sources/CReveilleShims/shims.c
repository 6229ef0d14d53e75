#define _GNU_SOURCE
#include "reveille_shims.h"

#include <errno.h>
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
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}
