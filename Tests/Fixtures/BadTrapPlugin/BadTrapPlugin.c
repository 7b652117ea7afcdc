// A plugin library whose entry point traps (SIGILL), as a Swift precondition failure does.
void *flowkit_plugin_entry(void) { __builtin_trap(); }
