// A plugin library whose entry point returns a forged header: FlowKit's magic ("FLOW"), then garbage
// where the ABI version, the FlowKit identity and the registration belong.
#include <stdint.h>

static const uint32_t forged[8] = {0x464C4F57, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF,
                                   0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF, 0xDEADBEEF};

const void *flowkit_plugin_entry(void) { return forged; }
