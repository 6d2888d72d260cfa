// Linux calls Swift cannot make itself: variadic functions, and signal handlers that must be
// async-signal-safe (Swift code is not guaranteed to be). Header-only; links nothing.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <termios.h>
#include <unistd.h>

// ---- GNU extensions Swift's Glibc module does not declare (it is not built with _GNU_SOURCE) ----

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
extern int pidfd_open(pid_t, unsigned int);
extern int pipe2(int[2], int);

/// A spawn action that closes every descriptor from `from` up (glibc 2.34).
static inline int coffer_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// A descriptor that becomes readable when process `pid` exits (Linux 5.3); -1 where there is none.
static inline int coffer_pidfd_open(pid_t pid) {
    return pidfd_open(pid, 0);
}

/// A pipe whose two ends are close-on-exec from the start.
static inline int coffer_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

/// glibc's POSIX_SPAWN_SETSID (2.26): the child leads a session of its own.
#define COFFER_POSIX_SPAWN_SETSID 0x80

/// prctl(PR_SET_DUMPABLE, 0): no core dump, and no ptrace or /proc/<pid>/mem for other processes.
static inline int coffer_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
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
