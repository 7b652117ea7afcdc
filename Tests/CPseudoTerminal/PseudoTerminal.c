#define _GNU_SOURCE  // posix_openpt, grantpt, unlockpt, ptsname_r
#include "CPseudoTerminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int flowhost_tests_open_pseudo_terminal(int *master, int *slave, const struct winsize *size) {
    int opened = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (opened < 0) return -1;
    char name[64];
    int peer = -1;
    if (grantpt(opened) == 0 && unlockpt(opened) == 0 && ptsname_r(opened, name, sizeof name) == 0) {
        peer = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    }
    if (peer < 0 || ioctl(peer, TIOCSWINSZ, size) != 0) {
        int error = errno;
        if (peer >= 0) close(peer);
        close(opened);
        errno = error;
        return -1;
    }
    *master = opened;
    *slave = peer;
    return 0;
}
