#include "CProcessControl.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int flowhost_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // Asked for after the parent's end, the signal never comes: the parent is then no longer the one given.
    return getppid() == parent ? 0 : -1;
}
