#ifndef SOOM_COPENSSL_SHIM_H
#define SOOM_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/core_names.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>

/* EVP_PKEY_PUBLIC_KEY is a compound macro that Swift cannot import. */
static inline int soom_evp_pkey_public_key_selection(void) {
    return EVP_PKEY_PUBLIC_KEY;
}
#endif
