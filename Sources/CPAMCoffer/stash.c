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

static void cleanup(pam_handle_t *ph, void *data, int error_status) {
    (void)ph;
    (void)error_status;
    if (data == NULL) return;
    pc_zero(data, strlen(data));
    free(data);
}

void pc_stash_password(pam_handle_t *ph, const char *password) {
    size_t length = strnlen(password, PC_SECRET_MAX + 1);
    if (length > PC_SECRET_MAX) {
        pam_syslog(ph, LOG_WARNING, "the password is longer than %d bytes; it is not kept for the session", PC_SECRET_MAX);
        return;
    }
    char *copy = malloc(length + 1);
    if (copy == NULL) {
        pam_syslog(ph, LOG_ERR, "out of memory; the password is not kept for the session");
        return;
    }
    memcpy(copy, password, length + 1);
    if (pam_set_data(ph, PC_STASH, copy, cleanup) != PAM_SUCCESS) {
        cleanup(ph, copy, 0);
        pam_syslog(ph, LOG_ERR, "cannot keep the password for the session");
    }
}

const char *pc_stashed_password(pam_handle_t *ph) {
    const void *data = NULL;
    if (pam_get_data(ph, PC_STASH, &data) != PAM_SUCCESS) return NULL;
    return data;
}

void pc_drop_stashed_password(pam_handle_t *ph) {
    // Replacing the data runs the cleanup on the old password: it is zeroed and freed.
    if (pc_stashed_password(ph) != NULL) (void)pam_set_data(ph, PC_STASH, NULL, NULL);
}
