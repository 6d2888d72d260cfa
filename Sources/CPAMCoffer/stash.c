// The login password between auth and the session: kept with pam_set_data, and zeroed
// whenever PAM lets it go (replaced, removed, or at pam_end).
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#define PC_STASH "pam_coffer_authtok"

void pc_zero(void *bytes, size_t length) {
    explicit_bzero(bytes, length);
}

// The password and whose it is. The password has a block of its own, which is zeroed before
// it is freed.
struct stash {
    uid_t uid;
    char *password;
};

static void cleanup(pam_handle_t *ph, void *data, int error_status) {
    (void)ph;
    (void)error_status;
    if (data == NULL) return;
    struct stash *stash = data;
    pc_zero(stash->password, strlen(stash->password));
    free(stash->password);
    free(stash);
}

void pc_stash_password(pam_handle_t *ph, uid_t uid, const char *password) {
    size_t length = strnlen(password, PC_SECRET_MAX + 1);
    if (length > PC_SECRET_MAX) {
        pam_syslog(ph, LOG_WARNING, "the password is longer than %d bytes; it is not kept for the session", PC_SECRET_MAX);
        return;
    }
    struct stash *stash = malloc(sizeof *stash);
    char *copy = malloc(length + 1);
    if (stash == NULL || copy == NULL) {
        free(stash);
        free(copy);
        pam_syslog(ph, LOG_ERR, "out of memory; the password is not kept for the session");
        return;
    }
    memcpy(copy, password, length + 1);
    *stash = (struct stash){.uid = uid, .password = copy};
    if (pam_set_data(ph, PC_STASH, stash, cleanup) != PAM_SUCCESS) {
        cleanup(ph, stash, 0);
        pam_syslog(ph, LOG_ERR, "cannot keep the password for the session");
    }
}

const char *pc_stashed_password(pam_handle_t *ph, uid_t *uid) {
    const void *data = NULL;
    if (pam_get_data(ph, PC_STASH, &data) != PAM_SUCCESS || data == NULL) return NULL;
    const struct stash *stash = data;
    *uid = stash->uid;
    return stash->password;
}

void pc_drop_stashed_password(pam_handle_t *ph) {
    // Replacing the data runs the cleanup on the old password: it is zeroed and freed.
    uid_t uid;
    if (pc_stashed_password(ph, &uid) != NULL) (void)pam_set_data(ph, PC_STASH, NULL, NULL);
}
