// Emptying a directory of files through its descriptor, safe in a signal handler; see include/CProcessControl.h.
#define _GNU_SOURCE
#include "CProcessControl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The record getdents64(2) fills in; glibc declares no type for it.
struct entry64 {
    unsigned long long inode;
    long long offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

/// Unlinks each entry of `directory` but `.`, `..` and `last`, one pass over its records from the start;
/// returns how many were unlinked, or -1 when one could not be (errno set).
static int unlink_pass(int directory, const char *last) {
    char buffer[2048];
    int unlinked = 0;
    if (lseek(directory, 0, SEEK_SET) < 0) return -1;
    for (;;) {
        long read = syscall(SYS_getdents64, directory, buffer, sizeof buffer);
        if (read < 0) return -1;
        if (read == 0) return unlinked;
        for (long position = 0; position < read;) {
            struct entry64 *entry = (struct entry64 *)(buffer + position);
            position += entry->length;
            const char *name = entry->name;
            if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strcmp(name, last) == 0) continue;
            if (unlinkat(directory, name, 0) != 0) {
                if (errno == ENOENT) continue;  // removed meanwhile
                return -1;
            }
            unlinked++;
        }
    }
}

int flowhost_empty_directory(int directory, const char *last) {
    int saved = errno;
    // Again until a pass unlinks nothing: unlinking while reading may move records past the reading position.
    for (;;) {
        int unlinked = unlink_pass(directory, last);
        if (unlinked < 0) return -1;
        if (unlinked == 0) break;
    }
    if (unlinkat(directory, last, 0) != 0 && errno != ENOENT) return -1;
    errno = saved;
    return 0;
}
