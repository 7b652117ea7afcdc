// A plugin library whose constructor starts a thread that segfaults in the library's own code, and waits for
// it: loading it crashes on a thread other than the one loading it.
#include <pthread.h>
#include <stddef.h>

static void *crash(void *unused) {
    (void)unused;
    *(volatile int *)NULL = 1;
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, crash, NULL) == 0) pthread_join(thread, NULL);
}

void *flowkit_plugin_entry(void) { return 0; }
