// The crash handler of a supervised flowhost host, in C because a signal handler may call only
// async-signal-safe functions: no malloc, no locks, no Swift runtime. It writes what crashed (the signal,
// the faulting address, the frames' return addresses) to the breadcrumb page the supervisor reads after
// the host is gone. The layout below is the page's binary part; CrashBreadcrumb.swift describes the rest.
#ifndef FLOWHOST_CCRASHHANDLER_H
#define FLOWHOST_CCRASHHANDLER_H

#include <stdint.h>

/// Where the host writes the id (gettid, 4 bytes) of the thread that calls into plugins: the one that
/// entered the breadcrumb's last crumb. A SIGQUIT that another thread receives (a watchdog signals the
/// process, or its main thread) is passed on to that thread as SIGSYS (libdispatch's threads block SIGQUIT),
/// so that the frames recorded are the hung call's; that thread records it as SIGQUIT and the process then
/// dies of SIGQUIT.
#define FLOWHOST_CRASH_THREAD_OFFSET 1020
/// Where the crash record starts on the breadcrumb page, in bytes.
#define FLOWHOST_CRASH_RECORD_OFFSET 1024
/// Where the library being loaded is described on the breadcrumb page (flowhost_crash_loading), in bytes.
#define FLOWHOST_CRASH_LOADING_OFFSET 1536
/// Where the table of plugin code ranges starts on the breadcrumb page, in bytes.
#define FLOWHOST_CRASH_RANGES_OFFSET 2048
/// The most plugin code ranges the table holds.
#define FLOWHOST_CRASH_MAX_RANGES 255
/// The most return addresses a frame-pointer walk records.
#define FLOWHOST_CRASH_MAX_FRAMES 32
/// The most plugin code addresses a scan of the stack records.
#define FLOWHOST_CRASH_MAX_SCANNED 16
/// `magic` of a complete record: "FHCR", little-endian.
#define FLOWHOST_CRASH_MAGIC 0x52434846u

/// What the handler writes: a signal it caught, or an exit it did not expect.
enum {
    FLOWHOST_CRASH_SIGNAL = 1,
    FLOWHOST_CRASH_EXIT = 2,
};

/// The crash record, at FLOWHOST_CRASH_RECORD_OFFSET; `magic` is written last, so a record without it is
/// incomplete and ignored.
typedef struct {
    uint32_t magic;
    /// FLOWHOST_CRASH_SIGNAL or FLOWHOST_CRASH_EXIT.
    uint32_t kind;
    /// The signal (kind SIGNAL), or the exit status (kind EXIT).
    int32_t number;
    /// The signal's si_code (SI_USER, SI_TKILL, SEGV_MAPERR, ...); 0 for an exit.
    int32_t code;
    /// The signal's si_addr (the faulting address for SIGSEGV and SIGBUS); for a signal sent by kill, sigqueue
    /// or tgkill (code SI_USER, SI_QUEUE or SI_TKILL), the sender's process id (si_pid); 0 for an exit.
    uint64_t address;
    /// The program counter when the signal came; 0 for an exit.
    uint64_t pc;
    /// The thread it happened on (gettid), and the process (getpid, also the main thread's id).
    int32_t thread;
    int32_t process;
    uint32_t frameCount;
    uint32_t scannedCount;
    /// Return addresses found by walking frame pointers, innermost first (for an exit: from the handler).
    uint64_t frames[FLOWHOST_CRASH_MAX_FRAMES];
    /// Words on the stack, from the stack pointer up, that fall in a plugin code range: the frames that the
    /// walk cannot reach through code built without frame pointers (libc's, for one).
    uint64_t scanned[FLOWHOST_CRASH_MAX_SCANNED];
    /// The start routine of the thread it happened on, the function pthread_create(3) was given, read from the
    /// thread's descriptor at the offset glibc publishes for debuggers (`_thread_db_pthread_start_routine`, as
    /// libthread_db reads it), once the descriptor's thread id is checked to be this thread's; 0 when unknown
    /// (the main thread, a C library without those offsets). The thread's outermost frame, gone when it jumped
    /// into other code (a tail call, a coroutine's stack) or out of the scan's reach.
    uint64_t startRoutine;
} flowhost_crash_record;

/// One plugin image's code, [start, end).
typedef struct {
    uint64_t start;
    uint64_t end;
} flowhost_code_range;

/// The table of plugin code ranges, at FLOWHOST_CRASH_RANGES_OFFSET; `count` is stored after the range.
typedef struct {
    uint32_t count;
    uint32_t reserved;
    flowhost_code_range ranges[FLOWHOST_CRASH_MAX_RANGES];
} flowhost_code_ranges;

/// The library being loaded, at FLOWHOST_CRASH_LOADING_OFFSET. Its image has no code range in the table
/// until `dlopen` returns, but its constructors run inside `dlopen` and may start threads: the host names the
/// file it opens (its device and inode, as /proc/self/maps shows them), and the handler, when a crash comes
/// while `inode` is not 0, finds that file's executable mappings in /proc/self/maps and writes where they
/// are to `start` and `end` (0 when none), before it scans the stack, so that the scan finds its code too.
typedef struct {
    uint32_t major;
    uint32_t minor;
    uint64_t inode;
    uint64_t start;
    uint64_t end;
} flowhost_crash_loading;

/// Installs the handler for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS and SIGQUIT, on an
/// alternate stack for the calling thread, and an exit handler; both write to `page` (the breadcrumb's
/// mapping, at least 4096 bytes, kept mapped for the rest of the process). Returns 0, or -1 with errno.
int flowhost_crash_install(void *page);

/// Adds [start, end) to the page's plugin code ranges; returns 0, or -1 when the table is full.
int flowhost_crash_add_range(uint64_t start, uint64_t end);

/// Notes that the calling thread is about to open the library at `path` (until flowhost_crash_loading_end);
/// nothing when no handler is installed or `path` cannot be read.
void flowhost_crash_loading_begin(const char *path);

/// Notes that the load flowhost_crash_loading_begin noted is over.
void flowhost_crash_loading_end(void);

/// The text (executable segments) of the loaded image holding `address`, as [*start, *end); returns 0,
/// or -1 when no loaded image holds it.
int flowhost_image_text_range(const void *address, uint64_t *start, uint64_t *end);

/// The calling thread's id (gettid), as the crash record's `thread` holds it.
int32_t flowhost_crash_thread_id(void);

/// Marks the exit that follows as the host's own: the exit handler then records nothing.
void flowhost_crash_exit_is_deliberate(void);

/// For a host with no breadcrumb page (not supervised): calls `report` with the status and the calling
/// thread's return addresses (innermost first) when the process exits through an exit(3) not marked as the
/// host's own (flowhost_crash_exit_is_deliberate()), that is plugin code's; `report` may end the process with
/// _exit(2). Returns 0, or -1 when the handler cannot be registered. Once per process.
int flowhost_watch_unsupervised_exits(void (*report)(int status, void *const *frames, int count));

#endif
