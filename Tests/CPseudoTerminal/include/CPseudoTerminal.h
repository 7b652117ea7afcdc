// What the tests need of pseudo-terminals that the Glibc module does not give them: posix_openpt(3), grantpt(3),
// unlockpt(3) and ptsname_r(3), which glibc declares only for _XOPEN_SOURCE or _GNU_SOURCE.
#pragma once
#include <sys/ioctl.h>

/// Opens a pseudo-terminal pair of `size`, both sides closed on exec from the moment they exist (openpty(3) opens
/// them without it, and the tests start processes from several threads at once: one that inherited a side would
/// hold the terminal open); returns 0, or -1 with errno set and nothing left open.
int flowhost_tests_open_pseudo_terminal(int *master, int *slave, const struct winsize *size);
