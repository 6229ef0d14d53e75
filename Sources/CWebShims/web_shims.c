#include "web_shims.h"

extern void *swift_task_enqueueGlobal_hook;

void **RV_enqueue_global_hook(void) { return &swift_task_enqueueGlobal_hook; }

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

int RV_tcp_socket_owner(int family, const unsigned char *local, unsigned short local_port,
                        const unsigned char *remote, unsigned short remote_port, unsigned int *uid) {
    size_t length = family == AF_INET ? 4 : 16;
    if (family != AF_INET && family != AF_INET6) return -EAFNOSUPPORT;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -errno;
    struct timeval wait = {.tv_sec = 1, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
    struct {
        struct nlmsghdr header;
        struct inet_diag_req_v2 request;
    } message;
    memset(&message, 0, sizeof message);
    message.header.nlmsg_len = sizeof message;
    message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    message.header.nlmsg_flags = NLM_F_REQUEST;
    message.header.nlmsg_seq = 1;
    message.request.sdiag_family = (unsigned char)family;
    message.request.sdiag_protocol = IPPROTO_TCP;
    message.request.idiag_states = ~0U;
    message.request.id.idiag_sport = htons(local_port);
    message.request.id.idiag_dport = htons(remote_port);
    memcpy(message.request.id.idiag_src, local, length);
    memcpy(message.request.id.idiag_dst, remote, length);
    message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
    message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    if (sendto(fd, &message, sizeof message, 0, (struct sockaddr *)&kernel, sizeof kernel) < 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    long buffer[1024];
    ssize_t received;
    do {
        received = recv(fd, buffer, sizeof buffer, 0);
    } while (received < 0 && errno == EINTR);
    int error = received < 0 ? errno : 0;
    close(fd);
    if (received < 0) return -error;
    struct nlmsghdr *header = (struct nlmsghdr *)buffer;
    if (!NLMSG_OK(header, (unsigned int)received)) return -EBADMSG;
    if (header->nlmsg_type == NLMSG_ERROR) {
        struct nlmsgerr *failure = NLMSG_DATA(header);
        return failure->error < 0 ? failure->error : -EBADMSG;
    }
    if (header->nlmsg_type != SOCK_DIAG_BY_FAMILY || header->nlmsg_len < NLMSG_LENGTH(sizeof(struct inet_diag_msg)))
        return -EBADMSG;
    struct inet_diag_msg *found = NLMSG_DATA(header);
    *uid = found->idiag_uid;
    return 0;
}
