// A plugin library whose constructor aborts: loading it raises SIGABRT before the entry point is reached.
#include <stdlib.h>

__attribute__((constructor)) static void crash(void) { abort(); }

void *flowkit_plugin_entry(void) { return 0; }
