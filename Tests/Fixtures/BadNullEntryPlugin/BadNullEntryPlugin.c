// A plugin library whose entry point returns a null pointer instead of a header.
void *flowkit_plugin_entry(void) { return 0; }
