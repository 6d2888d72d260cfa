// Linux calls Swift cannot make itself: variadic functions, and signal handlers that must be
// async-signal-safe (Swift code is not guaranteed to be). Header-only; links nothing.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/vfs.h>
#include <termios.h>
#include <unistd.h>

// ---- GNU extensions Swift's Glibc module does not declare (it is not built with _GNU_SOURCE) ----

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
extern int pipe2(int[2], int);
extern int memfd_create(const char *, unsigned int);
extern int pthread_setname_np(pthread_t, const char *);

/// A spawn action that closes every descriptor from `from` up (glibc 2.34).
static inline int coffer_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// A pipe whose two ends are close-on-exec from the start.
static inline int coffer_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/// An anonymous file in memory, close-on-exec (memfd_create(2), glibc 2.27).
static inline int coffer_memfd_cloexec(const char *name) {
    return memfd_create(name, 1U /* MFD_CLOEXEC */);
}

/// glibc's POSIX_SPAWN_SETSID (2.26): the child leads a session of its own.
#define COFFER_POSIX_SPAWN_SETSID 0x80

/// prctl(PR_SET_DUMPABLE, 0): no core dump, and no ptrace or /proc/<pid>/mem for other processes.
static inline int coffer_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

// ---- Pinning a process: pidfds (syscall wrappers, since Debian 12's glibc headers lack them) ----

/// pidfd_open(2) (Linux 5.3): a close-on-exec descriptor that pins process `pid`, or -1 with
/// errno (ESRCH: no such process; ENOSYS: an older kernel).
static inline int coffer_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// pidfd_send_signal(2) (Linux 5.1); signal 0 checks that the process still runs (or is a
/// zombie not yet reaped) without signalling it: 0, or -1 with errno ESRCH once it has ended.
static inline int coffer_pidfd_send_signal(int pidfd, int sig) {
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// getsockopt(SO_PEERPIDFD) (Linux 6.5): a pidfd of the process that connected the Unix socket
/// `socket`, taken by the kernel at connect, or -1 with errno (ENOPROTOOPT: an older kernel;
/// ESRCH: the peer has ended). The option's number is asm-generic's (77), which these
/// architectures use; elsewhere, and where the headers do not name it, it is ENOPROTOOPT.
static inline int coffer_peer_pidfd(int socket) {
#if defined(SO_PEERPIDFD)
    int option = SO_PEERPIDFD;
#elif defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__) || defined(__riscv)
    int option = 77;
#else
    errno = ENOPROTOOPT;
    return -1;
#endif
    int pidfd = -1;
    socklen_t length = sizeof pidfd;
    if (getsockopt(socket, SOL_SOCKET, option, &pidfd, &length) != 0) return -1;
    return pidfd;
}

/// Whether the open file `fd` is on a FUSE file system (whose user-space server may give each
/// reader different content): 1, 0, or -1 with errno when fstatfs(2) fails.
static inline int coffer_is_fuse(int fd) {
    struct statfs info;
    if (fstatfs(fd, &info) != 0) return -1;
    return info.f_type == 0x65735546 ? 1 : 0;
}

/// Opens `path` for reading only when it is a regular file, and opens nothing else on the way:
/// the path is resolved first with O_PATH (which opens no device, FIFO or socket: opening some
/// devices acts, /dev/watchdog arms a timer), the file checked, then that same file opened. With
/// `nofollow`, a symbolic link as the last component is refused. `refuse`, when given, is asked
/// about the file (its device and inode) before it is opened for reading, and a nonzero answer
/// refuses it (EBUSY): a file this process has open as a database, whose POSIX locks closing any
/// other descriptor of it would drop (an O_PATH descriptor's close drops none). Returns a
/// close-on-exec descriptor, or -1 with errno (EINVAL: not a regular file). Where /proc is not
/// mounted, the file can only be opened by its path again, which another file may have taken
/// meanwhile: that is done only with `may_reopen_by_path` (the caller has no database open, so
/// no lock to lose), and the file must be the same (else EAGAIN); otherwise ENOSYS. O_PATH is
/// asm-generic's value where the headers Swift sees do not name it.
static inline int coffer_open_regular(const char *path, int nofollow, int (*refuse)(unsigned long long, unsigned long long),
                                      int may_reopen_by_path) {
#if defined(O_PATH)
    int resolveOnly = O_PATH;
#elif defined(__x86_64__) || defined(__aarch64__) || defined(__i386__) || defined(__arm__) || defined(__riscv)
    int resolveOnly = 010000000;
#else
    errno = ENOSYS;
    return -1;
#endif
    int handle = open(path, resolveOnly | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (handle < 0) return -1;
    struct stat info;
    int failure = 0;
    if (fstat(handle, &info) != 0) failure = errno;
    else if (!S_ISREG(info.st_mode)) failure = EINVAL;
    else if (refuse != NULL && refuse((unsigned long long)info.st_dev, (unsigned long long)info.st_ino)) failure = EBUSY;
    int descriptor = -1;
    if (!failure) {
        char link[32];
        snprintf(link, sizeof link, "/proc/self/fd/%d", handle);
        descriptor = open(link, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (descriptor < 0 && errno == ENOENT && access("/proc/self/fd", F_OK) != 0 && !may_reopen_by_path) {
            errno = ENOSYS;
        } else if (descriptor < 0 && errno == ENOENT && access("/proc/self/fd", F_OK) != 0) {
            struct stat opened;
            descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | (nofollow ? O_NOFOLLOW : 0));
            if (descriptor >= 0 && (fstat(descriptor, &opened) != 0 || opened.st_dev != info.st_dev || opened.st_ino != info.st_ino)) {
                close(descriptor);
                descriptor = -1;
                errno = EAGAIN;
            }
        }
        if (descriptor < 0) failure = errno;
    }
    close(handle);
    errno = failure;
    return descriptor;
}

// ---- A hidden prompt's terminal settings, restored whatever signal arrives ----------------

// The state lives in function-local statics: Swift emits a header's inline functions, with
// their statics, but not a header's own global variables.
struct coffer_prompt_state {
    struct termios saved;
    struct termios hidden;
    volatile sig_atomic_t fd;
    struct sigaction previous[4];
};

static inline struct coffer_prompt_state *coffer_prompt(void) {
    static struct coffer_prompt_state state = { .fd = -1 };
    return &state;
}

static const int coffer_prompt_signals[4] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP };

static void coffer_prompt_signal(int sig);

static inline void coffer_install_prompt_handler(int sig, struct sigaction *previous) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = coffer_prompt_signal;
    // NODEFER: the handler re-raises its own signal and must not find it blocked.
    action.sa_flags = SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(sig, &action, previous);
}

