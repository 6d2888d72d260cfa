// The PAM user the module acts for, looked up before any child is forked (the child only makes
// system calls: no lookups, no allocation, after fork in a process that may have threads).
#include "internal.h"

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <security/pam_ext.h>

// The user database's entry for `name` into `entry`, with its strings in `*buffer` (the
// caller frees it): false when there is none. A buffer too small for the entry (a long gecos
// or home, from LDAP or sssd) is grown and the lookup tried again.
static bool lookup(const char *name, struct passwd *entry, char **buffer) {
    long hint = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t length = hint > 0 ? (size_t)hint : 16384;
    *buffer = NULL;
    for (;;) {
        char *grown = realloc(*buffer, length);
        if (grown == NULL) return false;
        *buffer = grown;
        struct passwd *found = NULL;
        int error = getpwnam_r(name, entry, *buffer, length, &found);
        if (error == 0) return found != NULL;
        if (error != ERANGE || length >= PC_PASSWD_ENTRY_MAX) return false;
        length *= 2;
    }
}

// The PAM user's name, or NULL (logged) when PAM has none.
static const char *pam_user_name(pam_handle_t *ph) {
    const char *name = NULL;
    if (pam_get_item(ph, PAM_USER, (const void **)&name) != PAM_SUCCESS || name == NULL || name[0] == '\0') {
        pam_syslog(ph, LOG_ERR, "no user name; nothing to unlock");
        return NULL;
    }
    return name;
}

bool pc_user_uid(pam_handle_t *ph, uid_t *uid) {
    const char *name = pam_user_name(ph);
    if (name == NULL) return false;
    struct passwd entry;
    char *buffer = NULL;
    bool found = lookup(name, &entry, &buffer);
    if (found) *uid = entry.pw_uid;
    free(buffer);
    return found;
}

bool pc_user_load(pam_handle_t *ph, struct pc_user *user) {
    *user = (struct pc_user){0};
    const char *name = pam_user_name(ph);
    if (name == NULL) return false;
    struct passwd entry;
    struct passwd *found = &entry;
    char *buffer = NULL;
    if (!lookup(name, &entry, &buffer)) {
        pam_syslog(ph, LOG_ERR, "no user %s in the user database; nothing to unlock", name);
        free(buffer);
        return false;
    }
    // As root the children change to the user; otherwise (a screen locker) the process must
    // already be the user.
    if (geteuid() != 0 && (geteuid() != found->pw_uid || getuid() != found->pw_uid)) {
        pam_syslog(ph, LOG_ERR, "runs as uid %u, neither root nor %s; nothing to unlock", (unsigned)geteuid(), name);
        free(buffer);
        return false;
    }
    if (found->pw_dir == NULL || found->pw_dir[0] != '/') {
        pam_syslog(ph, LOG_ERR, "%s has no absolute home folder; nothing to unlock", name);
        free(buffer);
        return false;
    }
    user->name = strdup(found->pw_name);
    user->home = strdup(found->pw_dir);
    user->uid = found->pw_uid;
    user->gid = found->pw_gid;
    free(buffer);
    if (user->name == NULL || user->home == NULL) {
        pam_syslog(ph, LOG_ERR, "out of memory");
        pc_user_free(user);
        return false;
    }
    if (geteuid() == 0) {
        int count = 64;
        for (int tries = 0; tries < 8; tries++) {
            gid_t *groups = malloc(sizeof(gid_t) * (size_t)count);
            if (groups == NULL) break;
            int wanted = count;
            if (getgrouplist(user->name, user->gid, groups, &wanted) >= 0) {
                user->groups = groups;
                user->group_count = wanted;
                break;
            }
            free(groups);
            if (wanted <= count) break;
            count = wanted;
        }
        if (user->groups == NULL) {
            pam_syslog(ph, LOG_ERR, "cannot list the groups of %s; nothing to unlock", user->name);
            pc_user_free(user);
            return false;
        }
    }
    return true;
}

void pc_user_free(struct pc_user *user) {
    free(user->name);
    free(user->home);
    free(user->groups);
    *user = (struct pc_user){0};
}
