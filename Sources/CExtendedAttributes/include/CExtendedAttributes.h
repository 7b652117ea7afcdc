// Extended attributes (getxattr(2)) for the host: Swift's Glibc module does not bring <sys/xattr.h>, and
// PathTrust reads a file's POSIX ACL from its `system.posix_acl_access` attribute.
#pragma once
#include <sys/types.h>

/// `lgetxattr(path, name, value, size)`: the attribute `name` of `path`, a final symbolic link not followed.
ssize_t flowhost_lgetxattr(const char *path, const char *name, void *value, size_t size);
