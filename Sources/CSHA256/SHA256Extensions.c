#include "CSHA256.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

int flowhost_sha256_has_sha_extensions(void) {
    unsigned int eax, ebx, ecx, edx;
    // Leaf 1: SSSE3 (ecx bit 9, for the byte shuffle) and SSE4.1 (ecx bit 19, for the blend).
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 9)) || !(ecx & (1u << 19))) return 0;
    // Leaf 7, subleaf 0: SHA (ebx bit 29).
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return (ebx >> 29) & 1;
}

__attribute__((target("sha,sse4.1,ssse3")))
void flowhost_sha256_compress_with_sha_extensions(
    uint32_t state[8], const void *blocks, size_t count, const uint32_t k[64]) {
    // The message words are big-endian: reverse the bytes of each 32-bit word.
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // sha256rnds2 keeps the state as (a, b, e, f) and (c, d, g, h), highest word first.
    __m128i cdab = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    __m128i efgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
    for (size_t block = 0; block < count; block++) {
        const uint8_t *data = (const uint8_t *)blocks + 64 * block;
        const __m128i abefBefore = abef, cdghBefore = cdgh;
        // w[i] holds message words 4i to 4i + 3; each group of 4 rounds needs the last four groups.
        __m128i w[16];
        for (int i = 0; i < 16; i++) {
            if (i < 4) {
                w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * i)), byteSwap);
            } else {
                // W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], four at a time: msg1 adds σ0 of the
                // following words to w[i-4], alignr brings W[t-7]..W[t-4], msg2 adds σ1 of the last two.
                __m128i partial = _mm_add_epi32(
                    _mm_sha256msg1_epu32(w[i - 4], w[i - 3]), _mm_alignr_epi8(w[i - 1], w[i - 2], 4));
                w[i] = _mm_sha256msg2_epu32(partial, w[i - 1]);
            }
            __m128i words = _mm_add_epi32(w[i], _mm_loadu_si128((const __m128i *)&k[4 * i]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, words);  // rounds 4i and 4i + 1
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(words, 0x0E));  // 4i + 2 and 4i + 3
        }
        abef = _mm_add_epi32(abef, abefBefore);
        cdgh = _mm_add_epi32(cdgh, cdghBefore);
    }
    // Back to (a, b, c, d) and (e, f, g, h).
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(dchg, feba, 8));
}

#else

int flowhost_sha256_has_sha_extensions(void) { return 0; }

void flowhost_sha256_compress_with_sha_extensions(
    uint32_t state[8], const void *blocks, size_t count, const uint32_t k[64]) {
    (void)state;
    (void)blocks;
    (void)count;
    (void)k;
    __builtin_trap();  // never called: there are no SHA extensions to use
}

#endif
