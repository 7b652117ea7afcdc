// The crash handler of a supervised host; see include/CCrashHandler.h. Everything the signal handler
// calls is async-signal-safe: raw system calls, nanosleep, plain loads and stores to the page mapped beforehand.
#define _GNU_SOURCE
#include "CCrashHandler.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stddef.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static unsigned char *crash_page;
/// The thread recording what crashed (its gettid); 0 before one does.
static int32_t handling;
static int forwarded;
static int deliberate_exit;
/// The handler's stack for the installing thread (the host's main thread), so that a stack overflow
/// there is recorded too.
static unsigned char alternate_stack[64 * 1024];
/// One page of the crashed thread's stack at a time, for the scan.
static uint64_t scan_buffer[512];
/// A chunk of /proc/self/maps at a time, and the line being read (its start: the fields before the path).
static char maps_buffer[4096];
static char maps_line[128];

static const int caught_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS, SIGQUIT};

static flowhost_crash_record *record_of_page(void) {
    return (flowhost_crash_record *)(crash_page + FLOWHOST_CRASH_RECORD_OFFSET);
}

static flowhost_code_ranges *ranges_of_page(void) {
    return (flowhost_code_ranges *)(crash_page + FLOWHOST_CRASH_RANGES_OFFSET);
}

/// Copies `count` bytes at `address` of this process to `into`; how many could be read (an unmapped
/// address is an error, not a fault).
static long read_memory(uint64_t address, void *into, size_t count) {
    struct iovec local = {into, count};
    struct iovec remote = {(void *)(uintptr_t)address, count};
    return syscall(SYS_process_vm_readv, (long)syscall(SYS_getpid), &local, 1UL, &remote, 1UL, 0UL);
}

/// Where a thread's descriptor (glibc's struct pthread) holds its start routine and its thread id, from the
/// descriptions glibc exports for libthread_db (`{bits, count, offset}`); start_routine_offset 0: not known.
static uint32_t start_routine_offset;
static uint32_t thread_id_offset;

/// Reads the offsets, once, when glibc describes both fields as a pointer and a 32-bit id.
static void find_thread_descriptor_fields(void) {
    const uint32_t *routine = dlsym(RTLD_DEFAULT, "_thread_db_pthread_start_routine");
    const uint32_t *thread = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");
    const uint32_t *size = dlsym(RTLD_DEFAULT, "_thread_db_sizeof_pthread");
    if (routine == NULL || thread == NULL || size == NULL) return;
    if (routine[0] != 8 * sizeof(void *) || routine[1] != 1 || thread[0] != 32 || thread[1] != 1) return;
    if (routine[2] + sizeof(void *) > *size || thread[2] + sizeof(int32_t) > *size) return;
    thread_id_offset = thread[2];
    start_routine_offset = routine[2];
}

/// The calling thread's start routine, or 0: its descriptor is the one pthread_self(3) names (read from the
/// thread pointer), and only when that descriptor's id is this thread's (a thread that plugin code made with a
/// bare clone(2) shares its creator's).
static uint64_t start_routine(int32_t thread) {
    if (start_routine_offset == 0) return 0;
    uint64_t descriptor = (uint64_t)(uintptr_t)pthread_self();
    int32_t id = 0;
    uint64_t routine = 0;
    if (read_memory(descriptor + thread_id_offset, &id, sizeof id) != (long)sizeof id || id != thread) return 0;
    if (read_memory(descriptor + start_routine_offset, &routine, sizeof routine) != (long)sizeof routine) return 0;
    return routine;
}

static flowhost_crash_loading *loading_of_page(void) {
    return (flowhost_crash_loading *)(crash_page + FLOWHOST_CRASH_LOADING_OFFSET);
}

static int in_plugin_code(uint64_t address) {
    const flowhost_crash_loading *loading = loading_of_page();
    if (address >= loading->start && address < loading->end) return 1;
    const flowhost_code_ranges *table = ranges_of_page();
    uint32_t count = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    if (count > FLOWHOST_CRASH_MAX_RANGES) count = FLOWHOST_CRASH_MAX_RANGES;
    for (uint32_t index = 0; index < count; index++) {
        if (address >= table->ranges[index].start && address < table->ranges[index].end) return 1;
    }
    return 0;
}

