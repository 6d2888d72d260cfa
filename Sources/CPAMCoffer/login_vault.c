// The login vault's steps at login and at a password change: each runs coffer as the user
// (run.c) and ends with one log line. None of them can fail the PAM call.
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

// coffer's exit statuses (ExitStatus.swift) that the steps tell apart.
enum {
    COFFER_OK = 0,
    COFFER_NOT_FOUND = 1,       // agent status: no agent runs
    COFFER_LOCKED = 2,          // wrong passphrase
    COFFER_NO_VAULT = 66,
    COFFER_UNAVAILABLE = 69,    // unlock: no agent runs
    COFFER_ALREADY_EXISTS = 73, // init: another login created it first
};

// Why a run failed, in words, for the log line.
static void describe(const struct pc_options *options, const char *step, const struct pc_run *run, char *text, size_t size) {
    if (run->abandoned) {
        snprintf(text, size, "coffer %s did not finish within %u s and did not end after SIGKILL (asleep in the kernel: a file system that does not answer?); it is left running",
                 step, options->timeout);
    } else if (run->timed_out) {
        snprintf(text, size, "coffer %s did not finish within %u s and was killed", step, options->timeout);
    } else if (run->status < 0) {
        snprintf(text, size, "coffer %s: %s", step, run->message[0] ? run->message : "ended by a signal");
    } else {
        const char *message = run->message;
        if (strncmp(message, "coffer: ", 8) == 0) message += 8;
        snprintf(text, size, "coffer %s exited %d%s%s", step, run->status, message[0] ? ": " : "", message);
    }
}

static void unlock(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user, const char *password, struct pc_run *run) {
    const char *with_lifetime[] = {"unlock", "--passphrase-fd", "3", "--for", options->unlock_for, NULL};
    const char *plain[] = {"unlock", "--passphrase-fd", "3", NULL};
    pc_run_coffer(ph, options, user, options->unlock_for ? with_lifetime : plain, password, NULL, run);
    if (options->debug) pam_syslog(ph, LOG_DEBUG, "coffer unlock for %s: status %d", user->name, run->status);
}

// Starts the agent; true when it runs afterwards.
static bool start_agent(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user, struct pc_run *run) {
    const char *with_idle[] = {"agent", "start", "--idle-timeout", options->idle_timeout, NULL};
    const char *plain[] = {"agent", "start", NULL};
    pc_run_coffer(ph, options, user, options->idle_timeout ? with_idle : plain, NULL, NULL, run);
    if (options->debug) pam_syslog(ph, LOG_DEBUG, "coffer agent start for %s: status %d", user->name, run->status);
    return run->status == COFFER_OK;
}

void pc_open_login_vault(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user, const char *password) {
    if (password[0] == '\0') {
        pam_syslog(ph, LOG_NOTICE, "the login vault of %s stays locked: the login password is empty", user->name);
        return;
    }
    bool created = false, started = false;
    struct pc_run run;
    const char *step = "unlock";
    unlock(ph, options, user, password, &run);
    // At most one creation and one start, each followed by one more unlock.
    for (int round = 0; round < 2 && !run.timed_out; round++) {
        if (run.status == COFFER_NO_VAULT && !created) {
            const char *create[] = {"init", "--passphrase-fd", "3", NULL};
            pc_run_coffer(ph, options, user, create, password, NULL, &run);
            if (options->debug) pam_syslog(ph, LOG_DEBUG, "coffer init for %s: status %d", user->name, run.status);
            if (run.status != COFFER_OK && run.status != COFFER_ALREADY_EXISTS) {
                step = "init";
                break;
            }
            created = run.status == COFFER_OK;
        } else if (run.status == COFFER_UNAVAILABLE && options->auto_start && !started) {
            if (!start_agent(ph, options, user, &run)) {
                step = "agent start";
                break;
            }
            started = true;
        } else {
            break;
        }
        step = "unlock";
        unlock(ph, options, user, password, &run);
    }
    if (!run.timed_out && run.status == COFFER_OK) {
        pam_syslog(ph, LOG_INFO, "%s%sunlocked the login vault of %s", created ? "created and " : "", started ? "started the agent, " : "",
                   user->name);
        return;
    }
    char reason[320];
    describe(options, step, &run, reason, sizeof reason);
    const char *hint = "";
    if (!run.timed_out && strcmp(step, "unlock") == 0) {
        if (run.status == COFFER_LOCKED) hint = " (the login password does not open it)";
        if (run.status == COFFER_UNAVAILABLE && !options->auto_start) hint = " (no agent runs: enable coffer-agent.socket, or add auto_start)";
    }
    pam_syslog(ph, LOG_WARNING, "the login vault of %s stays locked%s: %s%s", user->name, created ? " (created)" : "", reason, hint);
}

void pc_start_agent(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user) {
    struct pc_run run;
    const char *status[] = {"agent", "status", NULL};
    pc_run_coffer(ph, options, user, status, NULL, NULL, &run);
    if (!run.timed_out && run.status == COFFER_OK) return;
    const char *step = "agent status";
    if (!run.timed_out && run.status == COFFER_NOT_FOUND) {
        if (start_agent(ph, options, user, &run)) {
            pam_syslog(ph, LOG_INFO, "started the agent of %s (no password to unlock the login vault with)", user->name);
            return;
        }
        step = "agent start";
    }
    char reason[320];
    describe(options, step, &run, reason, sizeof reason);
    pam_syslog(ph, LOG_WARNING, "no agent for %s: %s", user->name, reason);
}

void pc_change_login_passphrase(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user,
                                const char *old_password, const char *new_password) {
    struct pc_run run;
    const char *change[] = {"passwd", "--passphrase-fd", "3", "--new-passphrase-fd", "4", NULL};
    pc_run_coffer(ph, options, user, change, old_password, new_password, &run);
    if (!run.timed_out && run.status == COFFER_OK) {
        pam_syslog(ph, LOG_INFO, "changed the passphrase of the login vault of %s", user->name);
        return;
    }
    if (!run.timed_out && run.status == COFFER_NO_VAULT) {
        pam_syslog(ph, LOG_INFO, "%s has no login vault yet; the next login creates it with the new password", user->name);
        return;
    }
    char reason[320];
    describe(options, "passwd", &run, reason, sizeof reason);
    const char *hint = !run.timed_out && run.status == COFFER_LOCKED ? " (the old password does not open it)" : "";
    pam_syslog(ph, LOG_WARNING, "the login vault of %s keeps its passphrase: %s%s", user->name, reason, hint);
}
