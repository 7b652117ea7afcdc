// A plugin library whose constructor closes descriptors 0 to 10, which it never opened: in a probe, the
// pipe the answer goes down is among them, and the probe cannot answer.
#include <unistd.h>

__attribute__((constructor)) static void closeAll(void) {
    for (int descriptor = 0; descriptor <= 10; descriptor++) close(descriptor);
}

void *flowkit_plugin_entry(void) { return 0; }
