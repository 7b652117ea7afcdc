// What the host needs of the process that the Glibc module does not give it: prctl(2), since Swift does not
// import variadic C functions, and dl_iterate_phdr(3) and pipe2(2), which glibc declares only for _GNU_SOURCE.
#pragma once
#include <sys/types.h>

/// Has the kernel kill this process (SIGKILL, which it cannot block or ignore) when its parent ends, and
/// returns 0; returns -1 when the kernel refuses, or when `parent` is no longer this process's parent (it
/// ended before the request was made, and this process was adopted).
int flowhost_die_with_parent(pid_t parent);

/// Calls `each` with the path of every object that was loaded into the process as it started, as the dynamic
/// loader names it (the program's own name is empty, unless it was started through the loader), and
/// `context`. The list is taken with dl_iterate_phdr(3) by a constructor, before any code of the program's runs.
void flowhost_each_object_loaded_at_start(void (*each)(const char *path, void *context), void *context);

/// `LD_LIBRARY_PATH` as it was when the process started, when the dynamic loader read it (it does not read it
/// again), taken by the same constructor: of several entries in the environment, the last, as the loader
/// takes; NULL when it was not set (in secure-execution mode the loader removes it first). Changing the
/// variable later changes where the loader looks for nothing.
const char *flowhost_library_path_at_start(void);

/// 1 when the process was started by running the dynamic loader with the program as its argument
/// (`ld-linux-x86-64.so.2 flowhost`, whatever the loader's file is called), where /proc/self/exe is the loader's
/// file and the loader takes `$ORIGIN` from the path it was given; else 0.
int flowhost_started_through_loader(void);

/// pipe2(2): makes a pipe whose ends have `flags` (O_CLOEXEC, O_NONBLOCK) from the moment they exist, ends[0] the
/// reading one; returns 0, or -1 with errno set.
int flowhost_pipe2(int ends[2], int flags);
