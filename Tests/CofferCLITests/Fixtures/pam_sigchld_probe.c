// pam_sigchld_probe SERVICE USER handler|ignore: an application with children of its own runs
// PAM's auth and open_session for USER through SERVICE ($PAM_AUTHTOK is the password, through
// pam_wrapper's pam_set_items.so), and reports what its SIGCHLD handling saw.
//   handler: a SIGCHLD handler reaps with waitpid(-1); a child of the application ends 300 ms
//            into open_session (while the module's coffer runs)
//   ignore:  SIGCHLD is SIG_IGN, as in daemons that never wait
// It prints `own=N other=N left=N`: children of its own its handler reaped, other children its
// handler reaped (the module's), and children still there (zombies included) once PAM is done.
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <security/pam_appl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t reaped_own, reaped_other;
static volatile pid_t own_child = -1;

static void on_child(int signal) {
    (void)signal;
    int saved = errno;
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == own_child) reaped_own++;
        else reaped_other++;
    }
    errno = saved;
}

static int answer(int count, const struct pam_message **messages, struct pam_response **responses, void *data) {
    (void)messages, (void)data;
    *responses = calloc((size_t)count, sizeof **responses);
    return *responses == NULL ? PAM_BUF_ERR : PAM_SUCCESS;
}

static void pause_ms(long milliseconds) {
    struct timespec pause = {.tv_sec = milliseconds / 1000, .tv_nsec = (milliseconds % 1000) * 1000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[3], "handler") != 0 && strcmp(argv[3], "ignore") != 0)) {
        fprintf(stderr, "usage: PAM_AUTHTOK=... pam_sigchld_probe SERVICE USER handler|ignore\n");
        return 64;
    }
    bool handler = strcmp(argv[3], "handler") == 0;
    struct sigaction action = {.sa_handler = handler ? on_child : SIG_IGN, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&action.sa_mask);
    sigaction(SIGCHLD, &action, NULL);

    struct pam_conv conversation = {answer, NULL};
    pam_handle_t *pam = NULL;
    if (pam_start(argv[1], argv[2], &conversation, &pam) != PAM_SUCCESS) return 70;
    int status = pam_authenticate(pam, 0);
    if (status == PAM_SUCCESS) {
        pid_t child = fork();
        if (child == 0) {
            pause_ms(300);
            _exit(7);
        }
        own_child = child;
        status = pam_open_session(pam, 0);
    }
    pam_end(pam, status);
    if (status != PAM_SUCCESS) return 70;

    // The application's child has ended by now; give its SIGCHLD, if one is coming, time to arrive.
    for (int i = 0; handler && i < 200 && reaped_own == 0; i++) pause_ms(10);
    int left = 0;
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | __WALL) != 0) break;  // no child at all
        left++;  // a zombie, reaped now, or (si_pid 0) a child still running
        if (info.si_pid == 0 || left >= 100) break;
    }
    printf("own=%d other=%d left=%d\n", (int)reaped_own, (int)reaped_other, left);
    return 0;
}