/// Walks the frame-pointer chain from `frame`, recording return addresses; each frame must lie above the
/// last, within 1 MiB of it, aligned, and readable.
static void walk_frames(flowhost_crash_record *record, uint64_t frame) {
    while (record->frameCount < FLOWHOST_CRASH_MAX_FRAMES && frame != 0 && frame % 8 == 0) {
        uint64_t pair[2];
        if (read_memory(frame, pair, sizeof pair) != (long)sizeof pair) break;
        if (pair[1] == 0) break;
        record->frames[record->frameCount++] = pair[1];
        if (pair[0] <= frame || pair[0] - frame > (1u << 20)) break;
        frame = pair[0];
    }
}

/// Scans up to 256 KiB of stack from `stack` up, page by page while readable, for words in plugin code; on a
/// thread pthread_create(3) made, not past the thread's descriptor, which glibc puts at the top of the stack it
/// maps for it (the routine is read from it apart): past it lies another mapping, a heap's, say, whose words
/// (a closure's code pointer) are no frame of this thread's, and laid its crash at a plugin that never ran on it.
static void scan_stack(flowhost_crash_record *record, uint64_t stack) {
    uint64_t address = stack & ~(uint64_t)7;
    uint64_t end = address + 256 * 1024;
    const uint64_t descriptor = (uint64_t)(uintptr_t)pthread_self();
    if (descriptor > address && descriptor < end) end = descriptor;
    while (address < end && record->scannedCount < FLOWHOST_CRASH_MAX_SCANNED) {
        uint64_t page_end = (address | 4095) + 1;
        if (page_end > end) page_end = end;
        size_t count = (size_t)(page_end - address);
        if (count > sizeof scan_buffer) count = sizeof scan_buffer;
        long got = read_memory(address, scan_buffer, count);
        if (got <= 0) break;
        for (long index = 0; index < got / 8 && record->scannedCount < FLOWHOST_CRASH_MAX_SCANNED; index++) {
            if (in_plugin_code(scan_buffer[index])) record->scanned[record->scannedCount++] = scan_buffer[index];
        }
        if (got < (long)count) break;
        address += count;
    }
}

/// Reads a hexadecimal (base 16) or decimal (base 10) number at `*text`, moving past it.
static uint64_t read_number(const char **text, unsigned base) {
    uint64_t value = 0;
    for (;; (*text)++) {
        char c = **text;
        unsigned digit;
        if (c >= '0' && c <= '9') digit = (unsigned)(c - '0');
        else if (base == 16 && c >= 'a' && c <= 'f') digit = (unsigned)(c - 'a' + 10);
        else return value;
        value = value * base + digit;
    }
}

/// Widens the loading library's code range by the mapping `line` describes (`START-END PERMS OFFSET MAJOR:MINOR
/// INODE PATH`), when it is an executable mapping of the file `file` names (its major, minor and inode).
static void note_mapping(flowhost_crash_loading *loading, const flowhost_crash_loading *file, const char *line) {
    uint64_t start = read_number(&line, 16);
    if (*line++ != '-') return;
    uint64_t end = read_number(&line, 16);
    if (*line++ != ' ' || line[0] == 0 || line[1] == 0 || line[2] != 'x') return;
    while (*line != 0 && *line != ' ') line++;
    if (*line++ != ' ') return;
    read_number(&line, 16);
    if (*line++ != ' ') return;
    uint64_t major = read_number(&line, 16);
    if (*line++ != ':') return;
    uint64_t minor = read_number(&line, 16);
    if (*line++ != ' ') return;
    uint64_t inode = read_number(&line, 10);
    if (major != file->major || minor != file->minor || inode != file->inode || start >= end) return;
    if (loading->start == 0 || start < loading->start) loading->start = start;
    if (end > loading->end) loading->end = end;
}

