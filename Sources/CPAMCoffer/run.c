// Runs coffer as the PAM user: a clean environment, only the descriptors it needs, secrets on
// pipes (never argv or the environment), and a deadline after which its process group is killed.
// coffer is the child of a watcher, the module's child, which kills it at the deadline and reaps
// it: a coffer that SIGKILL does not end (asleep in the kernel on a file system that never
// answers) is left to init when the module kills the watcher, never to the PAM application.
//
// The watcher is a clone child that sends no signal when it ends: the application's SIGCHLD
// handling (a handler, SIG_IGN, SA_NOCLDWAIT) neither sees nor reaps it, and waitpid(-1) without
// __WCLONE does not return it, so the module never changes SIGCHLD and the application's own
// children are announced as ever while coffer runs. Neither the watcher nor coffer's process,
// made by clone system calls rather than glibc's fork (no atfork handlers, no glibc state reset),
// calls anything but system calls before exec: credentials are changed by raw system calls,
// which in a one-thread process change the whole process.
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <security/pam_ext.h>

#define PC_ARGUMENTS_MAX 12
#define PC_ENVIRONMENT_MAX 12
// How long coffer, killed at the deadline, may take to end before it is left behind.
#define PC_KILL_GRACE_MS 2000

// Variables of the PAM environment (pam_env, pam_systemd) that say where the user's vault and
// agent are; only absolute paths pass.
static const char *const passed_through[] = {
    "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "XDG_STATE_HOME", "COFFER_AGENT_SOCKET", "COFFER_VAULT", NULL,
};

// Why the child could not become coffer, sent on a close-on-exec pipe: nothing arrives when exec succeeds.
struct child_failure {
    int stage;  // 1 changing to the user, 2 descriptors, 3 exec, 4 fork (in the watcher)
    int error;  // errno
};

// How coffer ended, from the watcher on a pipe.
struct ending {
    int status;  // waitpid's
    int killed;  // at the deadline
};

static char *variable(const char *name, const char *value) {
    size_t length = strlen(name) + strlen(value) + 2;
    char *text = malloc(length);
    if (text != NULL) snprintf(text, length, "%s=%s", name, value);
    return text;
}

static void free_environment(char **environment) {
    for (int i = 0; environment[i] != NULL; i++) free(environment[i]);
}

static bool build_environment(pam_handle_t *ph, const struct pc_user *user, char **environment) {
    int count = 0;
    environment[count++] = variable("HOME", user->home);
    environment[count++] = variable("USER", user->name);
    environment[count++] = variable("LOGNAME", user->name);
    environment[count++] = variable("PATH", "/usr/local/bin:/usr/bin:/bin");
    for (int i = 0; passed_through[i] != NULL; i++) {
        const char *value = pam_getenv(ph, passed_through[i]);
        if (value != NULL && value[0] == '/') environment[count++] = variable(passed_through[i], value);
    }
    environment[count] = NULL;
    for (int i = 0; i < count; i++) {
        if (environment[i] == NULL) {
            for (int j = i + 1; j < count; j++) free(environment[j]);
            environment[i] = NULL;
            free_environment(environment);
            return false;
        }
    }
    return true;
}

// A pipe whose read end holds `secret`, already written and closed for writing: the secret
// fits in the pipe's buffer (PC_SECRET_MAX is well under the 64 KiB Linux gives a pipe).
static int secret_pipe(const char *secret) {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    size_t length = strlen(secret), done = 0;
    while (done < length) {
        ssize_t written = write(ends[1], secret + done, length - done);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) {
            close(ends[0]);
            close(ends[1]);
            return -1;
        }
        done += (size_t)written;
    }
    close(ends[1]);
    return ends[0];
}

static long long now_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void pause_briefly(void) {
    struct timespec pause = {.tv_nsec = 10 * 1000000};
    nanosleep(&pause, NULL);
}

static void close_from(int first, int last) {
    if (first > last) return;
    if (close_range((unsigned)first, (unsigned)last, 0) == 0) return;
    struct rlimit limit;
    int top = last;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && (rlim_t)top > limit.rlim_cur) {
        top = (int)limit.rlim_cur;
    }
    if (top > 65536) top = 65536;
    for (int fd = first; fd <= top; fd++) close(fd);
}

// A child made by the clone system call, as fork makes one (a copy of this process, returning 0
// in the child) but sending `exit_signal` (0: none) to the parent when it ends.
static pid_t clone_child(int exit_signal) {
    return (pid_t)syscall(SYS_clone, (unsigned long)exit_signal, NULL, NULL, NULL, NULL);
}

