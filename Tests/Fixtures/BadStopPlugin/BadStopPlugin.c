// A plugin library whose constructor stops its own process (SIGSTOP), and, continued, stops it again: it neither
// ends nor runs on. With BAD_STOP_ONCE set it stops once, and, continued, goes on (its entry returns null).
#include <signal.h>
#include <stdlib.h>

__attribute__((constructor)) static void stop(void) {
    raise(SIGSTOP);
    if (getenv("BAD_STOP_ONCE") == NULL) raise(SIGSTOP);
}

void *flowkit_plugin_entry(void) { return 0; }
