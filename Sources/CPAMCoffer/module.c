// pam_coffer's entry points: the login password is kept at auth, opens (or creates) the login
// vault in the user's agent when the session opens, and rewraps its passphrase slot when the
// password changes. It never takes part in PAM's decision: auth, setcred and chauthtok return
// PAM_IGNORE, and the session calls PAM_SUCCESS, whatever happened to the vault.
#include "internal.h"

#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#define PC_EXPORT __attribute__((visibility("default")))

PC_EXPORT int pam_sm_authenticate(pam_handle_t *ph, int flags, int argc, const char **argv) {
    (void)flags;
    struct pc_options options;
    pc_parse_options(ph, argc, argv, &options);
    if (!options.usable) return PAM_IGNORE;
    const char *password = NULL;
    if (pam_get_item(ph, PAM_AUTHTOK, (const void **)&password) != PAM_SUCCESS || password == NULL) {
        // Placed before the module that asks for the password, or a login without one (a key).
        if (options.debug) pam_syslog(ph, LOG_DEBUG, "no password to keep for the session");
        return PAM_IGNORE;
    }
    // Kept with whose password it is: the session may be another user's (sudo sets PAM_USER to
    // the target before the session opens), and that user's vault is not the caller's to open.
    uid_t uid;
    if (!pc_user_uid(ph, &uid)) {
        if (options.debug) pam_syslog(ph, LOG_DEBUG, "no such user; the password is not kept");
        return PAM_IGNORE;
    }
    pc_stash_password(ph, uid, password);
    return PAM_IGNORE;
}

PC_EXPORT int pam_sm_setcred(pam_handle_t *ph, int flags, int argc, const char **argv) {
    (void)ph, (void)flags, (void)argc, (void)argv;
    return PAM_IGNORE;
}

PC_EXPORT int pam_sm_open_session(pam_handle_t *ph, int flags, int argc, const char **argv) {
    (void)flags;
    struct pc_options options;
    pc_parse_options(ph, argc, argv, &options);
    uid_t owner = 0;
    const char *password = pc_stashed_password(ph, &owner);
    if (!options.usable || (password == NULL && !options.auto_start)) {
        if (options.debug && options.usable) pam_syslog(ph, LOG_DEBUG, "no password from auth; nothing to do");
        pc_drop_stashed_password(ph);
        return PAM_SUCCESS;
    }
    struct pc_user user;
    if (pc_user_load(ph, &user)) {
        if (password != NULL && owner != user.uid) {
            pam_syslog(ph, LOG_NOTICE, "the session is %s's, not the authenticated user's; the password is not used", user.name);
            password = NULL;
        }
        if (password != NULL) {
            pc_open_login_vault(ph, &options, &user, password);
        } else if (options.auto_start) {
            pc_start_agent(ph, &options, &user);
        }
        pc_user_free(&user);
    }
    pc_drop_stashed_password(ph);
    return PAM_SUCCESS;
}

PC_EXPORT int pam_sm_close_session(pam_handle_t *ph, int flags, int argc, const char **argv) {
    // The vault stays with the agent: another session of the user may still use it.
    (void)ph, (void)flags, (void)argc, (void)argv;
    return PAM_SUCCESS;
}

PC_EXPORT int pam_sm_chauthtok(pam_handle_t *ph, int flags, int argc, const char **argv) {
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_IGNORE;  // PAM_PRELIM_CHECK: nothing to check
    struct pc_options options;
    pc_parse_options(ph, argc, argv, &options);
    if (!options.usable) return PAM_IGNORE;
    const char *old_password = NULL, *new_password = NULL;
    if (pam_get_item(ph, PAM_AUTHTOK, (const void **)&new_password) != PAM_SUCCESS || new_password == NULL || new_password[0] == '\0') {
        pam_syslog(ph, LOG_NOTICE, "no new password (is pam_coffer after the module that asks for it?); the login vault keeps its passphrase");
        return PAM_IGNORE;
    }
    // A session opened after this (an expired password changed at login) opens the vault with the new one.
    uid_t uid;
    if (pc_user_uid(ph, &uid)) pc_stash_password(ph, uid, new_password);
    if (pam_get_item(ph, PAM_OLDAUTHTOK, (const void **)&old_password) != PAM_SUCCESS || old_password == NULL) {
        pam_syslog(ph, LOG_NOTICE, "no old password (set by root?); the login vault keeps its passphrase");
        return PAM_IGNORE;
    }
    struct pc_user user;
    if (pc_user_load(ph, &user)) {
        pc_change_login_passphrase(ph, &options, &user, old_password, new_password);
        pc_user_free(&user);
    }
    return PAM_IGNORE;
}
