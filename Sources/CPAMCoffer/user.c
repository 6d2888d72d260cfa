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

bool pc_user_load(pam_handle_t *ph, struct pc_user *user) {
    *user = (struct pc_user){0};
    const char *name = NULL;
    if (pam_get_item(ph, PAM_USER, (const void **)&name) != PAM_SUCCESS || name == NULL || name[0] == '\0') {
        pam_syslog(ph, LOG_ERR, "no user name; nothing to unlock");
        return false;
    }
    struct passwd entry;
    struct passwd *found = NULL;
    long size = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t length = size > 0 ? (size_t)size : 16384;
    char *buffer = malloc(length);
    if (buffer == NULL || getpwnam_r(name, &entry, buffer, length, &found) != 0 || found == NULL) {
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
