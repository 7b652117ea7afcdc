// A plugin library whose constructor writes through a null pointer: SIGSEGV while loading.
__attribute__((constructor)) static void crash(void) {
    volatile int *nowhere = 0;
    *nowhere = 1;
}

void *flowkit_plugin_entry(void) { return 0; }
