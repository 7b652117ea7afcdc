#include "CExtendedAttributes.h"

#include <sys/xattr.h>

ssize_t flowhost_lgetxattr(const char *path, const char *name, void *value, size_t size) {
    return lgetxattr(path, name, value, size);
}
