#include <gcrypt.h>
#include <stdint.h>
#include <string.h>

/// libgcrypt's start-up, which must come before any other call: version check, no secure memory
/// (a household key is a file on disk anyway, and a Wi-Fi passphrase lives for one request; it
/// would lock pages), initialization finished. Once is enough: a second call finds it finished. gcry_control
/// is variadic, which Swift cannot call.
static inline int rv_gcrypt_start(void) {
    if (gcry_check_version(GCRYPT_VERSION) == NULL) return -1;
    if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) return 0;
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return 0;
}

/// The `name` element of `sexp` as exactly `size` bytes (an MPI's leading zeros restored, the
/// 0x40 prefix of a compressed point dropped); -1 when it is missing or longer.
static inline int rv_sexp_bytes(gcry_sexp_t sexp, const char *name, uint8_t *out, size_t size) {
    gcry_sexp_t token = gcry_sexp_find_token(sexp, name, 0);
    if (token == NULL) return -1;
    size_t length = 0;
    const char *data = gcry_sexp_nth_data(token, 1, &length);
    int status = -1;
    if (data != NULL) {
        if (length == size + 1 && (uint8_t)data[0] == 0x40) { data++; length--; }
        if (length <= size) {
            memset(out, 0, size - length);
            memcpy(out + (size - length), data, length);
            status = 0;
        }
    }
    gcry_sexp_release(token);
    return status;
}

/// A new Ed25519 key pair: the public key (32 bytes) and the secret (32 bytes). 0, or -1.
static inline int rv_ed25519_generate(uint8_t public_key[32], uint8_t secret[32]) {
    gcry_sexp_t parameters = NULL, pair = NULL;
    if (gcry_sexp_build(&parameters, NULL, "(genkey (ecc (curve Ed25519)(flags eddsa)))")) return -1;
    gcry_error_t error = gcry_pk_genkey(&pair, parameters);
    gcry_sexp_release(parameters);
    if (error) return -1;
    gcry_sexp_t private_part = gcry_sexp_find_token(pair, "private-key", 0);
    int status = private_part == NULL || rv_sexp_bytes(private_part, "q", public_key, 32) != 0
        || rv_sexp_bytes(private_part, "d", secret, 32) != 0 ? -1 : 0;
    gcry_sexp_release(private_part);
    gcry_sexp_release(pair);
    return status;
}

/// The Ed25519 signature (64 bytes: R then S) of `message` by the key pair. 0, or -1.
static inline int rv_ed25519_sign(const uint8_t public_key[32], const uint8_t secret[32], const uint8_t *message,
                                  size_t length, uint8_t signature[64]) {
    gcry_sexp_t key = NULL, data = NULL, result = NULL;
    if (gcry_sexp_build(&key, NULL, "(private-key (ecc (curve Ed25519)(flags eddsa)(q %b)(d %b)))", 32,
                        public_key, 32, secret)) return -1;
    if (gcry_sexp_build(&data, NULL, "(data (flags eddsa)(hash-algo sha512)(value %b))", (int)length,
                        message)) {
        gcry_sexp_release(key);
        return -1;
    }
    gcry_error_t error = gcry_pk_sign(&result, data, key);
    gcry_sexp_release(key);
    gcry_sexp_release(data);
    if (error) return -1;
    int status = rv_sexp_bytes(result, "r", signature, 32) != 0 || rv_sexp_bytes(result, "s", signature + 32, 32) != 0
        ? -1 : 0;
    gcry_sexp_release(result);
    return status;
}

/// Whether `signature` is the Ed25519 signature of `message` by `public_key`: 0 when it is.
static inline int rv_ed25519_verify(const uint8_t public_key[32], const uint8_t *message, size_t length,
                                    const uint8_t signature[64]) {
    gcry_sexp_t key = NULL, data = NULL, value = NULL;
    if (gcry_sexp_build(&key, NULL, "(public-key (ecc (curve Ed25519)(flags eddsa)(q %b)))", 32, public_key))
        return -1;
    if (gcry_sexp_build(&data, NULL, "(data (flags eddsa)(hash-algo sha512)(value %b))", (int)length, message)
        || gcry_sexp_build(&value, NULL, "(sig-val (eddsa (r %b)(s %b)))", 32, signature, 32, signature + 32)) {
        gcry_sexp_release(key);
        gcry_sexp_release(data);
        return -1;
    }
    gcry_error_t error = gcry_pk_verify(value, data, key);
    gcry_sexp_release(key);
    gcry_sexp_release(data);
    gcry_sexp_release(value);
    return error ? -1 : 0;
}

/// SHA-256 of `length` bytes into `digest` (32 bytes).
static inline void rv_sha256(const uint8_t *bytes, size_t length, uint8_t digest[32]) {
    gcry_md_hash_buffer(GCRY_MD_SHA256, digest, bytes, length);
}

/// The WPA key of a Wi-Fi passphrase for a network's name (IEEE 802.11i: PBKDF2 with HMAC-SHA1,
/// 4096 rounds, 32 bytes), so that only the key, in hex, reaches wpa_supplicant. 0, or -1.
static inline int rv_wpa_key(const uint8_t *passphrase, size_t length, const uint8_t *name, size_t name_length,
                             uint8_t key[32]) {
    if (rv_gcrypt_start() != 0) return -1;
    return gcry_kdf_derive(passphrase, length, GCRY_KDF_PBKDF2, GCRY_MD_SHA1, name, name_length, 4096, 32, key) ? -1 : 0;
}
