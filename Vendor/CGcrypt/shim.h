#include <gcrypt.h>

// libgcrypt, which libsecret already depends on: the big-integer arithmetic of the Secret
// Service's Diffie-Hellman session (gcry_mpi_powm over secure memory) and AES-128-CBC.
// gcry_control is variadic, which Swift cannot call: these wrappers make the calls.

/// Initialises libgcrypt once per process, unless someone (libsecret) did: secure memory for
/// the session keys, and no warnings on stderr where memory cannot be locked.
static inline int coffer_gcrypt_initialize(void) {
    if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) return 1;
    if (gcry_check_version(GCRYPT_VERSION) == NULL) return 0;
    gcry_control(GCRYCTL_DISABLE_SECMEM_WARN);
    gcry_control(GCRYCTL_INIT_SECMEM, 65536, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return 1;
}
