#define _GNU_SOURCE  // dl_iterate_phdr, pipe2
#include "CProcessControl.h"

#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int flowhost_die_with_parent(pid_t parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return -1;
    // Asked for after the parent's end, the signal never comes: the parent is then no longer the one given.
    return getppid() == parent ? 0 : -1;
}

static char **loaded_at_start;
static size_t loaded_at_start_count;

static int remember_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    (void)data;
    char **grown = realloc(loaded_at_start, (loaded_at_start_count + 1) * sizeof(char *));
    if (grown == NULL) return 1;
    loaded_at_start = grown;
    char *name = strdup(info->dlpi_name ? info->dlpi_name : "");
    if (name == NULL) return 1;
    loaded_at_start[loaded_at_start_count++] = name;
    return 0;
}

static const char *library_path_at_start;

__attribute__((constructor)) static void remember_objects_loaded_at_start(void) {
    dl_iterate_phdr(remember_object, NULL);
    // The dynamic loader read it once, before this, to make the list it searches for the rest of the run; and
    // of several entries it takes the last (getenv(3) would give the first).
    static const char name[] = "LD_LIBRARY_PATH=";
    const char *library_path = NULL;
    for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
        if (strncmp(*entry, name, sizeof name - 1) == 0) library_path = *entry + sizeof name - 1;
    }
    if (library_path != NULL) {
        // The string the process started with stays where it is for the whole run; a copy only keeps it from a
        // later putenv(3) of the same buffer. Without memory for one, the original is what the loader read.
        library_path_at_start = strdup(library_path);
        if (library_path_at_start == NULL) library_path_at_start = library_path;
    }
}

int flowhost_started_through_loader(void) {
    // A program the kernel starts with an interpreter has the interpreter's base in AT_BASE; one started as
    // `ld-linux-x86-64.so.2 flowhost` is the loader itself, which has none.
    return getauxval(AT_BASE) == 0;
}

const char *flowhost_library_path_at_start(void) { return library_path_at_start; }

void flowhost_each_object_loaded_at_start(void (*each)(const char *path, void *context), void *context) {
    for (size_t index = 0; index < loaded_at_start_count; index++) each(loaded_at_start[index], context);
}

int flowhost_pipe2(int ends[2], int flags) { return pipe2(ends, flags); }

// glibc's wrapper (2.27 on), weak so that a glibc without it links too: called where there is one, so that a library
// preloaded in its place is called (the tests' NoMemfdPreload stands for a kernel without memfds); else the system call.
extern int memfd_create(const char *name, unsigned int flags) __attribute__((weak));

int flowhost_memfd_create(const char *name, unsigned int flags) {
    if (memfd_create != NULL) return memfd_create(name, flags);
    return (int)syscall(SYS_memfd_create, name, flags);
}

int flowhost_tgkill(pid_t process, pid_t thread, int signal) {
    return (int)syscall(SYS_tgkill, (long)process, (long)thread, (long)signal);
}

int flowhost_wait_for_children(void) {
    struct sigaction current;
    if (sigaction(SIGCHLD, NULL, &current) != 0) return -1;
    if (current.sa_handler != SIG_IGN && (current.sa_flags & SA_NOCLDWAIT) == 0) return 0;
    struct sigaction waiting = current;
    waiting.sa_flags &= ~SA_NOCLDWAIT;
    if (current.sa_handler == SIG_IGN) {
        memset(&waiting, 0, sizeof waiting);
        waiting.sa_handler = SIG_DFL;
        sigemptyset(&waiting.sa_mask);
    }
    return sigaction(SIGCHLD, &waiting, NULL) == 0 ? 1 : -1;
}

static pthread_mutex_t child_signal_lock = PTHREAD_MUTEX_INITIALIZER;
static int child_signal_holds;
static int child_handler_held;
static struct sigaction held_child_handler;

