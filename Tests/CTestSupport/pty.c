#define _GNU_SOURCE
#include "test_support.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int RVT_open_pty(char *name, size_t capacity) {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (master < 0) {
        return -1;
    }
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, name, capacity) != 0) {
        close(master);
        return -1;
    }
    return master;
}