/// Finds where the library being loaded, if any, has its code, from /proc/self/maps.
static void find_loading_code(void) {
    flowhost_crash_loading *loading = loading_of_page();
    // The file, read once: the loading thread goes on, and may begin the next load meanwhile.
    flowhost_crash_loading file = {0, 0, __atomic_load_n(&loading->inode, __ATOMIC_ACQUIRE), 0, 0};
    if (file.inode == 0) return;
    file.major = loading->major;
    file.minor = loading->minor;
    int descriptor = (int)syscall(SYS_openat, (long)AT_FDCWD, "/proc/self/maps", (long)(O_RDONLY | O_CLOEXEC));
    if (descriptor < 0) return;
    size_t length = 0;
    for (;;) {
        long got = syscall(SYS_read, (long)descriptor, maps_buffer, sizeof maps_buffer);
        if (got <= 0) break;
        for (long index = 0; index < got; index++) {
            if (maps_buffer[index] == '\n') {
                maps_line[length] = 0;
                note_mapping(loading, &file, maps_line);
                length = 0;
            } else if (length < sizeof maps_line - 1) {
                maps_line[length++] = maps_buffer[index];
            }
        }
    }
    syscall(SYS_close, (long)descriptor);
}

/// The host the page is the breadcrumb of: a child that plugin code forked shares the page and runs these
/// handlers too, and what it records (its own `exit`, its crash) is not the host's end.
static pid_t crash_process;