void flowhost_hold_child_signal(void) {
    pthread_mutex_lock(&child_signal_lock);
    if (child_signal_holds++ == 0) {
        struct sigaction current;
        // sa_handler and sa_sigaction share their storage: either is a function when it is neither of these.
        if (sigaction(SIGCHLD, NULL, &current) == 0 && current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN) {
            held_child_handler = current;
            held_child_handler.sa_flags &= ~SA_NOCLDWAIT;
            struct sigaction plain;
            memset(&plain, 0, sizeof plain);
            plain.sa_handler = SIG_DFL;
            sigemptyset(&plain.sa_mask);
            child_handler_held = sigaction(SIGCHLD, &plain, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&child_signal_lock);
}

void flowhost_release_child_signal(void) {
    int put_back = 0, taken = 0;
    sigset_t child, previous;
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    pthread_mutex_lock(&child_signal_lock);
    if (child_signal_holds > 0 && --child_signal_holds == 0) {
        // A probe's end stays pending when the thread that started it blocks SIGCHLD (a dispatch worker does)
        // until another thread takes it: a handler installed meanwhile would run for a child never its own. Taken
        // here, which leaves the disposition as it is.
        pthread_sigmask(SIG_BLOCK, &child, &previous);
        const struct timespec now = {0, 0};
        while (sigtimedwait(&child, NULL, &now) == SIGCHLD) taken = 1;
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
        struct sigaction current;
        put_back = child_handler_held && sigaction(SIGCHLD, NULL, &current) == 0 && current.sa_handler == SIG_DFL &&
                   sigaction(SIGCHLD, &held_child_handler, NULL) == 0;
        child_handler_held = 0;
    }
    pthread_mutex_unlock(&child_signal_lock);
    if (put_back) {
        // Raised on this thread with SIGCHLD let through for the moment, the signal reaches the handler before
        // this returns (sent to the process, it waited for whichever thread took it next, and the probe's caller
        // went on first); unlocked, since the handler may wait for a probe of its own.
        pthread_sigmask(SIG_UNBLOCK, &child, &previous);
        raise(SIGCHLD);
        pthread_sigmask(SIG_SETMASK, &previous, NULL);
    } else if (taken) {
        // What was taken may have been the end of a child of code that waits for SIGCHLD blocked (a signalfd,
        // sigwaitinfo): sent again, it stays pending for that code where every thread blocks it, and is discarded
        // at once where one does not (SIG_DFL ignores it).
        kill(getpid(), SIGCHLD);
    }
}

// Per thread: a thread's fork is its own, and the child keeps only the forking thread's copy.
static __thread void *fork_frames[32];
static __thread int fork_frame_count;
static volatile sig_atomic_t forked_child;

static void note_fork_caller(void) { fork_frame_count = backtrace(fork_frames, 32); }

// The descriptors a forked child closes as it begins (flowhost_close_in_forked_children), each with the file it
// refers to. A slot's `descriptor` is that descriptor plus one, 0 when the slot is free and -1 while it is being
// filled: the file is written before the descriptor is published, so a child that sees the descriptor sees its
// file. Atomic, since a thread of plugin code may fork while the main thread adds or takes one.
#define CLOSED_IN_FORKED_CHILDREN 8
static struct {
    _Atomic int descriptor;
    dev_t device;
    ino_t inode;
} closed_in_forked_children[CLOSED_IN_FORKED_CHILDREN];

static void note_forked_child(void) {
    forked_child = 1;
    for (int slot = 0; slot < CLOSED_IN_FORKED_CHILDREN; slot++) {
        int descriptor = atomic_load(&closed_in_forked_children[slot].descriptor) - 1;
        struct stat status;
        // Only the file it was registered for: plugin code that closed it and opened a file of its own there keeps
        // that one. fstat(2) and close(2) are async-signal-safe, as a child of a fork needs.
        if (descriptor < 0 || fstat(descriptor, &status) != 0) continue;
        if (status.st_dev == closed_in_forked_children[slot].device &&
            status.st_ino == closed_in_forked_children[slot].inode) {
            close(descriptor);
        }
    }
}

int flowhost_close_in_forked_children(int descriptor) {
    struct stat status;
    if (descriptor < 0 || fstat(descriptor, &status) != 0) {
        errno = EBADF;
        return -1;
    }
    for (int slot = 0; slot < CLOSED_IN_FORKED_CHILDREN; slot++) {
        int free = 0;
        if (!atomic_compare_exchange_strong(&closed_in_forked_children[slot].descriptor, &free, -1)) continue;
        closed_in_forked_children[slot].device = status.st_dev;
        closed_in_forked_children[slot].inode = status.st_ino;
        atomic_store(&closed_in_forked_children[slot].descriptor, descriptor + 1);
        return 0;
    }
    errno = ENOSPC;
    return -1;
}

void flowhost_keep_in_forked_children(int descriptor) {
    for (int slot = 0; slot < CLOSED_IN_FORKED_CHILDREN; slot++) {
        int held = descriptor + 1;
        atomic_compare_exchange_strong(&closed_in_forked_children[slot].descriptor, &held, 0);
    }
}

int flowhost_watch_forks(void) {
    static int watching;
    if (watching) return 0;
    // backtrace(3) loads the unwinder the first time it is called: now, not in a fork.
    void *first[1];
    backtrace(first, 1);
    if (pthread_atfork(note_fork_caller, NULL, note_forked_child) != 0) return -1;
    watching = 1;
    return 0;
}

int flowhost_is_forked_child(void) { return forked_child; }

int flowhost_fork_frames(void **frames, int capacity) {
    int count = fork_frame_count < capacity ? fork_frame_count : capacity;
    for (int index = 0; index < count; index++) frames[index] = fork_frames[index];
    return count;
}

static pthread_mutex_t kept_signal_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction kept_actions[NSIG];
static unsigned char kept_signals[NSIG];

int flowhost_keep_signal_action(int number) {
    if (number <= 0 || number >= NSIG) {
        errno = EINVAL;
        return -1;
    }
    pthread_mutex_lock(&kept_signal_lock);
    int result = sigaction(number, NULL, &kept_actions[number]);
    kept_signals[number] = result == 0;
    pthread_mutex_unlock(&kept_signal_lock);
    return result;
}

int flowhost_put_back_signal_actions(int *replaced, int capacity) {
    int count = 0;
    pthread_mutex_lock(&kept_signal_lock);
    for (int number = 1; number < NSIG; number++) {
        if (!kept_signals[number]) continue;
        struct sigaction current;
        if (sigaction(number, NULL, &current) != 0) continue;
        // sa_handler and sa_sigaction share their storage: the pointer and SA_SIGINFO say which handler runs.
        const struct sigaction *kept = &kept_actions[number];
        if (current.sa_handler == kept->sa_handler && (current.sa_flags & SA_SIGINFO) == (kept->sa_flags & SA_SIGINFO))
            continue;
        if (sigaction(number, kept, NULL) != 0) continue;
        if (count < capacity) replaced[count++] = number;
    }
    pthread_mutex_unlock(&kept_signal_lock);
    return count;
}
