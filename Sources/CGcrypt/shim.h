#include <gcrypt.h>

/// libgcrypt's start-up, which must come before any other call: version check, no secure memory
/// (nothing secret is hashed, and it would lock pages), initialization finished. gcry_control is
/// variadic, which Swift cannot call.
static inline int rv_gcrypt_start(void) {
    if (gcry_check_version(GCRYPT_VERSION) == NULL) return -1;
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return 0;
}
