// Locks of open file descriptions (F_OFD_SETLK), which Swift's Glibc module does not name; see
// include/CProcessControl.h.
#define _GNU_SOURCE
#include "CProcessControl.h"

#include <fcntl.h>
#include <string.h>

int flowhost_lock_description(int descriptor, int exclusive) {
    struct flock request;
    memset(&request, 0, sizeof request);  // l_pid must be 0 for an open file description's lock.
    request.l_type = exclusive ? F_WRLCK : F_RDLCK;
    request.l_whence = SEEK_SET;
    request.l_start = 0;
    request.l_len = 0;  // The whole file.
    return fcntl(descriptor, F_OFD_SETLK, &request);
}