/// Restores the terminal, then lets the signal do what it would have done. After a stop
/// (Ctrl-Z) and `fg`, echo goes off again and the prompt carries on.
static void coffer_prompt_signal(int sig) {
    struct coffer_prompt_state *state = coffer_prompt();
    int fd = state->fd;
    if (fd >= 0) tcsetattr(fd, TCSAFLUSH, &state->saved);
    signal(sig, SIG_DFL);
    raise(sig);
    // Only a stop returns here, once the process is continued.
    fd = state->fd;
    if (fd >= 0) tcsetattr(fd, TCSAFLUSH, &state->hidden);
    coffer_install_prompt_handler(sig, 0);
}

/// Turns echo off on terminal `fd` (dropping typeahead) and installs handlers that restore
/// it on SIGINT, SIGTERM, SIGHUP and SIGTSTP. Returns 0, or -1 when `fd` is not a terminal.
static inline int coffer_hide_echo(int fd) {
    struct coffer_prompt_state *state = coffer_prompt();
    if (tcgetattr(fd, &state->saved) != 0) return -1;
    state->hidden = state->saved;
    state->hidden.c_lflag &= ~(tcflag_t)ECHO;
    state->fd = fd;
    for (int i = 0; i < 4; i++) coffer_install_prompt_handler(coffer_prompt_signals[i], &state->previous[i]);
    if (tcsetattr(fd, TCSAFLUSH, &state->hidden) != 0) return -1;
    return 0;
}

/// Restores the terminal as `coffer_hide_echo` found it, and the signal handlers before it.
static inline void coffer_restore_echo(void) {
    struct coffer_prompt_state *state = coffer_prompt();
    int fd = state->fd;
    if (fd < 0) return;
    tcsetattr(fd, TCSAFLUSH, &state->saved);
    state->fd = -1;
    for (int i = 0; i < 4; i++) sigaction(coffer_prompt_signals[i], &state->previous[i], 0);
}
