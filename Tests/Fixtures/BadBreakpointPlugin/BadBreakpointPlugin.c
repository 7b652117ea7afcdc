// A plugin library whose entry point stops at a breakpoint (SIGTRAP: int3 on x86-64, whose program counter is
// past it, so that nothing recurs when a handler returns), as an assertion that calls a debugger's breakpoint
// does (GLib's g_error), then goes on as though nothing happened: here, to return a null pointer.
void *flowkit_plugin_entry(void) {
    __builtin_debugtrap();
    return 0;
}
