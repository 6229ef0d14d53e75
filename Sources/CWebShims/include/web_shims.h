#ifndef REVEILLE_WEB_SHIMS_H
#define REVEILLE_WEB_SHIMS_H

/// Where the Swift runtime keeps its hook for enqueuing global tasks. NIO looks it up with dlsym,
/// which cannot see it when the runtime is linked in statically (the release build); the linker can.
void **RV_enqueue_global_hook(void);

/// The owner of the TCP socket whose local end is `local`:`local_port` and remote end
/// `remote`:`remote_port` (4 address bytes for AF_INET, 16 for AF_INET6), asked of the kernel by
/// sock_diag (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY, one socket by its ends: no table is read).
/// 0 and `*uid` set, or a negative errno (-ENOENT: no such socket).
int RV_tcp_socket_owner(int family, const unsigned char *local, unsigned short local_port,
                        const unsigned char *remote, unsigned short remote_port, unsigned int *uid);

#endif
