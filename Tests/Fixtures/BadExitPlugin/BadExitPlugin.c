// A plugin library whose constructor ends the process with status 0: a loader that trusted the status
// would report success having checked nothing.
#include <stdlib.h>

__attribute__((constructor)) static void leave(void) { exit(0); }

void *flowkit_plugin_entry(void) { return 0; }
