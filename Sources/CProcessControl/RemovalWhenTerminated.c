// The supervisor's private directory (its snapshot, its breadcrumb), removed when SIGTERM or SIGHUP ends it:
// a `defer` does not run then, and the directory, with the session's state in its snapshot, stayed in $TMPDIR.
#include "CProcessControl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// Not SIGINT: Ctrl-C during a `wait` typed at the prompt is taken for a while as the wait's end
// (`KeyboardInterrupt`, which installs a handler of its own only where SIGINT has its default action).
static const int signals[] = {SIGTERM, SIGHUP};
enum { signal_count = sizeof(signals) / sizeof(signals[0]) };

// Written once, before the handlers are installed; read only by the handler, while `armed` says.
static char *removed_directory;
static char *removed_last;
static volatile sig_atomic_t armed;
static struct sigaction previous[signal_count];
static int installed;

static void remove_and_resignal(int number) {
    int saved = errno;
    if (armed) {
        int directory = open(removed_directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (directory >= 0) {
            if (flowhost_empty_directory(directory, removed_last) == 0) rmdir(removed_directory);
            close(directory);
        }
    }
    for (int index = 0; index < signal_count; index++) {
        // Blocked while this handler runs: delivered, with the action before this one, as it returns.
        if (signals[index] == number) sigaction(number, &previous[index], NULL);
    }
    errno = saved;
    raise(number);
}

int flowhost_remove_when_terminated(const char *directory, const char *last) {
    if (directory == NULL) {
        armed = 0;  // the copies stay: a handler running now may be reading them
        return 0;
    }
    if (installed) {
        errno = EBUSY;
        return -1;
    }
    removed_directory = strdup(directory);
    removed_last = strdup(last);
    if (removed_directory == NULL || removed_last == NULL) return -1;
    for (int index = 0; index < signal_count; index++) {
        if (sigaction(signals[index], NULL, &previous[index]) != 0) return -1;
        if (previous[index].sa_handler == SIG_IGN) continue;  // nohup's, say: stays ignored
        struct sigaction action;
        memset(&action, 0, sizeof(action));
        action.sa_handler = remove_and_resignal;
        sigfillset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        if (sigaction(signals[index], &action, NULL) != 0) return -1;
    }
    installed = 1;
    armed = 1;
    return 0;
}
