// A plugin library whose constructor never returns.
#include <unistd.h>

__attribute__((constructor)) static void hang(void) {
    for (;;) pause();
}

void *flowkit_plugin_entry(void) { return 0; }
