// What the host needs of the process that the Glibc module does not give it: prctl(2), since Swift does not
// import variadic C functions; dl_iterate_phdr(3) and pipe2(2), which glibc declares only for _GNU_SOURCE;
// memfd_create(2) and tgkill(2), which glibc before 2.27 and 2.30 lacks; and sigaction(2)'s SIG_IGN and
// SA_NOCLDWAIT, which Swift sees only as casts and numbers; and a lock around SIGCHLD's disposition while the
// host waits for a probe; and a note of each fork(2), to tell a child plugin code forked that came back into
// the host's code, and to close in it the descriptors it must not keep; and the host's own signal actions, to
// put back those plugin code replaced.
#pragma once
#include <signal.h>
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

/// memfd_create(2): a file in memory named `name` (for /proc only) with `flags` (MFD_CLOEXEC 0x1,
/// MFD_ALLOW_SEALING 0x2, MFD_EXEC 0x10); returns its descriptor, or -1 with errno set (ENOSYS on a kernel
/// before 3.17, EINVAL for a flag it does not know).
int flowhost_memfd_create(const char *name, unsigned int flags);

/// tgkill(2): sends `signal` to thread `thread` of process `process`; returns 0, or -1 with errno set.
int flowhost_tgkill(pid_t process, pid_t thread, int signal);

/// Makes SIGCHLD's disposition one under which this process can wait for its children: ignored (SIG_IGN),
/// or with SA_NOCLDWAIT, the kernel reaps each child as it ends, so that waitpid(2) finds none and its process
/// ID may be another process's at once. An ignored SIGCHLD goes back to SIG_DFL; a handler keeps running
/// without SA_NOCLDWAIT. Returns 1 when it changed the disposition, 0 when it was already so, -1 with errno set.
int flowhost_wait_for_children(void);

/// Takes a SIGCHLD handler that code in the process installed (a plugin's, which may reap every child with
/// `waitpid(-1, ...)`) out of the way while the caller waits for a child of its own: SIGCHLD is SIG_DFL until
/// the last of the callers holding it calls flowhost_release_child_signal(). Holds nest, across threads.
void flowhost_hold_child_signal(void);

/// Ends a flowhost_hold_child_signal(): the last one takes a SIGCHLD still pending for the callers' children, puts
/// back the handler it took (unless code changed the disposition meanwhile, which is then kept) and raises SIGCHLD
/// on the calling thread, so that the handler hears of its own children that ended while it was away, and of none
/// of the callers', before this returns. With no handler to put back, a SIGCHLD it took is sent to the process
/// again, for code that waits for it blocked (signalfd(2), sigwaitinfo(2)).
void flowhost_release_child_signal(void);

/// Notes each fork(2) from now on (pthread_atfork(3)): the forking thread's return addresses, before it forks,
/// and, in the child, that it is one. A process started with posix_spawn, vfork or clone runs no such note.
/// Returns 0, or -1 when the notes cannot be installed. Once per process.
int flowhost_watch_forks(void);

/// 1 in a process made by fork(2) since flowhost_watch_forks(), from a process that watched forks; else 0.
int flowhost_is_forked_child(void);

/// Has a child made by fork(2) (once flowhost_watch_forks() watches them) close `descriptor` as it begins: one
/// the host holds a lock through (a `flock` belongs to the open file, which a child shares until it closes its
/// copy), that a helper plugin code forks and leaves running would otherwise keep after the host ended. Only while
/// it refers to the file it refers to now: one plugin code opened in its place is left open. At most 8 at once;
/// returns 0, or -1 with errno set (EBADF, ENOSPC).
int flowhost_close_in_forked_children(int descriptor);

/// Undoes flowhost_close_in_forked_children(descriptor): before the host closes it, since another file may take
/// its number.
void flowhost_keep_in_forked_children(int descriptor);

/// Copies at most `capacity` of the return addresses the thread that made this process had as it called
/// fork(2), innermost first, to `frames`; returns how many.
int flowhost_fork_frames(void **frames, int capacity);

/// Records the action signal `number` has now as the host's own, for flowhost_put_back_signal_actions(); returns
/// 0, or -1 with errno set. The host calls it for each handler it installs, after installing it.
int flowhost_keep_signal_action(int number);

/// Puts back each action recorded with flowhost_keep_signal_action() whose handler (or SA_SIGINFO) is no longer
/// the one installed, as when plugin code set the signal to SIG_DFL or to a handler of its own; writes the
/// numbers of the signals it put back, lowest first, to `replaced` (at most `capacity`) and returns how many.
/// One sigaction(2) per recorded signal when nothing changed.
int flowhost_put_back_signal_actions(int *replaced, int capacity);

/// 1 when `info` is a signal another process sent (kill(2), sigqueue(3), tgkill(2): si_code SI_USER, SI_QUEUE or
/// SI_TKILL, si_pid not this process), such as `kill -SEGV PID`; 0 for a fault the hardware raised, a signal this
/// process raised itself (abort(3), raise(3)) and `NULL`. Async-signal-safe.
int flowhost_signal_is_from_another_process(const siginfo_t *info);

/// Sets signal `number` to its default action and sends it to the calling thread, so that the process ends by
/// it; in a handler of that signal (which blocks it), as the handler returns. Async-signal-safe.
void flowhost_end_by_signal(int number);

/// Runs `action` for signal `number` (`info` and `context` as a SA_SIGINFO handler is given them) the way the kernel
/// would have run it, its mask blocked meanwhile, and the signal too unless SA_NODEFER: a handler that a handler
/// of `number` put itself in front of. Nothing for SIG_DFL and SIG_IGN. Async-signal-safe.
void flowhost_run_signal_action(const struct sigaction *action, int number, siginfo_t *info, void *context);

/// Puts a handler in front of the ones SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT and SIGTRAP have now (the Swift
/// runtime's backtracer's; a signal with its default action or ignored is left alone): such a signal that
/// another process sent ends the process by it, at once and without the backtracer's crash report, which blamed
/// whatever the receiving thread was running and then returned with the process running on (a sent signal does
/// not recur as a fault does). A fault, or a signal the process raised itself, goes on to the handler behind as
/// before, called from this one (a fault does not always recur: int3's SIGTRAP), and then ends the process by it.
/// Returns 0, or -1 with errno set.
int flowhost_end_by_sent_faults(void);

/// Unlinks every entry of the directory open as `directory` (not following links), the one named `last` after
/// all the others, so that a directory that cannot be emptied (a subdirectory in it) keeps `last`. Safe in a
/// signal handler. Returns 0 when it is empty, or -1 with errno set.
int flowhost_empty_directory(int directory, const char *last);

/// Removes `directory` when the process is ended by SIGTERM or SIGHUP: emptied as flowhost_empty_directory(,
/// `last`) does, then removed; then lets the signal do what it did before: the handler puts back the action it
/// replaced and raises the signal again. The strings are copied; once per process. A signal the process ignores
/// stays ignored. With `directory` NULL, removes nothing from then on (the handlers stay, and only chain).
/// Returns 0, or -1 with errno set.
int flowhost_remove_when_terminated(const char *directory, const char *last);

/// Takes a lock of the whole file open as `descriptor`, shared (`exclusive` 0) or exclusive, without waiting: an
/// open file description lock (F_OFD_SETLK), held until the last descriptor of that description closes, not
/// dropped when the process closes another descriptor of the file, and held by a child that inherits it. Returns
/// 0, or -1 with errno set (EAGAIN: someone holds a lock that conflicts).
int flowhost_lock_description(int descriptor, int exclusive);

