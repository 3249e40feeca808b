#include "soom_unicode_security.h"

#include <pthread.h>
#include <stdlib.h>
#include <unicode/unorm2.h>
#include <unicode/uspoof.h>

// Two checkers made once and then only read: ICU documents a configured USpoofChecker as safe
// for concurrent const use (uspoof_getSkeleton and uspoof_check2 take it const).
static USpoofChecker *skeletons = NULL;
static USpoofChecker *scripts = NULL;
static const UNormalizer2 *folding = NULL;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_checkers(void) {
    UErrorCode status = U_ZERO_ERROR;
    folding = unorm2_getNFKCCasefoldInstance(&status);
    if (U_FAILURE(status)) folding = NULL;

    status = U_ZERO_ERROR;
    skeletons = uspoof_open(&status);
    if (U_SUCCESS(status)) uspoof_setChecks(skeletons, USPOOF_CONFUSABLE, &status);
    if (U_FAILURE(status)) skeletons = NULL;

    status = U_ZERO_ERROR;
    scripts = uspoof_open(&status);
    if (U_SUCCESS(status)) uspoof_setRestrictionLevel(scripts, USPOOF_MODERATELY_RESTRICTIVE);
    if (U_SUCCESS(status)) uspoof_setChecks(scripts, USPOOF_RESTRICTION_LEVEL, &status);
    if (U_FAILURE(status)) scripts = NULL;
}

int32_t soom_unicode_key(const uint16_t *text, int32_t length, int skeleton, uint16_t *out, int32_t capacity) {
    pthread_once(&once, make_checkers);
    if (folding == NULL || (skeleton && skeletons == NULL) || length < 0 || capacity < 0) return -1;

    UErrorCode status = U_ZERO_ERROR;
    int32_t needed = unorm2_normalize(folding, (const UChar *)text, length, NULL, 0, &status);
    if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) return -1;
    UChar *folded = malloc(sizeof(UChar) * (size_t)(needed + 1));
    if (folded == NULL) return -1;
    status = U_ZERO_ERROR;
    int32_t foldedLength = unorm2_normalize(folding, (const UChar *)text, length, folded, needed + 1, &status);
    if (U_FAILURE(status)) {
        free(folded);
        return -1;
    }

    int32_t written;
    status = U_ZERO_ERROR;
    if (skeleton) {
        written = uspoof_getSkeleton(skeletons, 0, folded, foldedLength, (UChar *)out, capacity, &status);
    } else {
        written = foldedLength;
        if (foldedLength <= capacity) {
            for (int32_t i = 0; i < foldedLength; i++) out[i] = folded[i];
        } else {
            status = U_BUFFER_OVERFLOW_ERROR;
        }
    }
    free(folded);
    if (status == U_BUFFER_OVERFLOW_ERROR || status == U_STRING_NOT_TERMINATED_WARNING) return written;
    return U_FAILURE(status) ? -1 : written;
}

int soom_unicode_single_script(const uint16_t *text, int32_t length) {
    pthread_once(&once, make_checkers);
    if (scripts == NULL || length < 0) return -1;
    UErrorCode status = U_ZERO_ERROR;
    int32_t result = uspoof_check2(scripts, (const UChar *)text, length, NULL, &status);
    if (U_FAILURE(status)) return -1;
    return (result & USPOOF_RESTRICTION_LEVEL) ? 0 : 1;
}
