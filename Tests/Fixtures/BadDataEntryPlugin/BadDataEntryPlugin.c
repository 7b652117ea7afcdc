// A library whose 'flowkit_plugin_entry' is data, not a function: calling it would jump into data.
const unsigned char flowkit_plugin_entry[16] = {0x57, 0x4F, 0x4C, 0x46};
