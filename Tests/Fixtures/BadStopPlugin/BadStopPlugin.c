// A plugin library whose constructor stops its own process (SIGSTOP): it neither ends nor runs on.
#include <signal.h>

__attribute__((constructor)) static void stop(void) { raise(SIGSTOP); }

void *flowkit_plugin_entry(void) { return 0; }
