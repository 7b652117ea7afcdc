// A plugin library whose constructor starts a helper process that outlives the loading and holds every
// descriptor it inherited, the probe's answer pipe included. Its entry point returns a null pointer, which
// the probe must report as such rather than wait for the pipe to close. With BAD_FORK_PID_FILE set, the
// helper's process ID is written there, for the test to check that the probe ended it.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void startHelper(void) {
    pid_t helper = fork();
    if (helper == 0) {
        sleep(60);
        _exit(0);
    }
    const char *file = getenv("BAD_FORK_PID_FILE");
    if (helper > 0 && file) {
        FILE *out = fopen(file, "w");
        if (out) {
            fprintf(out, "%d\n", (int)helper);
            fclose(out);
        }
    }
}

void *flowkit_plugin_entry(void) { return 0; }
