// The module's arguments, from its line in /etc/pam.d (docs/login-unlock.md, "Module arguments").
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <security/pam_ext.h>

#define PC_DEFAULT_COFFER "/usr/local/bin/coffer"
#define PC_DEFAULT_TIMEOUT 30

// A duration as coffer reads it: digits, then optionally one of s, m, h, d. Checked here so that
// a typo is logged at once rather than made a coffer usage error at every login.
static bool is_duration(const char *text) {
    size_t length = strlen(text);
    if (length == 0 || length > 12) return false;
    size_t digits = length;
    if (strchr("smhd", text[length - 1]) != NULL) digits = length - 1;
    if (digits == 0) return false;
    for (size_t i = 0; i < digits; i++) {
        if (!isdigit((unsigned char)text[i])) return false;
    }
    return true;
}

static const char *value_of(const char *argument, const char *name) {
    size_t length = strlen(name);
    if (strncmp(argument, name, length) == 0 && argument[length] == '=') return argument + length + 1;
    return NULL;
}

void pc_parse_options(pam_handle_t *ph, int argc, const char **argv, struct pc_options *options) {
    *options = (struct pc_options){.coffer = PC_DEFAULT_COFFER, .timeout = PC_DEFAULT_TIMEOUT, .usable = true};
    for (int i = 0; i < argc; i++) {
        const char *argument = argv[i];
        const char *value;
        if (strcmp(argument, "auto_start") == 0) {
            options->auto_start = true;
        } else if (strcmp(argument, "debug") == 0) {
            options->debug = true;
        } else if ((value = value_of(argument, "coffer")) != NULL) {
            if (value[0] != '/') {
                pam_syslog(ph, LOG_ERR, "coffer=%s is not an absolute path; the module does nothing", value);
                options->usable = false;
            }
            options->coffer = value;
        } else if ((value = value_of(argument, "unlock_for")) != NULL) {
            if (!is_duration(value)) {
                pam_syslog(ph, LOG_ERR, "unlock_for=%s is not a duration (such as 8h); the module does nothing", value);
                options->usable = false;
            }
            options->unlock_for = value;
        } else if ((value = value_of(argument, "idle_timeout")) != NULL) {
            if (!is_duration(value)) {
                pam_syslog(ph, LOG_ERR, "idle_timeout=%s is not a duration (such as 8h); the module does nothing", value);
                options->usable = false;
            }
            options->idle_timeout = value;
        } else if ((value = value_of(argument, "timeout")) != NULL) {
            char *end = NULL;
            long seconds = strtol(value, &end, 10);
            if (end == value || *end != '\0' || seconds < 1 || seconds > 300) {
                pam_syslog(ph, LOG_ERR, "timeout=%s is not a number of seconds from 1 to 300; the module does nothing", value);
                options->usable = false;
            } else {
                options->timeout = (unsigned)seconds;
            }
        } else {
            pam_syslog(ph, LOG_WARNING, "unknown argument %s, ignored", argument);
        }
    }
}
