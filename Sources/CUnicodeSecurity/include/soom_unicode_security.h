// Unicode TR 39 (security mechanisms) from the system's ICU (libicu-dev): the confusable
// skeleton, NFKC case folding without default-ignorable code points, and the restriction-level
// check for mixed scripts. Only plain C types cross this header, so that Swift never sees ICU's
// own declarations (which would clash with Foundation's bundled copy of ICU).
#ifndef SOOM_UNICODE_SECURITY_H
#define SOOM_UNICODE_SECURITY_H

#include <stdint.h>

/// Writes NFKC_Casefold(text) — compatibility-normalised, case-folded, default-ignorable code
/// points (variation selectors, joiners, fillers such as U+3164) removed — to `out`, then, when
/// `skeleton` is non-zero, its TR 39 confusable skeleton. UTF-16 in and out. Returns the length
/// written, the length needed when it exceeds `capacity` (nothing usable written), or -1 when
/// ICU fails (malformed UTF-16, no data).
int32_t soom_unicode_key(const uint16_t *text, int32_t length, int skeleton, uint16_t *out, int32_t capacity);

/// 1 when `text` passes TR 39's "moderately restrictive" level (one script, or Latin with one
/// other recommended script that is not Cyrillic or Greek, such as Hangul or Han), 0 when it
/// mixes scripts beyond that, -1 when ICU fails.
int soom_unicode_single_script(const uint16_t *text, int32_t length);

#endif
