#ifndef BYTESCAN_H
#define BYTESCAN_H

#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// One bit for each of the 64 bytes at `bytes` that equals `byte`: bit i for byte i.
///
/// LiveResults' filter compares a million bytes of a plane at each key (`BytePlanes`); with
/// SSE2 (every x86-64 processor) this is four compares and four byte masks, about a third of
/// the time of the best Swift could do (eight bytes at a time in a 64-bit word). Inline, so
/// that Swift's optimizer places it in the loop that calls it.
static inline uint64_t bytescan_equal_bits(const void *bytes, uint8_t byte) {
#if defined(__SSE2__)
    const __m128i pattern = _mm_set1_epi8((char)byte);
    uint64_t bits = 0;
    for (int part = 0; part < 4; part++) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)((const uint8_t *)bytes + 16 * part));
        bits |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(chunk, pattern)) << (16 * part);
    }
    return bits;
#else
    // Other processors: a loop the compiler vectorizes.
    uint64_t bits = 0;
    for (int i = 0; i < 64; i++) bits |= (uint64_t)(((const uint8_t *)bytes)[i] == byte) << i;
    return bits;
#endif
}

#endif
