// Preloaded into flowhost by the tests (LD_PRELOAD): memfd_create fails as on a kernel without memfds, so that
// plugins are loaded from private files under $TMPDIR, as they are there.
#include <errno.h>

int memfd_create(const char *name, unsigned int flags) {
    (void)name;
    (void)flags;
    errno = ENOSYS;
    return -1;
}
