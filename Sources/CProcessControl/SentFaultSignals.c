// The signals of faults that another process sends (`kill -SEGV PID`), which end the process as their default
// action would; see include/CProcessControl.h. Everything the handler calls is async-signal-safe.
#define _GNU_SOURCE
#include "CProcessControl.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
/// The actions the handler went in front of (the Swift runtime's backtracer's), by signal number.
static struct sigaction behind[NSIG];

int flowhost_signal_is_from_another_process(const siginfo_t *info) {
    if (info == NULL) return 0;
    // The codes whose siginfo names the sender: kill(2), sigqueue(3), tkill(2) and tgkill(2). A fault the
    // hardware raised has a positive code (SEGV_MAPERR, ILL_ILLOPN...), and no sender.
    if (info->si_code != SI_USER && info->si_code != SI_QUEUE && info->si_code != SI_TKILL) return 0;
    return info->si_pid != (pid_t)syscall(SYS_getpid);
}

void flowhost_end_by_signal(int number) {
    struct sigaction standard;
    memset(&standard, 0, sizeof standard);
    standard.sa_handler = SIG_DFL;
    sigemptyset(&standard.sa_mask);
    sigaction(number, &standard, NULL);
    // At this thread, which blocks it while a handler of it runs: delivered as that handler returns.
    syscall(SYS_tgkill, (long)syscall(SYS_getpid), (long)syscall(SYS_gettid), (long)number);
}

void flowhost_run_signal_action(const struct sigaction *action, int number, siginfo_t *info, void *context) {
    int handles = (action->sa_flags & SA_SIGINFO) ? action->sa_sigaction != NULL
                                                   : action->sa_handler != SIG_DFL && action->sa_handler != SIG_IGN;
    if (!handles) return;
    // With the mask the kernel would have given it: the handler's own, and the signal unless SA_NODEFER.
    sigset_t mask = action->sa_mask, previous;
    if (!(action->sa_flags & SA_NODEFER)) sigaddset(&mask, number);
    pthread_sigmask(SIG_BLOCK, &mask, &previous);
    if (action->sa_flags & SA_NODEFER) {
        sigset_t itself;
        sigemptyset(&itself);
        sigaddset(&itself, number);
        pthread_sigmask(SIG_UNBLOCK, &itself, NULL);
    }
    if (action->sa_flags & SA_SIGINFO) {
        action->sa_sigaction(number, info, context);
    } else {
        action->sa_handler(number);
    }
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

static void end_when_sent(int number, siginfo_t *info, void *context) {
    int saved = errno;
    if (!flowhost_signal_is_from_another_process(info)) {
        // A fault, or a signal this process raised (abort(3), plugin code's raise(3)): the report of the handler
        // behind, called here rather than left to a fault that recurs as this returns, since not every one does
        // (int3's SIGTRAP has the program counter past it already); then the end the signal asks for, which the
        // backtracer, returning, would not bring.
        sigaction(number, &behind[number], NULL);
        flowhost_run_signal_action(&behind[number], number, info, context);
    }
    flowhost_end_by_signal(number);
    errno = saved;
}

int flowhost_end_by_sent_faults(void) {
    for (size_t index = 0; index < sizeof fault_signals / sizeof fault_signals[0]; index++) {
        int number = fault_signals[index];
        struct sigaction current;
        if (sigaction(number, NULL, &current) != 0) return -1;
        // The default action ends the process already; an ignored signal stays ignored.
        if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) {
            continue;
        }
        behind[number] = current;
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = end_when_sent;
        action.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        if (sigaction(number, &action, NULL) != 0) return -1;
    }
    return 0;
}
