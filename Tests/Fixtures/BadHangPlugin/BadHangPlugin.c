// A plugin library whose constructor never returns, deaf to every signal it can block (an alarm, a hangup,
// a terminal's interrupt): only SIGKILL ends it.
#include <signal.h>
#include <unistd.h>

__attribute__((constructor)) static void hang(void) {
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, 0);
    for (;;) pause();
}

void *flowkit_plugin_entry(void) { return 0; }