// setgroups, setgid and setuid as system calls: glibc's wrappers would signal every thread
// glibc believes the process has (a copy of the application's list, after clone).
static bool become_user(const struct pc_user *user) {
#ifdef SYS_setuid32
    return syscall(SYS_setgroups32, (long)user->group_count, user->groups) == 0 && syscall(SYS_setgid32, (long)user->gid) == 0
        && syscall(SYS_setuid32, (long)user->uid) == 0;
#else
    return syscall(SYS_setgroups, (long)user->group_count, user->groups) == 0 && syscall(SYS_setgid, (long)user->gid) == 0
        && syscall(SYS_setuid, (long)user->uid) == 0;
#endif
}

static _Noreturn void child_fails(int report, int stage) {
    struct child_failure failure = {.stage = stage, .error = errno};
    (void)!write(report, &failure, sizeof failure);
    _exit(127);
}

// In coffer's process, made by the watcher: system calls only, then exec.
static _Noreturn void become_coffer(const struct pc_user *user, const char *path, char *const *arguments, char *const *environment,
                                    const int descriptors[5], int report) {
    // Its own session and process group: no controlling terminal to prompt on, and one kill
    // at the deadline reaches everything it started.
    setsid();

    report = fcntl(report, F_DUPFD_CLOEXEC, 10);
    if (report < 0) _exit(127);
    int moved[5];
    for (int i = 0; i < 5; i++) {
        moved[i] = descriptors[i] >= 0 ? fcntl(descriptors[i], F_DUPFD_CLOEXEC, 10) : -1;
        if (descriptors[i] >= 0 && moved[i] < 0) child_fails(report, 2);
    }
    for (int i = 0; i < 5; i++) {
        if (moved[i] < 0) {
            close(i);
        } else if (dup2(moved[i], i) < 0) {
            child_fails(report, 2);
        }
    }
    close_from(5, report - 1);
    close_from(report + 1, INT_MAX);

    if (geteuid() == 0) {
        if (!become_user(user)) child_fails(report, 1);
#ifdef SYS_setuid32
        long regained = syscall(SYS_setuid32, 0L);
#else
        long regained = syscall(SYS_setuid, 0L);
#endif
        if (user->uid != 0 && (regained == 0 || geteuid() == 0 || getegid() != user->gid)) {
            errno = EPERM;
            child_fails(report, 1);
        }
    }
    if (chdir(user->home) != 0) (void)!chdir("/");
    umask(077);
    execve(path, arguments, environment);
    child_fails(report, 3);
}

// In the watcher, the module's clone child: system calls only. It touches no file, so SIGKILL always ends it; as
// coffer's parent, it kills coffer's group at the deadline while coffer's pid cannot be reused.
static _Noreturn void watch_coffer(const struct pc_user *user, const char *path, char *const *arguments, char *const *environment,
                                   const int descriptors[5], int report, int told, long long deadline) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction standard = {.sa_handler = SIG_DFL};
    for (int signal = 1; signal < NSIG; signal++) (void)sigaction(signal, &standard, NULL);
    setsid();
    pid_t pid = clone_child(SIGCHLD);
    if (pid == 0) become_coffer(user, path, arguments, environment, descriptors, report);
    if (pid < 0) child_fails(report, 4);
    close_from(0, told - 1);
    close_from(told + 1, INT_MAX);
    struct ending ending = {0};
    for (;;) {
        pid_t ended = waitpid(pid, &ending.status, WNOHANG);
        if (ended == pid) break;
        if (ended < 0 && errno != EINTR) _exit(127);
        if (now_ms() >= deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            ending.killed = 1;
            while (waitpid(pid, &ending.status, 0) < 0 && errno == EINTR) {}
            break;
        }
        pause_briefly();
    }
    (void)!write(told, &ending, sizeof ending);
    _exit(0);
}

static void keep_first_line(struct pc_run *run, size_t *kept, bool *line_done, const char *bytes, ssize_t count) {
    for (ssize_t i = 0; i < count && !*line_done; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c == '\n') {
            *line_done = true;
        } else if (*kept + 1 < sizeof run->message) {
            run->message[(*kept)++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
            run->message[*kept] = '\0';
        }
    }
}