/// Whether the calling thread is the one to record: the first to ask (in the host, not a child it forked). Another waits, at most a second, for
/// that one to finish, so that the process does not end (by this thread's signal or exit) with the record
/// half written; the first does not wait for itself (a crash in its own handler).
static int begin_handling(void) {
    if ((pid_t)syscall(SYS_getpid) != crash_process) return 0;
    int32_t self = (int32_t)syscall(SYS_gettid);
    int32_t first = 0;
    if (__atomic_compare_exchange_n(&handling, &first, self, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
    if (first == self) return 0;
    const flowhost_crash_record *record = record_of_page();
    const struct timespec millisecond = {0, 1000000};
    for (int waited = 0; waited < 1000; waited++) {
        if (__atomic_load_n(&record->magic, __ATOMIC_ACQUIRE) == FLOWHOST_CRASH_MAGIC) break;
        nanosleep(&millisecond, NULL);
    }
    return 0;
}

static void begin_record(flowhost_crash_record *record, uint32_t kind, int32_t number) {
    record->magic = 0;
    record->kind = kind;
    record->number = number;
    record->code = 0;
    record->address = 0;
    record->pc = 0;
    record->thread = (int32_t)syscall(SYS_gettid);
    record->process = (int32_t)syscall(SYS_getpid);
    record->frameCount = 0;
    record->scannedCount = 0;
    record->startRoutine = start_routine(record->thread);
    find_loading_code();
}

static void finish_record(flowhost_crash_record *record) {
    __atomic_store_n(&record->magic, FLOWHOST_CRASH_MAGIC, __ATOMIC_RELEASE);
}

/// Passes a SIGQUIT on to the thread that calls into plugins, once, when another thread got it; whether
/// it did. It goes as SIGSYS: libdispatch's worker threads, which run the main actor's jobs on Linux, block
/// SIGQUIT (and SIGINT, SIGHUP, SIGTERM, SIGABRT), but not the signals of faults.
static int forward_quit(int number) {
    if (number != SIGQUIT || crash_page == NULL) return 0;
    int32_t target = __atomic_load_n((int32_t *)(crash_page + FLOWHOST_CRASH_THREAD_OFFSET), __ATOMIC_ACQUIRE);
    long self = syscall(SYS_gettid);
    if (target <= 0 || target == self || __atomic_exchange_n(&forwarded, 1, __ATOMIC_ACQ_REL) != 0) return 0;
    return syscall(SYS_tgkill, (long)syscall(SYS_getpid), (long)target, (long)SIGSYS) == 0;
}

/// Whether `info` is the SIGSYS that ``forward_quit`` sent: this process's tgkill, after a forward.
static int is_forwarded_quit(int number, const siginfo_t *info) {
    return number == SIGSYS && info != NULL && info->si_code == SI_TKILL && info->si_pid == syscall(SYS_getpid)
        && __atomic_load_n(&forwarded, __ATOMIC_ACQUIRE);
}

static void handle_signal(int number, siginfo_t *info, void *context) {
    int saved = errno;
    if (forward_quit(number)) {
        errno = saved;
        return;
    }
    // A forwarded SIGQUIT is recorded as one, and the process dies of SIGQUIT, raised at the process: this
    // thread may block it.
    int raised = number;
    int at_process = 0;
    if (is_forwarded_quit(number, info)) {
        number = SIGQUIT;
        at_process = 1;
    }
    if (crash_page != NULL && begin_handling()) {
        flowhost_crash_record *record = record_of_page();
        begin_record(record, FLOWHOST_CRASH_SIGNAL, number);
        if (info != NULL) {
            record->code = info->si_code;
            // A signal sent by kill, sigqueue or tgkill has no faulting address, but a sender to tell apart.
            int sent = info->si_code == SI_USER || info->si_code == SI_QUEUE || info->si_code == SI_TKILL;
            record->address = sent ? (uint64_t)(uint32_t)info->si_pid : (uint64_t)(uintptr_t)info->si_addr;
        }
        const ucontext_t *ucontext = context;
        if (ucontext != NULL) {
#if defined(__x86_64__)
            record->pc = (uint64_t)ucontext->uc_mcontext.gregs[REG_RIP];
            walk_frames(record, (uint64_t)ucontext->uc_mcontext.gregs[REG_RBP]);
            scan_stack(record, (uint64_t)ucontext->uc_mcontext.gregs[REG_RSP]);
#elif defined(__aarch64__)
            record->pc = (uint64_t)ucontext->uc_mcontext.pc;
            // A leaf function has not stored its return address yet: the link register holds it.
            record->frames[record->frameCount++] = (uint64_t)ucontext->uc_mcontext.regs[30];
            walk_frames(record, (uint64_t)ucontext->uc_mcontext.regs[29]);
            scan_stack(record, (uint64_t)ucontext->uc_mcontext.sp);
#endif
        }
        finish_record(record);
    }
    // The default action, so that the supervisor sees the process die of this very signal: raised again
    // at this thread, it is delivered as the handler returns (it is blocked until then).
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(number, &fallback, NULL);
    if (at_process) {
        syscall(SYS_kill, (long)syscall(SYS_getpid), (long)number);
    } else {
        syscall(SYS_tgkill, (long)syscall(SYS_getpid), (long)syscall(SYS_gettid), (long)raised);
    }
    errno = saved;
}

/// Runs on the thread that called exit, with exit's caller further up its stack.
static void handle_exit(int status, void *argument) {
    (void)argument;
    if (crash_page == NULL || __atomic_load_n(&deliberate_exit, __ATOMIC_ACQUIRE)) return;
    if (!begin_handling()) return;
    flowhost_crash_record *record = record_of_page();
    begin_record(record, FLOWHOST_CRASH_EXIT, status);
    // The frame's address, not a local's: under AddressSanitizer a local may live on a heap "fake stack",
    // and the scan would read that instead of the thread's stack, where exit's caller is.
    uint64_t frame = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    walk_frames(record, frame);
    scan_stack(record, frame);
    finish_record(record);
}

static void (*unsupervised_exit_report)(int status, void *const *frames, int count);
/// The process that watches its exits: a child that plugin code forked runs the handler too, and its `exit`
/// is its own end, not the run's.
static pid_t unsupervised_exit_process;

/// Runs on the thread that called exit, in a host with no crash page: hands exit's caller to the report.
static void handle_unsupervised_exit(int status, void *argument) {
    (void)argument;
    if (crash_page != NULL || __atomic_load_n(&deliberate_exit, __ATOMIC_ACQUIRE)) return;
    if ((pid_t)syscall(SYS_getpid) != unsupervised_exit_process) return;
    void *frames[FLOWHOST_CRASH_MAX_FRAMES];
    int count = backtrace(frames, FLOWHOST_CRASH_MAX_FRAMES);
    unsupervised_exit_report(status, frames, count);
}

int flowhost_watch_unsupervised_exits(void (*report)(int status, void *const *frames, int count)) {
    if (unsupervised_exit_report != NULL) return 0;
    unsupervised_exit_report = report;
    unsupervised_exit_process = (pid_t)syscall(SYS_getpid);
    return on_exit(handle_unsupervised_exit, NULL) == 0 ? 0 : -1;
}

int flowhost_crash_install(void *page) {
    if (page == NULL) {
        errno = EINVAL;
        return -1;
    }
    crash_process = (pid_t)syscall(SYS_getpid);
    find_thread_descriptor_fields();
    crash_page = page;
    stack_t alternate;
    memset(&alternate, 0, sizeof alternate);
    alternate.ss_sp = alternate_stack;
    alternate.ss_size = sizeof alternate_stack;
    if (sigaltstack(&alternate, NULL) != 0) return -1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = handle_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t index = 0; index < sizeof caught_signals / sizeof caught_signals[0]; index++) {
        if (sigaction(caught_signals[index], &action, NULL) != 0) return -1;
    }
    return on_exit(handle_exit, NULL) == 0 ? 0 : -1;
}

int flowhost_crash_add_range(uint64_t start, uint64_t end) {
    if (crash_page == NULL) return -1;
    flowhost_code_ranges *table = ranges_of_page();
    uint32_t count = __atomic_load_n(&table->count, __ATOMIC_ACQUIRE);
    if (count >= FLOWHOST_CRASH_MAX_RANGES) return -1;
    table->ranges[count].start = start;
    table->ranges[count].end = end;
    __atomic_store_n(&table->count, count + 1, __ATOMIC_RELEASE);
    return 0;
}

void flowhost_crash_loading_begin(const char *path) {
    if (crash_page == NULL) return;
    struct stat status;
    if (stat(path, &status) != 0) return;
    flowhost_crash_loading *loading = loading_of_page();
    loading->major = major(status.st_dev);
    loading->minor = minor(status.st_dev);
    loading->start = 0;
    loading->end = 0;
    __atomic_store_n(&loading->inode, (uint64_t)status.st_ino, __ATOMIC_RELEASE);
}

void flowhost_crash_loading_end(void) {
    if (crash_page == NULL) return;
    __atomic_store_n(&loading_of_page()->inode, 0, __ATOMIC_RELEASE);
}

struct text_search {
    uint64_t address;
    uint64_t start;
    uint64_t end;
    int found;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct text_search *search = data;
    int holds = 0;
    uint64_t start = UINT64_MAX, end = 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD) continue;
        uint64_t low = (uint64_t)info->dlpi_addr + header->p_vaddr;
        uint64_t high = low + header->p_memsz;
        if (search->address >= low && search->address < high) holds = 1;
        if (header->p_flags & PF_X) {
            if (low < start) start = low;
            if (high > end) end = high;
        }
    }
    if (!holds || end == 0) return 0;
    search->start = start;
    search->end = end;
    search->found = 1;
    return 1;
}

