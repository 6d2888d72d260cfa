// What the module's files share. Nothing here is exported from pam_coffer.so.
#ifndef PAM_COFFER_INTERNAL_H
#define PAM_COFFER_INTERNAL_H

#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <security/pam_modules.h>

#pragma GCC visibility push(hidden)

// The module's arguments (docs/login-unlock.md, "Module arguments").
struct pc_options {
    const char *coffer;        // the coffer executable: an absolute path
    bool auto_start;           // start the user's agent when none runs
    bool debug;                // log each step, not only the outcome
    const char *unlock_for;    // `coffer unlock --for`, or NULL for coffer's default
    const char *idle_timeout;  // `coffer agent start --idle-timeout`, or NULL
    unsigned timeout;          // seconds each coffer run may take before it is killed
    bool usable;               // false when an argument was invalid: the module then does nothing
};

void pc_parse_options(pam_handle_t *ph, int argc, const char **argv, struct pc_options *options);

// The login password, kept from auth for the session (pam_set_data) with the uid of the user it
// authenticated, zeroed when dropped. The stashed password is returned with that uid.
void pc_stash_password(pam_handle_t *ph, uid_t uid, const char *password);
const char *pc_stashed_password(pam_handle_t *ph, uid_t *uid);
void pc_drop_stashed_password(pam_handle_t *ph);
// Zeroes `length` bytes at `bytes`, in a way the compiler keeps.
void pc_zero(void *bytes, size_t length);

// The PAM user, resolved once: who the children run as, and their environment.
struct pc_user {
    char *name;
    uid_t uid;
    gid_t gid;
    char *home;
    gid_t *groups;
    int group_count;
};

// Looks the PAM user up; logs why and returns false when the module cannot act for them.
bool pc_user_load(pam_handle_t *ph, struct pc_user *user);
// The PAM user's uid; false when there is no such user.
bool pc_user_uid(pam_handle_t *ph, uid_t *uid);
// The largest user database entry looked up (its strings): beyond any real one.
#define PC_PASSWD_ENTRY_MAX (1 << 20)
void pc_user_free(struct pc_user *user);

// One run of coffer as the user: its ending and the first line it wrote on stderr.
struct pc_run {
    int status;        // the exit status; -1 when it did not exit normally (signal, deadline, no child)
    bool timed_out;    // killed at the deadline
    bool abandoned;    // and did not end after SIGKILL: left running (asleep in the kernel), init's child
    char message[200]; // the first line of its stderr, printable ASCII only
};

// The largest secret handed to coffer (PAM's own responses are at most 512 bytes).
#define PC_SECRET_MAX 4096

// Runs `coffer ARGUMENTS` as `user` with a clean environment, the secrets (NULL for none) on
// descriptors 3 and 4, stdin and stdout on /dev/null, bounded by options->timeout.
void pc_run_coffer(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user,
                   const char *const arguments[], const char *secret3, const char *secret4, struct pc_run *run);

// The login vault's steps. Each logs one line with its outcome.
void pc_open_login_vault(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user, const char *password);
void pc_start_agent(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user);
void pc_change_login_passphrase(pam_handle_t *ph, const struct pc_options *options, const struct pc_user *user,
                                const char *old_password, const char *new_password);

#pragma GCC visibility pop

#endif
