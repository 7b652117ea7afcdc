// Threads of the crashy plugin that Swift cannot make: a start routine that jumps into libc (a tail call,
// which Swift does not promise), so that no frame of the plugin's is left on any stack of the thread's.
#pragma once

/// Starts a thread that, 500 ms later, starts another whose start routine, the plugin's, jumps straight into
/// setcontext(3), which goes on at abort(3) on a stack of its own (as a coroutine does): SIGABRT on a thread
/// with only libc's frames on its stack, far from the thread's descriptor. Returns 0, or pthread_create(3)'s
/// error.
int crashy_start_thread_that_aborts_in_libc(void);

/// Starts a thread that, 500 ms later, starts another whose start routine is libc's abort(3) itself: nothing of the
/// plugin's on its stack nor as its start routine; only its creator, which nothing records, was the plugin's.
/// Returns 0, or pthread_create(3)'s error.
int crashy_start_thread_at_libc_abort(void);
