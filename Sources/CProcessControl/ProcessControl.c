#define _GNU_SOURCE  // dl_iterate_phdr
#include "CProcessControl.h"

#include <link.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int flowhost_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // Asked for after the parent's end, the signal never comes: the parent is then no longer the one given.
    return getppid() == parent ? 0 : -1;
}

struct each_object {
    void (*each)(const char *path, void *context);
    void *context;
};

static int visit_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct each_object *visit = data;
    visit->each(info->dlpi_name ? info->dlpi_name : "", visit->context);
    return 0;
}

void flowhost_each_loaded_object(void (*each)(const char *path, void *context), void *context) {
    struct each_object visit = {each, context};
    dl_iterate_phdr(visit_object, &visit);
}
