// prctl(2) for the host: Swift does not import variadic C functions, and prctl is one.
#pragma once
#include <sys/types.h>

/// Has the kernel kill this process (SIGKILL, which it cannot block or ignore) when its parent ends, and
/// returns 0; returns -1 when the kernel refuses, or when `parent` is no longer this process's parent (it
/// ended before the request was made, and this process was adopted).
int flowhost_die_with_parent(pid_t parent);