// Reads coffer's stderr and waits for the watcher, which kills coffer at the deadline; when
// coffer has not ended a grace period later, kills the watcher and leaves coffer behind.
static void await_child(pid_t watcher, int errors, int told, long long deadline, struct pc_run *run) {
    size_t kept = 0;
    bool line_done = false, open = true;
    char buffer[512];
    for (;;) {
        int status;
        pid_t ended = waitpid(watcher, &status, WNOHANG | __WCLONE);
        if (ended == watcher || (ended < 0 && errno != EINTR)) {
            // Ended: what coffer and the watcher wrote is in the pipes already.
            ssize_t count;
            while (open && (count = read(errors, buffer, sizeof buffer)) > 0) keep_first_line(run, &kept, &line_done, buffer, count);
            struct ending ending;
            if (read(told, &ending, sizeof ending) == (ssize_t)sizeof ending) {
                run->timed_out = ending.killed;
                if (!ending.killed && WIFEXITED(ending.status)) run->status = WEXITSTATUS(ending.status);
            }
            return;
        }
        long long left = deadline + PC_KILL_GRACE_MS - now_ms();
        if (left <= 0) {
            // The watcher too, and coffer if it is started but not yet in a group of its own.
            kill(-watcher, SIGKILL);
            kill(watcher, SIGKILL);
            // The watcher touches no file, so SIGKILL ends it: waiting is bounded, and no zombie
            // is left that nothing else could reap (it sends no SIGCHLD).
            while (waitpid(watcher, &status, __WCLONE) < 0 && errno == EINTR) {}
            run->timed_out = true;
            run->abandoned = true;
            return;
        }
        if (!open) {
            pause_briefly();
            continue;
        }
        struct pollfd poller = {.fd = errors, .events = POLLIN};
        int ready = poll(&poller, 1, left < 20 ? (int)left : 20);
        if (ready > 0) {
            ssize_t count = read(errors, buffer, sizeof buffer);
            if (count > 0) {
                keep_first_line(run, &kept, &line_done, buffer, count);
            } else if (count == 0 || (errno != EINTR && errno != EAGAIN)) {
                open = false;
            }
        }
    }
}

void pc_run_coffer(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user,
                   const char *const arguments[], const char *secret3, const char *secret4, struct pc_run *run) {
    *run = (struct pc_run){.status = -1};
    char *argv[PC_ARGUMENTS_MAX + 2];
    int count = 0;
    argv[count++] = (char *)options->coffer;
    for (int i = 0; arguments[i] != NULL && count <= PC_ARGUMENTS_MAX; i++) argv[count++] = (char *)arguments[i];
    argv[count] = NULL;

    char *environment[PC_ENVIRONMENT_MAX] = {NULL};
    if (!build_environment(ph, user, environment)) {
        snprintf(run->message, sizeof run->message, "out of memory");
        return;
    }
    int null_device = open("/dev/null", O_RDWR | O_CLOEXEC);
    int third = secret3 != NULL ? secret_pipe(secret3) : -1;
    int fourth = secret4 != NULL ? secret_pipe(secret4) : -1;
    int errors[2] = {-1, -1}, report[2] = {-1, -1}, told[2] = {-1, -1};
    bool ready = null_device >= 0 && (secret3 == NULL || third >= 0) && (secret4 == NULL || fourth >= 0)
        && pipe2(errors, O_CLOEXEC) == 0 && pipe2(report, O_CLOEXEC) == 0 && pipe2(told, O_CLOEXEC) == 0;

    long long deadline = now_ms() + (long long)options->timeout * 1000;
    pid_t pid = ready ? clone_child(0) : -1;
    if (pid == 0) {
        const int descriptors[5] = {null_device, null_device, errors[1], third, fourth};
        watch_coffer(user, options->coffer, argv, environment, descriptors, report[1], told[1], deadline);
    }
    int failure_errno = errno;
    if (errors[1] >= 0) close(errors[1]);
    if (report[1] >= 0) close(report[1]);
    if (told[1] >= 0) close(told[1]);
    if (third >= 0) close(third);
    if (fourth >= 0) close(fourth);
    if (null_device >= 0) close(null_device);
    free_environment(environment);

    if (pid < 0) {
        snprintf(run->message, sizeof run->message, "cannot start a process: %s", strerror(failure_errno));
    } else {
        // All three non-blocking: a coffer left behind before its exec holds the report pipe open.
        fcntl(errors[0], F_SETFL, O_NONBLOCK);
        fcntl(report[0], F_SETFL, O_NONBLOCK);
        fcntl(told[0], F_SETFL, O_NONBLOCK);
        await_child(pid, errors[0], told[0], deadline, run);
        struct child_failure failure;
        if (read(report[0], &failure, sizeof failure) == (ssize_t)sizeof failure) {
            run->status = -1;
            if (failure.stage == 4) {
                snprintf(run->message, sizeof run->message, "cannot start a process: %s", strerror(failure.error));
            } else {
                const char *what = failure.stage == 1 ? "cannot become the user" : failure.stage == 2 ? "cannot pass descriptors" : "cannot run";
                snprintf(run->message, sizeof run->message, "%s %s: %s", what, failure.stage == 3 ? options->coffer : user->name,
                         strerror(failure.error));
            }
        }
    }
    if (errors[0] >= 0) close(errors[0]);
    if (report[0] >= 0) close(report[0]);
    if (told[0] >= 0) close(told[0]);
}
