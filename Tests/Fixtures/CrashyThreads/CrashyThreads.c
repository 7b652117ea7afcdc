// See include/CrashyThreads.h.
#include "CrashyThreads.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

/// setcontext(3) with a start routine's type, through a pointer the compiler cannot see through.
static void *(*volatile libc_routine)(void *) = (void *(*)(void *))setcontext;

/// Jumps into libc at once, replacing its own frame (musttail holds at every optimization level): nothing of
/// the plugin's is left on the thread's stack; the plugin is only in the thread's start routine.
static void *jump_into_libc(void *context) { __attribute__((musttail)) return libc_routine(context); }

/// Waits until the manager has long returned, then starts the thread that crashes, with a context that runs
/// abort(3) on a stack of its own, a page no one can read above it (so that nothing above is read as its).
static void *start_later(void *argument) {
    (void)argument;
    usleep(500000);
    const size_t size = 1 << 20, page = 4096;
    unsigned char *stack = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED || mprotect(stack + size, page, PROT_NONE) != 0) return NULL;
    static ucontext_t context;
    if (getcontext(&context) != 0) return NULL;
    context.uc_stack.ss_sp = stack;
    context.uc_stack.ss_size = size;
    context.uc_link = NULL;
    makecontext(&context, abort, 0);
    pthread_t thread;
    if (pthread_create(&thread, NULL, jump_into_libc, &context) == 0) pthread_join(thread, NULL);
    return NULL;
}

int crashy_start_thread_that_aborts_in_libc(void) {
    pthread_t thread;
    int started = pthread_create(&thread, NULL, start_later, NULL);
    if (started == 0) pthread_detach(thread);
    return started;
}

/// Waits until the manager has long returned, then starts the thread at abort(3), on a stack larger than any
/// glibc keeps for reuse: a fresh one, with no words left on it by a thread that ran a plugin's code before (the
/// stack scan would take one for a frame).
static void *start_at_abort_later(void *argument) {
    (void)argument;
    usleep(500000);
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return NULL;
    pthread_attr_setstacksize(&attributes, 64 << 20);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, (void *(*)(void *))abort, NULL) == 0) pthread_join(thread, NULL);
    pthread_attr_destroy(&attributes);
    return NULL;
}

int crashy_start_thread_at_libc_abort(void) {
    pthread_t thread;
    int started = pthread_create(&thread, NULL, start_at_abort_later, NULL);
    if (started == 0) pthread_detach(thread);
    return started;
}