int flowhost_image_text_range(const void *address, uint64_t *start, uint64_t *end) {
    struct text_search search = {(uint64_t)(uintptr_t)address, 0, 0, 0};
    dl_iterate_phdr(find_text, &search);
    if (!search.found) return -1;
    *start = search.start;
    *end = search.end;
    return 0;
}

void flowhost_crash_exit_is_deliberate(void) { __atomic_store_n(&deliberate_exit, 1, __ATOMIC_RELEASE); }

// CrashBreadcrumb+Page.swift reads the record at these offsets.
_Static_assert(offsetof(flowhost_crash_record, address) == 16, "record layout");
_Static_assert(offsetof(flowhost_crash_record, thread) == 32, "record layout");
_Static_assert(offsetof(flowhost_crash_record, frameCount) == 40, "record layout");
_Static_assert(offsetof(flowhost_crash_record, frames) == 48, "record layout");
_Static_assert(offsetof(flowhost_crash_record, scanned) == 304, "record layout");
_Static_assert(offsetof(flowhost_crash_record, startRoutine) == 432, "record layout");
_Static_assert(sizeof(flowhost_crash_record) == 440, "record layout");
_Static_assert(FLOWHOST_CRASH_RECORD_OFFSET + sizeof(flowhost_crash_record) <= FLOWHOST_CRASH_LOADING_OFFSET,
               "the library being loaded follows the record");
_Static_assert(FLOWHOST_CRASH_LOADING_OFFSET + sizeof(flowhost_crash_loading) <= FLOWHOST_CRASH_RANGES_OFFSET,
               "the ranges follow the library being loaded");
_Static_assert(offsetof(flowhost_crash_loading, start) == 16, "loading layout");
_Static_assert(sizeof(flowhost_code_ranges) <= 4096, "the ranges fit before the last crumbs");

int32_t flowhost_crash_thread_id(void) { return (int32_t)syscall(SYS_gettid); }
