// pam_coffer: the PAM module that unlocks the user's login vault at login (docs/login-unlock.md).
// These are the only symbols the module exports; Linux-PAM finds them by name.
#ifndef PAM_COFFER_H
#define PAM_COFFER_H

#include <security/pam_modules.h>

#endif
