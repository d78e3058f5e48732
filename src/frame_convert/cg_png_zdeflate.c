/*
 * The project's own deflate encoder (RFC 1951 in a zlib stream, RFC 1950),
 * made for filtered PNG rows of 3-byte pixels and nothing else.
 *
 * Pass 1 turns the rows into tokens one whole pixel at a time: a match
 * starts at a pixel and covers whole pixels (at least two). Candidates, the
 * cheapest first: the pixel to the left (distance 3: runs), the pixel above
 * (distance of one filtered row), then, by level, earlier places of the
 * same two pixels from a table of 8-entry rows of 32 bytes. An entry
 * keeps a position, an 8-bit tag of the two pixels' hash and an 8-bit hash
 * of the third pixel: one compare of a row's tags and third-pixel hashes
 * (one SSE2 instruction) picks, without reading the input, the entries that
 * may give three pixels or more; those are read newest first, up to the
 * level's depth, each only when it agrees with the input where the best so
 * far ends; failing those, the newest entry with the tag gives two pixels.
 * The longest wins (ties: the one found first, the nearer). Some pixels a
 * match covers join the table too: its first four and its last, except
 * inside runs (they would fill rows with one key) and copies of the row
 * above (the pixels copied are in the table already). On these frames that
 * finds more than looking one pixel on for a longer match (lazy matching)
 * and costs less, and the pixels past the fourth add little. The filter
 * byte starting each row is a literal. Level 1 has a table of its own
 * (pairs: the newest place of each hash of two pixels and of three, one
 * 16-bit position each), which it reads and fills
 * only at the pixel after a match that follows another match closely
 * (probe_at), and only while such probes pay (probe_on): on flat frames
 * (sand, sky, fog: runs of zero residuals between small steps) that pixel
 * starts the pattern of steps and runs that recurs at other distances,
 * which the left and upper pixels alone cut into short matches (1.8-2.0x
 * libpng's size on bench/corpus/desert_*, 1.3-1.5x with it). On rows that
 * follow a flat row (few tokens for its pixels), level 1 searches its table
 * at every pixel, while that finds matches and cuts the row's literals (a
 * gate: tokenize_fast). Elsewhere level 1
 * takes matches of five pixels or more (MIN_MATCH_FAST) and, on CPUs with
 * AVX2 and BMI2 (the second path below), finds with 32-byte compares, 17
 * pixels at a time (6 near the row's end), the first pixel that starts five
 * pixels equal to the left or above; those before it are literals at once.
 * Symbol counts are kept as tokens are made (one literal table per byte of
 * the pixel, summed per block, so repeated residuals do not chain
 * increments of one counter).
 *
 * Level 1 on the AVX2 + BMI2 path keeps its literals as runs of bytes, not
 * one token a pixel, counts the literals of one row in LIT_SAMPLE (every
 * byte keeps a code), and codes the runs 32 bytes a step: the block's code
 * is shaped so that a byte's code and length come from 16-entry tables
 * (nibble_lengths, put32), joined in 64-bit lanes, four or eight writes a
 * step. Its block is written and then replaced by stored blocks where it
 * came out larger (the counts being a sample). On the corpus: 0.7x the time
 * of the deflate stream on textured frames, 3-4% more bytes.
 *
 * Pass 2, per block of tokens (whole rows, up to block_tokens): Huffman code
 * lengths limited to 15 bits from the counts, the block's exact size in bits,
 * and either a dynamic-Huffman block or, when that would not be smaller,
 * stored blocks of the same bytes, so the stream never grows beyond the
 * stored size (cg_zd_bound), and every write is checked against the room
 * left. A pixel's three literal codes or a match's length and distance go
 * out as one write into a 64-bit bit buffer, flushed with an 8-byte store.
 */
#include <stdlib.h>
#include <string.h>

#include "cg_png_internal.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum {
    BPP = 3,
    MAX_MATCH = 258, /* a multiple of 3: a longest match is 86 whole pixels */
    MAX_DIST = 32768,
    LITLEN_SYMS = 286,
    DIST_SYMS = 30,
    CL_SYMS = 19,
    MAX_BITS = 15,
    CL_MAX_BITS = 7,
    /* Tokens of a block at most: 16K (levels 2, 3), where smaller blocks
     * follow the frame's regions; 32K at level 1, whose many literals
     * make a block's header the larger cost. */
    BLOCK_TOKENS = 1 << 14,
    BLOCK_TOKENS_FAST = 1 << 15,
    STORED_MAX = 65535,
};

/* ---- Adler-32 (RFC 1950 section 9) ---------------------------------------- */

enum { ADLER_MOD = 65521, ADLER_NMAX = 5552 };

uint32_t cg_adler32_scalar(uint32_t adler, const uint8_t *p, size_t n)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (n > 0) {
        size_t k = n < ADLER_NMAX ? n : ADLER_NMAX; /* b stays below 2^32 */
        n -= k;
        while (k-- > 0) {
            a += *p++;
            b += a;
        }
        a %= ADLER_MOD;
        b %= ADLER_MOD;
    }
    return b << 16 | a;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2")))

/* 32 bytes a step. Over a span of K steps of bytes x, with the sums
 * carried in: a += sum(x); b += 32*K*a_in + 32 * sum over steps of the
 * byte sums of the steps before + sum over steps of (32 - j) * x[j]. */
static AVX2 uint32_t adler32_avx2(uint32_t adler, const uint8_t *p, size_t n)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    const __m256i weights = _mm256_setr_epi8(32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
                                             19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                             5, 4, 3, 2, 1);
    const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    while (n >= 32) {
        size_t k = n / 32 < ADLER_NMAX / 32 ? n / 32 : ADLER_NMAX / 32;
        n -= k * 32;
        __m256i s1 = zero, prev = zero, w = zero;
        b += (uint32_t)(k * 32 % ADLER_MOD) * a % ADLER_MOD;
        for (size_t i = 0; i < k; i++, p += 32) {
            __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)p);
            prev = _mm256_add_epi64(prev, s1);
            s1 = _mm256_add_epi64(s1, _mm256_sad_epu8(x, zero));
            w = _mm256_add_epi32(w, _mm256_madd_epi16(_mm256_maddubs_epi16(x, weights), ones));
        }
        uint64_t l1[4], l2[4];
        uint32_t l3[8];
        _mm256_storeu_si256((__m256i *)(void *)l1, s1);
        _mm256_storeu_si256((__m256i *)(void *)l2, prev);
        _mm256_storeu_si256((__m256i *)(void *)l3, w);
        uint64_t sa = l1[0] + l1[1] + l1[2] + l1[3];
        uint64_t sb = 32 * (l2[0] + l2[1] + l2[2] + l2[3]);
        for (int i = 0; i < 8; i++) sb += l3[i];
        a = (uint32_t)((a + sa) % ADLER_MOD);
        b = (uint32_t)((b + sb) % ADLER_MOD);
    }
    return cg_adler32_scalar(b << 16 | a, p, n);
}

uint32_t cg_adler32(uint32_t adler, const uint8_t *p, size_t n)
{
    /* cg_simd_available reads CPUID once (an atomic cache) */
    return cg_simd_available(CG_SIMD_AVX2) ? adler32_avx2(adler, p, n)
                                           : cg_adler32_scalar(adler, p, n);
}
#else
uint32_t cg_adler32(uint32_t adler, const uint8_t *p, size_t n)
{
    return cg_adler32_scalar(adler, p, n);
}
#endif

/* ---- Huffman code lengths -------------------------------------------------- */

/* a[0, m) ascending. Up to 32 keys (the distance and code-length codes'):
 * insertion. More: a stable pass per byte, the lowest first; a pass whose
 * byte is the same in every key is skipped. tmp: room for m keys. */
static void sort_u32(uint32_t *a, int m, uint32_t *tmp)
{
    if (m <= 32) {
        for (int i = 1; i < m; i++) {
            const uint32_t v = a[i];
            int j = i;
            for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
            a[j] = v;
        }
        return;
    }
    uint32_t cnt[4][256];
    memset(cnt, 0, sizeof cnt);
    for (int i = 0; i < m; i++)
        for (int d = 0; d < 4; d++) cnt[d][(a[i] >> (8 * d)) & 0xff]++;
    uint32_t *src = a, *dst = tmp;
    for (int d = 0; d < 4; d++) {
        uint32_t *c = cnt[d];
        if (c[(src[0] >> (8 * d)) & 0xff] == (uint32_t)m) continue;
        uint32_t sum = 0;
        for (int b = 0; b < 256; b++) {
            const uint32_t k = c[b];
            c[b] = sum;
            sum += k;
        }
        for (int i = 0; i < m; i++) dst[c[(src[i] >> (8 * d)) & 0xff]++] = src[i];
        uint32_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)m * sizeof *a);
}

void cg_zd_huff_lengths(const uint32_t *freq, int n, int max_bits, uint8_t *len)
{
    /* Used symbols sorted by count (count in the high bits, symbol low). */
    uint32_t key[LITLEN_SYMS];
    int m = 0;
    memset(len, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (freq[s] > 0) key[m++] = (freq[s] > 0x7fffff ? 0x7fffffu : freq[s]) << 9 | (uint32_t)s;
    if (m < 2) { /* a complete code needs two codes: add an unused one */
        int s = m == 1 ? (int)(key[0] & 511) : 0;
        len[s] = 1;
        len[s == 0 ? 1 : 0] = 1;
        return;
    }
    uint32_t tmp[LITLEN_SYMS];
    sort_u32(key, m, tmp);

    /* Huffman's tree with two queues: leaves 0..m-1 ascending, internal
     * nodes m..2m-2 made in ascending weight order. */
    uint64_t weight[2 * LITLEN_SYMS];
    int parent[2 * LITLEN_SYMS], depth[2 * LITLEN_SYMS];
    for (int i = 0; i < m; i++) weight[i] = key[i] >> 9;
    int leaf = 0, inner = m;
    for (int k = m; k < 2 * m - 1; k++) {
        weight[k] = 0;
        for (int t = 0; t < 2; t++) {
            int pick = leaf < m && (inner >= k || weight[leaf] <= weight[inner]) ? leaf++ : inner++;
            parent[pick] = k;
            weight[k] += weight[pick];
        }
    }
    depth[2 * m - 2] = 0;
    for (int k = 2 * m - 3; k >= 0; k--) depth[k] = depth[parent[k]] + 1;

    /* Count per length, longer ones moved to max_bits, then lengths taken
     * from the shortest codes one at a time until Kraft's sum is exact. */
    int count[32] = {0};
    for (int i = 0; i < m; i++) count[depth[i] > max_bits ? max_bits : depth[i]]++;
    uint32_t total = 0;
    for (int b = 1; b <= max_bits; b++) total += (uint32_t)count[b] << (max_bits - b);
    while (total > (1u << max_bits)) {
        count[max_bits]--;
        for (int b = max_bits - 1; b > 0; b--)
            if (count[b] > 0) {
                count[b]--;
                count[b + 1] += 2;
                break;
            }
        total--;
    }
    /* The rarest symbols get the longest codes. */
    int i = 0;
    for (int b = max_bits; b > 0; b--)
        for (int c = 0; c < count[b]; c++) len[key[i++] & 511] = (uint8_t)b;
}

/* Canonical codes (RFC 1951 3.2.2), bit-reversed for LSB-first output. */
static void huff_codes(const uint8_t *len, int n, uint16_t *code)
{
    int count[MAX_BITS + 1] = {0};
    uint32_t next[MAX_BITS + 2];
    for (int s = 0; s < n; s++) count[len[s]]++;
    count[0] = 0;
    uint32_t c = 0;
    for (int b = 1; b <= MAX_BITS; b++) {
        c = (c + (uint32_t)count[b - 1]) << 1;
        next[b] = c;
    }
    for (int s = 0; s < n; s++) {
        int l = len[s];
        if (l == 0) continue;
        uint32_t v = next[l]++; /* reversed: swap bits, pairs, nibbles, bytes */
        v = (v >> 1 & 0x5555) | (v & 0x5555) << 1;
        v = (v >> 2 & 0x3333) | (v & 0x3333) << 2;
        v = (v >> 4 & 0x0f0f) | (v & 0x0f0f) << 4;
        v = (v >> 8 & 0x00ff) | (v & 0x00ff) << 8;
        code[s] = (uint16_t)(v >> (16 - l));
    }
}

/* ---- length and distance symbols ----------------------------------------- */

/* Length 3..258: symbol 257..285, extra bits. */
typedef struct len_info {
    uint16_t sym;
    uint8_t extra_bits;
    uint8_t extra;
} len_info;

static len_info length_info(unsigned l)
{
    static const uint16_t base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t ebits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    int s = 28;
    while (base[s] > l) s--;
    len_info r = {(uint16_t)(257 + s), ebits[s], (uint8_t)(l - base[s])};
    return r;
}

/* Distance 1..32768: code 0..29; extra bits = code / 2 - 1 from code 4. */
static inline unsigned dist_code(unsigned d)
{
    unsigned v = d - 1;
    if (v < 4) return v;
    unsigned top = 31u - (unsigned)__builtin_clz(v);
    return 2 * top + ((v >> (top - 1)) & 1);
}

/* ---- bit writer ------------------------------------------------------------ */

typedef struct bitw {
    uint64_t bits;
    unsigned n;
    uint8_t *p;
} bitw;

static inline void store64(uint8_t *p, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
}

/* Append the n low bits of v (n <= 56; v has no bits above them). Whole
 * bytes go out at once with one 8-byte store, so at most 7 bits stay
 * pending and nothing branches. */
static inline void put(bitw *w, uint64_t v, unsigned n)
{
    w->bits |= v << w->n;
    w->n += n;
    store64(w->p, w->bits);
    w->p += w->n >> 3;
    w->bits >>= w->n & ~7u; /* n <= 63 */
    w->n &= 7;
}

/* Out to a byte boundary (zero bits), all bytes written. */
static inline void align(bitw *w)
{
    put(w, 0, (8 - (w->n & 7)) & 7);
}

/* ---- pass 1: tokens --------------------------------------------------------- */

/* A token: a pixel's 3 literal bytes (b0 | b1 << 8 | b2 << 16), a single
 * literal byte (TOK_BYTE | b: the filter type), or a match
 * (TOK_MATCH | distance code << 25 | length << 16 | distance). */
enum { TOK_BYTE = 1u << 30, TOK_MATCH = 1u << 31 };

/* Level 1 on the AVX2 + BMI2 path keeps its literals as runs: TOK_RUN |
 * the run's length in bytes (the filter byte and the literal pixels after
 * it, up to RUN_MAX), the bytes themselves read from the input by pass 2,
 * 32 at a time (put_run). */
enum { TOK_RUN = TOK_BYTE | 1u << 29, RUN_MAX = (1u << 28) - 1 };

typedef struct tokens {
    len_info len_tab[MAX_MATCH + 1];
    uint32_t *t;
    size_t n;
    /* one literal count per byte of the pixel: no chain of increments of
     * one counter through memory when neighbours repeat */
    uint32_t lit[3][256];
    uint32_t len[LITLEN_SYMS];
    uint32_t dist[DIST_SYMS];
    /* level 1's probe_at: on while its credit lasts (see probe_on) */
    int probe_credit;
    unsigned probe_skipped;
    /* level 1 on flat rows (tokenize_fast): whether the next row searches
     * its table at every pixel; rows to go before a row may again; the
     * bytes the table's matches covered in the row */
    int flat;
    int flat_rest;
    size_t table_bytes;
    /* small rows (tokenize_fast): literal-heavy unsearched rows since the
     * last searched one, whether the row searching now is a trial, and the
     * literal bytes and tokens of the last unsearched row */
    int plain_rows;
    int trial;
    size_t plain_lit, plain_tokens;
    /* the gate on the flat-row search (tokenize_fast): rows it stays shut,
     * how long its next rest is, its credit, searched rows in a row */
    int gate_rest;
    int gate_rest_len;
    int gate_credit;
    int searched;
    /* with runs (run_lit): how many more tokens the run's pixels would have
     * been one by one; rows and blocks are judged by that count */
    size_t run_extra;
    /* with runs: whether this row's literals are counted (one row in
     * LIT_SAMPLE), and the block's rows and counted rows */
    int count;
    unsigned rows, counted;
    size_t lit_bytes;
} tokens;

/* n (at most 8) bytes at p, the first lowest, whatever the byte order. */
static inline uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t load32(const uint8_t *p)
{
    return (uint32_t)load_le(p, 4);
}

/* Bytes equal at a and b, up to max at most. Reads up to 7 bytes past
 * max: the caller's slack (CG_ZD_SLACK). */
static inline size_t equal_len(const uint8_t *a, const uint8_t *b, size_t max)
{
    size_t i = 0;
    for (; i < max; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            i += (size_t)__builtin_ctzll(x ^ y) >> 3;
#else
            while (a[i] == b[i]) i++;
#endif
            break;
        }
    }
    return i > max ? max : i;
}

/* Whole pixels equal at a and b, up to max bytes (a multiple of 3). */
static inline size_t match_len(const uint8_t *a, const uint8_t *b, size_t max)
{
    return equal_len(a, b, max) / BPP * BPP;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* match_len, 32 bytes a compare while 32 more are within max (no read
 * past it there), then 8 at a time. */
static inline __attribute__((target("avx2,bmi"))) size_t match_len32(const uint8_t *a,
                                                                    const uint8_t *b, size_t max)
{
    size_t i = 0;
    for (; i + 32 <= max; i += 32) {
        const __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(a + i));
        const __m256i y = _mm256_loadu_si256((const __m256i *)(const void *)(b + i));
        const unsigned ne = ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, y));
        if (ne != 0) return (i + (size_t)__builtin_ctz(ne)) / BPP * BPP;
    }
    return (i + equal_len(a + i, b + i, max - i)) / BPP * BPP;
}
#define MATCH_LEN(simd, a, b, max) ((simd) ? match_len32(a, b, max) : match_len(a, b, max))
#else
#define MATCH_LEN(simd, a, b, max) ((void)(simd), match_len(a, b, max))
#endif

/* Matches are at least MIN_MATCH long (2 pixels: one pixel as a match
 * costs more bits than as literals). The table's key is the pixel and the
 * next one (6 bytes): a one-pixel key finds the last place of common
 * residuals such as 0 0 0, rarely a long match. */
enum { MIN_MATCH = 6, ROW_BITS = 11, ROWS = 1 << ROW_BITS, WAYS = 8 };

/* Level 1 outside its flat rows takes matches of five pixels or more to
 * the left or above: the shorter ones cost more time (a branch and a token
 * each, and a literal run cut in two) than the bytes they save. On the
 * corpus, four against three: 0.82-0.93x the time on the textured frames
 * (night, shore, fog 1920x1080, river, treetops, forest), 0.98-1.0x on the
 * others, the bytes within 0.5% either way; five against four, with the
 * checks of 17 and 18 pixels: 0.86-0.94x the time on fog and forest
 * 1920x1080, night, river, shore, at 0-0.6% more bytes (with checks of 6
 * and 7 pixels it was 6% slower on some frames). */
enum { MIN_MATCH_FAST = 5 * BPP };

/* What a level does: how many of a table row's entries that may give three
 * pixels it reads (0: no table, the left and upper pixels only). Chosen
 * from bench_core's sweep on the corpus (README.md). */
static const int level_depth[CG_PNG_OWN_LEVEL_MAX + 1] = {0, 0, 1, 3};

/* The table: per row, WAYS entries, newest first; a new one moves the
 * others one place older and drops the oldest. An entry: a position, the
 * tag of its two pixels' hash (which picks the row) and an 8-bit hash of
 * its third pixel, so that the entries that can give more than two pixels
 * are found without reading the input. A row is 32 bytes, one load for the
 * tags and third-pixel hashes together, and two rows share a cache line.
 * A position is kept as its low 16 bits: p - (uint16_t)(p - pos) is
 * it while it is within 64K of p, and an older one read that way is a
 * place of equal bytes all the same once compared (or out of the window). */
typedef struct trow {
    uint64_t tag;   /* entry i in byte i, the newest in byte 0 */
    uint64_t third; /* the same for the third pixel's 8-bit hash */
    uint16_t pos[WAYS];
} trow;

typedef struct rows {
    trow r[ROWS];
} rows;

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
#else
#define ALWAYS_INLINE inline
#define NOINLINE
#endif

static inline uint64_t load64(const uint8_t *p)
{
    return load_le(p, 8);
}

/* A place's key: its row and tag (the hash of its two pixels) and the
 * hash of its third pixel. Reads 10 bytes at x. */
typedef struct key {
    uint32_t row;
    uint8_t tag;
    uint8_t third;
} key;

static inline key key_at(const uint8_t *x)
{
    const uint64_t h = (load64(x) << 16) * 0x9E3779B97F4A7C15ull;
    const key k = {(uint32_t)(h >> (64 - ROW_BITS)), (uint8_t)(h >> (64 - ROW_BITS - 8)),
                   (uint8_t)(((load32(x + 6) & 0xffffff) * 0x9E3779B1u) >> 24)};
    return k;
}

/* Which of a row's entries carry tag (bits 0-7, bit i for entry i) and
 * which have third (bits 8-15). */
#if defined(__SSE2__)
static inline unsigned row_hits(const trow *r, key k)
{
    const __m128i v = _mm_load_si128((const __m128i *)(const void *)r);
    const __m128i want =
        _mm_unpacklo_epi64(_mm_set1_epi8((char)k.tag), _mm_set1_epi8((char)k.third));
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, want));
}
#else
/* Bit i set where byte i of v is zero (8 bytes). Exact: no carries
 * between bytes. */
static inline unsigned zero_bytes(uint64_t v)
{
    const uint64_t lo7 = 0x7f7f7f7f7f7f7f7full;
    const uint64_t z = ~(((v & lo7) + lo7) | v | lo7); /* 0x80 where zero */
    return (unsigned)(((z >> 7) * 0x0102040810204080ull) >> 56);
}

static inline unsigned row_hits(const trow *r, key k)
{
    const uint64_t ones = 0x0101010101010101ull;
    return zero_bytes(r->tag ^ ones * k.tag) | zero_bytes(r->third ^ ones * k.third) << 8;
}
#endif

/* Put position p (key k) in the table as its row's newest entry (entry 0),
 * the others one older, the oldest gone. */
static inline void insert(rows *t, key k, size_t p)
{
    trow *const r = &t->r[k.row];
    r->tag = r->tag << 8 | k.tag;
    r->third = r->third << 8 | k.third;
#if defined(__SSE2__)
    __m128i *const ps = (__m128i *)(void *)r->pos;
    _mm_store_si128(ps, _mm_insert_epi16(_mm_slli_si128(_mm_load_si128(ps), 2), (uint16_t)p, 0));
#else
    memmove(r->pos + 1, r->pos, (WAYS - 1) * sizeof r->pos[0]);
    r->pos[0] = (uint16_t)p;
#endif
}

/* Level 1's table: the newest place of each hash of two pixels (two) and
 * of three (three), a position's low 16 bits as in a trow. A lookup is two
 * loads and a place two stores, where a trow's lookup compares a row's tags
 * and its insert rewrites the row (three read-modify-writes). On level 1's
 * flat rows and probes, against the 8-way rows, both keeping the newest
 * entry whose two pixels' tag and third pixel agree, else the newest with
 * the tag: 0.84-0.93x the time on the demo and sand frames, 0.2-1.6% fewer
 * bytes there (the older entries of a row gave nothing the newest did not,
 * and the hashes here have 13 bits each, not 11 + 8 shared by the row). */
enum { PAIR_BITS = 13 };

typedef struct pairs {
    uint16_t two[1 << PAIR_BITS];
    uint16_t three[1 << PAIR_BITS];
} pairs;

/* A place's slots in pairs. Reads 10 bytes at x. */
typedef struct pkey {
    uint32_t two, three;
} pkey;

static inline pkey pkey_at(const uint8_t *x)
{
    const uint64_t h = (load64(x) << 16) * 0x9E3779B97F4A7C15ull;
    const uint32_t t = (uint32_t)(h >> 32) ^ (load32(x + 6) & 0xffffff);
    const pkey k = {(uint32_t)(h >> (64 - PAIR_BITS)), (t * 0x9E3779B1u) >> (32 - PAIR_BITS)};
    return k;
}

static inline void pair_insert(pairs *t, pkey k, size_t p)
{
    t->two[k.two] = (uint16_t)p;
    t->three[k.three] = (uint16_t)p;
}

/* The place at in + q joins level 1's table (pt) or the rows (tb). */
static inline void put_place(rows *tb, pairs *pt, const uint8_t *in, size_t q)
{
    if (pt != NULL)
        pair_insert(pt, pkey_at(in + q), q);
    else
        insert(tb, key_at(in + q), q);
}

/* A match's pixels that join the table: those in its first INSERT_SPAN
 * bytes, and its last. Level 1's flat rows (the AVX2 path's runs) take its
 * second and last only: 8-10% less time on the flat frames at 0.5% more
 * bytes (the last alone: no faster, 1-2% more bytes). */
enum { INSERT_SPAN = 4 * BPP, INSERT_SPAN_FAST = 2 * BPP };

/* Whole pixels equal at x and c (at most 6 bytes from x to the row's end
 * at least), given d = load64(x) ^ load64(c) with the first pixel equal
 * (load64 puts the first byte lowest). */
static ALWAYS_INLINE size_t pix_len(uint64_t d, const uint8_t *x, const uint8_t *c,
                                     const uint8_t *end, const int simd)
{
    if (d == 0) { /* 8 bytes or more */
        const size_t max = (size_t)(end - x) < MAX_MATCH ? (size_t)(end - x) : MAX_MATCH;
        return MATCH_LEN(simd, x, c, max);
    }
    return (size_t)__builtin_ctzll(d) >> 3 >= 6 ? 6 : BPP; /* 3 to 7 bytes */
}

/* The candidate cd bytes back from x, taken when longer than *len (ties:
 * the one found first, the nearer); cur = load64(x). */
static ALWAYS_INLINE void try_at(uint64_t cur, const uint8_t *x, size_t cd, const uint8_t *xend,
                                 size_t *len, size_t *dist, const int simd)
{
    const uint64_t d = cur ^ load64(x - cd);
    if ((d & 0xffffff) == 0) {
        const size_t l = pix_len(d, x, x - cd, xend, simd);
        if (l > *len) *len = l, *dist = cd;
    }
}

/* Level 1's table: read and filled only at the pixel x after a match that
 * began at most PROBE_GAP literal pixels after the match before it (runs
 * and steps: a flat region) and was not cut at MAX_MATCH (a run that goes
 * on). The longest of the pixel to the left, the one
 * above and the newest place of the same three pixels (no two-pixel
 * matches from the table: in textured regions they replace literals at a
 * larger cost); x joins the table. */
enum { PROBE_GAP = 5 };

/* Whether to probe: where the table rarely gives the match (textured
 * regions: about a quarter of the probes win there, half or more on flat
 * sand and sky), probing costs more than it saves. A probe whose match
 * comes from the table adds PROBE_WIN to the credit, one that does not
 * takes PROBE_LOSS (a break-even near 45% wins); without credit, one
 * chance in PROBE_SAMPLE is probed, to notice a flat region. */
enum { PROBE_WIN = 5, PROBE_LOSS = 4, PROBE_CREDIT = 64, PROBE_SAMPLE = 16 };

static inline int probe_on(int credit, unsigned *skipped)
{
    return credit > 0 || ++*skipped % PROBE_SAMPLE == 0;
}

static inline int probe_score(int credit, int won)
{
    const int c = credit + (won ? PROBE_WIN : -PROBE_LOSS);
    return c < 0 ? 0 : c > PROBE_CREDIT ? PROBE_CREDIT : c;
}

static ALWAYS_INLINE size_t probe_at(const uint8_t *in, const uint8_t *x, const uint8_t *xend,
                                     size_t up, pairs *pt, size_t *dist, const int simd)
{
    const uint64_t cur = load64(x);
    size_t len = 0;
    try_at(cur, x, BPP, xend, &len, dist, simd);
    if (up != 0) try_at(cur, x, up, xend, &len, dist, simd);
    const size_t p = (size_t)(x - in);
    const pkey k = pkey_at(x);
    const size_t cd = (uint16_t)(p - pt->three[k.three]);
    if (cd - 1 < MAX_DIST && (len < BPP || load32(x + len - 1) == load32(x - cd + len - 1)))
        try_at(cur, x, cd, xend, &len, dist, simd);
    pair_insert(pt, k, p);
    return len;
}


#if defined(__x86_64__) && defined(__GNUC__)
#define CG_ZD_STARTS8 1
/* Bit j: byte j at x equals byte j at x - d, for the 32 bytes at x. */
static inline __attribute__((target("avx2"))) uint64_t eq32(const uint8_t *x, size_t d)
{
    const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)x);
    const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(x - d));
    return (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, w));
}

/* Of byte-equal bits e: bit j where bytes j..j+2 are equal (a pixel at j). */
static inline uint64_t pixel_eq(uint64_t e)
{
    return e & e >> 1 & e >> 2;
}

/* Of pixel_eq bits p: bit j where the five pixels at j are equal (bytes
 * j..j+14). */
static inline uint64_t five_eq(uint64_t p)
{
    return p & p >> 3 & p >> 6 & p >> 9 & p >> 12;
}

/* Of the six pixels at x, those that start five pixels equal to the five
 * before them (distance 3) or above them (distance up): bit 3 * i for pixel
 * i. Reads 32 bytes at x, x - 3 and x - up. */
static inline __attribute__((target("avx2"))) unsigned run_starts6(const uint8_t *x, size_t up)
{
    return (unsigned)((five_eq(pixel_eq(eq32(x, BPP))) | five_eq(pixel_eq(eq32(x, up)))) &
                      0x9249); /* pixels 0-5 */
}

/* run_starts6 for the seventeen pixels at x, two 32-byte compares each:
 * bit 3 * i for pixel i. Reads 64 bytes at x, x - 3 and x - up. */
static inline __attribute__((target("avx2"))) uint64_t run_starts17(const uint8_t *x, size_t up)
{
    const uint64_t el = eq32(x, BPP) | eq32(x + 32, BPP) << 32;
    const uint64_t eu = eq32(x, up) | eq32(x + 32, up) << 32;
    return (five_eq(pixel_eq(el)) | five_eq(pixel_eq(eu))) & 0x1249249249249ull; /* pixels 0-16 */
}

/* Of the eight pixels at x, those equal to the pixel to the left or the one
 * above (up bytes back): bit 3 * i for pixel i. Reads 32 bytes at x, x - 3
 * and x - up. */
static inline __attribute__((target("avx2"))) unsigned near_eq8(const uint8_t *x, size_t up)
{
    return (unsigned)((pixel_eq(eq32(x, BPP)) | pixel_eq(eq32(x, up))) & 0x249249);
}

/* How many of them. */
static inline __attribute__((target("avx2,popcnt"))) unsigned lone_cover8(const uint8_t *x,
                                                                          size_t up)
{
    return (unsigned)__builtin_popcount(near_eq8(x, up));
}
#endif

/* A pixel's three bytes as a literal token (px: the bytes, low first). */
static inline uint32_t *put_lit(uint32_t *t, tokens *tk, const uint8_t *x, uint32_t px)
{
    tk->lit[0][x[0]]++;
    tk->lit[1][x[1]]++;
    tk->lit[2][x[2]]++;
    tk->lit_bytes += BPP;
    *t = px;
    return t + 1;
}

/* The literal bytes [x, x + nb) (pixels, or the filter byte) counted and
 * added to the run ending at x (*rend), else as a new run (*run). */
static inline uint32_t *run_lit(uint32_t *t, tokens *tk, const uint8_t *x, size_t nb,
                                uint32_t **run, const uint8_t **rend)
{
    if (tk->count)
        for (size_t i = 0; i < nb; i += BPP) {
            tk->lit[0][x[i]]++;
            if (nb == 1) break; /* the filter byte */
            tk->lit[1][x[i + 1]]++;
            tk->lit[2][x[i + 2]]++;
        }
    tk->lit_bytes += nb;
    if (*rend == x && **run - TOK_RUN + nb <= RUN_MAX) {
        **run += (uint32_t)nb;
        tk->run_extra += nb / BPP;
    } else {
        *run = t;
        *t++ = TOK_RUN | (uint32_t)nb;
        tk->run_extra += nb / BPP - (nb >= BPP);
    }
    *rend = x + nb;
    return t;
}

/* One filtered row [s, s + row) of in: filter byte, then pixels. At each
 * pixel, the longest match of the candidates at the top of this file; the
 * pixel then joins the table. first: s is 0 (nothing before the row). */
static ALWAYS_INLINE void tokenize_row(const uint8_t *in, size_t s, size_t row, int depth,
                                       rows *tb, pairs *pt, tokens *tk, const int first,
                                       const int simd, const int runs)
{
    (void)simd; /* without SSE2: no many-pixel check */
    uint32_t *t = tk->t + tk->n;
    const uint32_t *const t0 = t;
    uint32_t *run = t;           /* runs: the run being extended */
    const uint8_t *rend = NULL;  /* and where it ends */
    if (runs) {
        t = run_lit(t, tk, in + s, 1, &run, &rend);
    } else {
        *t++ = TOK_BYTE | in[s];
        tk->lit[0][in[s]]++;
    }
    const uint8_t *const xend = in + s + row;
    const size_t up = !first && row <= MAX_DIST ? row : 0; /* 0: no row above */
    /* The loop walks a pointer; positions are computed where the table
     * needs them (fewer live values: the index and the bound spilled). The
     * row's last pixel cannot start a match: a literal after the loop. */
    const uint8_t *x = in + s + 1;
    const uint8_t *const xlast = row >= 1 + 2 * BPP ? xend - 2 * BPP : in + s;
    const uint8_t *mend = x; /* level 1: where the last match ended */
    int credit = tk->probe_credit;
    unsigned skipped = tk->probe_skipped;
    while (x <= xlast) {
#if defined(CG_ZD_STARTS8)
        if (simd && depth == 0 && up != 0 && x + 7 * BPP <= xlast) {
            /* 17 pixels at once (6 near the row's end): those before the
             * first that starts five equal pixels to the left or above are
             * literals. 18 against 7 (with four pixels): 0.91-0.95x the
             * time on the textured frames, the same bytes. */
            unsigned k, step;
            if (x + 17 * BPP <= xlast) {
                const uint64_t m = run_starts17(x, up);
                k = m != 0 ? (unsigned)__builtin_ctzll(m) / BPP : 17;
                step = 17;
            } else {
                const unsigned m = run_starts6(x, up);
                k = m != 0 ? (unsigned)__builtin_ctz(m) / BPP : 6;
                step = 6;
            }
            if (runs) {
                if (k != 0) t = run_lit(t, tk, x, k * BPP, &run, &rend);
                x += k * BPP;
            } else {
                for (unsigned j = 0; j < k; j++, x += BPP)
                    t = put_lit(t, tk, x, load32(x) & 0xffffff);
            }
            if (k == step) continue;
        }
#endif
        const uint64_t cur = load64(x);
        size_t len = 0, dist = 0;
        if (!first || x > in + s + 1) try_at(cur, x, BPP, xend, &len, &dist, simd);
        /* above: read on only where it can beat the run (equal where it ends) */
        if (up != 0 && (len < BPP || load32(x + len - 1) == load32(x - up + len - 1)))
            try_at(cur, x, up, xend, &len, &dist, simd);
        if (depth > 0 && pt != NULL) { /* level 1's flat rows */
            const size_t p = (size_t)(x - in);
            const pkey k = pkey_at(x);
            const size_t c3 = (uint16_t)(p - pt->three[k.three]);
            const size_t c2 = (uint16_t)(p - pt->two[k.two]);
            if (c3 - 1 < MAX_DIST && (len < BPP || load32(x + len - 1) == load32(x - c3 + len - 1)))
                try_at(cur, x, c3, xend, &len, &dist, simd);
            if (len < MIN_MATCH && c2 - 1 < MAX_DIST) try_at(cur, x, c2, xend, &len, &dist, simd);
            pair_insert(pt, k, p);
        } else if (depth > 0) {
            const size_t p = (size_t)(x - in);
            const key k = key_at(x);
            const trow *const r = &tb->r[k.row];
            const unsigned both = row_hits(r, k), hits = both & 0xff;
            if (__builtin_expect(hits != 0, 0)) { /* most pixels: no entry with the tag */
                /* entries whose third pixel may match too, newest first */
                unsigned more = (both >> 8) & hits;
                for (int j = 0; more != 0 && j < depth; j++) {
                    const unsigned i = (unsigned)__builtin_ctz(more);
                    more &= more - 1;
                    const size_t cd = (uint16_t)(p - r->pos[i]);
                    if (cd - 1 >= MAX_DIST) break; /* older ones are further */
                    /* read it only if it can beat len: equal where len ends */
                    if (len >= BPP && load32(x + len - 1) != load32(x - cd + len - 1)) continue;
                    try_at(cur, x, cd, xend, &len, &dist, simd);
                }
                if (len < MIN_MATCH) { /* else: the others give two pixels at most */
                    const unsigned i = (unsigned)__builtin_ctz(hits);
                    const size_t cd = (uint16_t)(p - r->pos[i]);
                    if (cd - 1 < MAX_DIST) try_at(cur, x, cd, xend, &len, &dist, simd);
                }
            }
            insert(tb, k, p);
        }
        if (__builtin_expect(len < (depth == 0 ? MIN_MATCH_FAST : MIN_MATCH), 1)) {
            t = runs ? run_lit(t, tk, x, BPP, &run, &rend)
                     : put_lit(t, tk, x, (uint32_t)cur & 0xffffff);
            x += BPP;
            continue;
        }
        for (;;) { /* level 1: more matches while probe_at finds them */
            /* not after a match cut at MAX_MATCH: the run goes on there */
            const int near = depth == 0 && len < MAX_MATCH &&
                             (size_t)(x - mend) <= PROBE_GAP * BPP && probe_on(credit, &skipped);
            const unsigned dc = dist_code((unsigned)dist);
            if (depth > 0 && dist != BPP && dist != up) tk->table_bytes += len;
            *t++ = TOK_MATCH | dc << 25 | (uint32_t)len << 16 | (uint32_t)dist;
            tk->len[tk->len_tab[len].sym]++;
            tk->dist[dc]++;
            /* pixels 2-4 and the last join the table too, except in runs and
             * in copies of the row above (whose own pixels are there already) */
            if (depth > 0 && dist != BPP && dist != up) {
                const size_t p = (size_t)(x - in);
                const size_t span = runs ? INSERT_SPAN_FAST : INSERT_SPAN;
                const size_t qe = p + (len < span ? len : span);
                for (size_t q = p + BPP; q < qe; q += BPP) put_place(tb, pt, in, q);
                if (len > span) put_place(tb, pt, in, p + len - BPP);
            }
            x += len;
            mend = x;
            if (!near || x > xlast) break;
            len = probe_at(in, x, xend, up, pt, &dist, simd);
            credit = probe_score(credit, len >= MIN_MATCH && dist != BPP && dist != up);
            if (len < MIN_MATCH) { /* what the loop would make of it */
                t = runs ? run_lit(t, tk, x, BPP, &run, &rend)
                         : put_lit(t, tk, x, load32(x) & 0xffffff);
                x += BPP;
                break;
            }
        }
    }
    if (x < xend) /* one pixel left */
        t = runs ? run_lit(t, tk, x, BPP, &run, &rend) : put_lit(t, tk, x, load32(x) & 0xffffff);
    tk->n += (size_t)(t - t0);
    tk->probe_credit = credit;
    tk->probe_skipped = skipped;
}

/* Level 1 on flat rows: a row of fewer tokens than a third of its pixels
 * (runs and copies of the row above, a few literals between them: sky, sand,
 * flat-lit faces, fog, UI panels) makes the next row search level 1's table
 * at every pixel, which on such rows finds the patterns of steps and runs that
 * recur at other distances: 0.7-0.8x the bytes on bench/corpus/demo_* and on
 * the demo's other frames (1.2-1.56x libpng's size before, 1.0-1.1x with
 * it). A flat row where the table gave no match at all (a row of one colour)
 * turns the search off for FLAT_REST rows. Turning it off wherever the table
 * covered less than an eighth of the row saved 2% of the time and left
 * frames of the demo at 1.47-1.49x. */
enum { FLAT_TOKENS_DIV = 3, FLAT_REST = 16 };

/* A searched row also keeps the search on where the table's matches covered
 * at least COVER_NUM / COVER_DEN of its bytes, flat or not: the near ground
 * of a sand or grass plain at small sizes (a texture magnified, every row a
 * new mix of its texels), where the table finds 20-35x fewer literal bytes
 * than the left and upper pixels. Where a flat rest ends (rows of one colour,
 * such as fog at the horizon, then that ground), the next row searches if
 * the pixels there repeat what the rows above hold (repeats_above). Sand
 * rendered at 320x180 (desert_320x180 and dunes_320x180 in bench/corpus):
 * 1.57-1.62x libpng's bytes without either, 1.08-1.10x with both;
 * desert_640x360 scaled to 320x180 as the resize does (nearest pixel) 1.86x,
 * now 1.15x; the other frames of the corpus the same bytes. Not enough for
 * sand scaled to 160-320 pixels wide (dunes_854x480 at 320x180: 1.75x, then
 * 1.70x): see SMALL_ROW. Fog 640x360 at the horizon covers 53-71%
 * of its rows with short matches that cost more than the literals they
 * replace (searching it there: 1.6-1.8% more bytes), so 3/4, not half. */
enum { COVER_NUM = 3, COVER_DEN = 4 };

/* The gate on that search: it pays where it turns most of the literals the
 * left and upper pixels leave into matches (the demo's faces, sand: 7-17x
 * fewer literal bytes over the frame than without it), not where it only
 * joins matches those find anyway (fog, sky, textured frames' flat rows:
 * 1.0-1.5x fewer literal bytes, 0-1% fewer bytes, 5-40% of the time). Every
 * GATE_EVERY-th row of a run of searched rows (the first ones fill the
 * table: most matches come from the two rows above) is judged: won where
 * its literal bytes are under 1 / GATE_DIV of the bytes of its pixels equal
 * to neither the left nor the upper pixel (lone_pixels), not judged where
 * those are under 1 / GATE_FEW of the row. A won row adds GATE_WIN to a
 * credit (at most GATE_CREDIT, full at the frame's start), a lost one
 * takes GATE_LOSS (a break-even at 75% won rows); without credit the search
 * rests GATE_REST rows, twice as many each time it rests again without a
 * won row between (up to GATE_REST_MAX). */
enum { GATE_DIV = 3, GATE_FEW = 16, GATE_EVERY = 4, GATE_WIN = 1, GATE_LOSS = 3, GATE_CREDIT = 8,
       GATE_REST = 16, GATE_REST_MAX = 128 };

/* Whether the row at s repeats the rows above: of 64 pixels in its middle
 * equal to neither the pixel to the left nor the one above (at least
 * REPEAT_FEW of them), at least 1 / REPEAT_DIV start four pixels found in
 * the REPEAT_ROWS rows above within 16 pixels of those columns (a 4096-bit
 * set of their hashes). Needs a row of at least 96 pixels and REPEAT_ROWS
 * rows above it. On the fog at the horizon of fog 640x360: 15 of 55; on
 * dunes at 320x180: 6 of 16. */
enum { REPEAT_ROWS = 8, REPEAT_DIV = 3, REPEAT_FEW = 16, REPEAT_MIN_PIXELS = 96 };

/* Small rows: sand scaled down to 160-320 pixels wide (the resize's nearest
 * pixel) covers 50-75% of a row with table matches, yet the search still
 * turns most of its literals into matches: the rules above stop it there and
 * the rest of the frame came out at 1.50-1.74x libpng's bytes. On rows of
 * REPEAT_MIN_PIXELS to SMALL_ROW pixels:
 * - a searched row its table covers at least half of is also kept on where
 *   it costs at most KEEP_NUM / KEEP_DEN of the last unsearched row, both
 *   estimated as literal bytes at the row's own byte entropy (row_bits)
 *   plus MATCH_BITS a match;
 * - after TRIAL_ROWS unsearched rows in a row that were nearly all
 *   literals (at least TRIAL_NUM / TRIAL_DEN of their pixels tokens), the
 *   next row searches if at least 1 / TRIAL_SHARE of the last one's pixels
 *   equal the pixel to the left or the one above (a magnified texture's
 *   texels: 11-49% of the sand's pixels at 160-320 pixels wide; forest, fog,
 *   jungle and ocean 1-7%), and is judged as above whatever its table
 *   covered.
 * Both paths. The corpus scaled to 160-320 pixels wide: at most 1.42x
 * (1.51-1.74x before), its frames at their own sizes the same bytes; small
 * frames 0.94-0.98x the speed (median; 0.91-0.93x with trials on every such
 * row), sand 0.53-0.73x.
 * The entropy matters: the literals of a night frame's dark ground cost
 * 2.5-3 bits, and there the search's matches cost as much as the literals
 * they replace (judged by literal bytes alone it went on there, at 0.36x
 * the speed, for 0.4% fewer bytes). A trial every 12 or 16 rows: 1.50x and
 * 1.56x at 160x90. Up to 480 pixels wide changed nothing on the corpus
 * scaled to 360-480 wide, at 0.89-0.91x the speed. docs/benchmarks.md has
 * the figures. */
enum { SMALL_ROW = 320, TRIAL_ROWS = 8, TRIAL_NUM = 9, TRIAL_DEN = 10, TRIAL_SHARE = 16,
       KEEP_NUM = 23, KEEP_DEN = 25, MATCH_BITS = 20 };

/* log2(1 + i / 32) in 1/256 bits */
static const uint8_t log2_frac[32] = {0,   11,  22,  33,  44,  54,  63,  73,  82,  92,  100,
                                      109, 118, 126, 134, 142, 150, 157, 165, 172, 179, 186,
                                      193, 200, 207, 213, 220, 226, 232, 238, 244, 250};

/* log2(v) in 1/256 bits, within 0.05 bits, for v >= 1 */
static inline uint32_t log2_q8(uint32_t v)
{
    const unsigned e = 31u - (unsigned)__builtin_clz(v);
    const uint32_t m = e >= 5 ? v >> (e - 5) : v << (5 - e);
    return e * 256u + log2_frac[m & 31];
}

/* The bytes of the row [s + 1, s + row) of in coded at their own entropy,
 * in 1/256 bits. */
static size_t row_bits(const uint8_t *in, size_t s, size_t row)
{
    uint16_t c[256] = {0};
    for (size_t i = s + 1; i < s + row; i++) c[in[i]]++;
    const uint32_t lt = log2_q8((uint32_t)(row - 1));
    size_t bits = 0;
    for (int b = 0; b < 256; b++)
        if (c[b] != 0) bits += (size_t)c[b] * (lt - log2_q8(c[b]));
    return bits;
}

/* Whether a searched small row of lit literal bytes and ntok tokens costs
 * at most KEEP_NUM / KEEP_DEN of the last unsearched row (see SMALL_ROW).
 * Not inlined, as the rules' other rare parts: inlined into level 1's row
 * loop they cost 64x64 frames, which never call them, 3-4% of the time. */
static NOINLINE int small_row_pays(const uint8_t *in, size_t s, size_t row, const tokens *tk,
                                   size_t lit, size_t ntok)
{
    const size_t plit = tk->plain_lit, ptok = tk->plain_tokens;
    const size_t m = ntok > lit / BPP ? ntok - lit / BPP : 0,
                 pm = ptok > plit / BPP ? ptok - plit / BPP : 0;
    if (lit * KEEP_DEN >= plit * KEEP_NUM && m * KEEP_DEN >= pm * KEEP_NUM) return 0;
    const uint64_t n = row - 1, bits = row_bits(in, s, row); /* a literal: bits / n */
    const uint64_t cost = lit * bits + m * MATCH_BITS * 256 * n,
                   plain = plit * bits + pm * MATCH_BITS * 256 * n;
    return cost * KEEP_DEN <= plain * KEEP_NUM;
}

#if defined(CG_ZD_STARTS8)

static inline uint64_t hash4(const uint8_t *p) /* four pixels: 12 bytes */
{
    return (load64(p) * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)load32(p + 8) * 0xC2B2AE3D27D4EB4Full);
}

static inline __attribute__((target("avx2,popcnt"))) int repeats_above(const uint8_t *in,
                                                                        size_t s, size_t row)
{
    uint64_t seen[64] = {0};
    const uint8_t *const w0 = in + s + 1 + ((row - 1) / BPP / 2 - 32) * BPP;
    for (size_t dy = 1; dy <= REPEAT_ROWS; dy++) {
        const uint8_t *p = w0 - dy * row - 16 * BPP, *const e = p + 96 * BPP;
        for (; p < e; p += BPP) {
            const uint64_t h = hash4(p);
            seen[h >> 58] |= 1ull << (h >> 52 & 63);
        }
    }
    unsigned hit = 0, lone = 0;
    const uint8_t *x = w0;
    for (int c = 0; c < 8; c++, x += 8 * BPP) {
        unsigned m = ~near_eq8(x, row) & 0x249249; /* lone pixels: bit 3 * i */
        lone += (unsigned)__builtin_popcount(m);
        for (; m != 0; m &= m - 1) {
            const uint64_t h = hash4(x + __builtin_ctz(m));
            hit += (unsigned)(seen[h >> 58] >> (h >> 52 & 63) & 1);
        }
    }
    return lone >= REPEAT_FEW && hit * REPEAT_DIV >= lone;
}
#else
static inline int repeats_above(const uint8_t *in, size_t s, size_t row)
{
    (void)in, (void)s, (void)row;
    return 0; /* no flat-row search without the AVX2 path's runs */
}
#endif

/* Pixels of the row [s, s + row) of in (not the first row) equal to neither
 * the pixel to the left nor the one above. */
static ALWAYS_INLINE size_t lone_pixels(const uint8_t *in, size_t s, size_t row, const int simd)
{
    size_t u = 0;
    const uint8_t *x = in + s + 1, *const e = in + s + row;
#if defined(CG_ZD_STARTS8)
    if (simd)
        for (; x + 32 <= e; x += 8 * BPP) u += 8 - lone_cover8(x, row);
#else
    (void)simd;
#endif
    for (; x < e; x += BPP) {
        const uint32_t v = load32(x) & 0xffffff;
        u += v != (load32(x - BPP) & 0xffffff) && v != (load32(x - row) & 0xffffff);
    }
    return u;
}

/* Whether at least 1 / TRIAL_SHARE of the pixels pixels of the row at s
 * equal the pixel to the left or the one above (see SMALL_ROW). */
static NOINLINE int repeats_near(const uint8_t *in, size_t s, size_t row, size_t pixels,
                                 int simd)
{
    return (pixels - lone_pixels(in, s, row, simd)) * TRIAL_SHARE >= pixels;
}

static ALWAYS_INLINE void tokenize_fast(const uint8_t *in, size_t s, size_t row, pairs *pt,
                                        tokens *tk, const int simd)
{
    const size_t n0 = tk->n + tk->run_extra, pixels = (row - 1) / BPP, l0 = tk->lit_bytes;
    const int small = pixels >= REPEAT_MIN_PIXELS && pixels <= SMALL_ROW; /* see SMALL_ROW */
    int flat;
    if (tk->flat && tk->gate_rest == 0) {
        tk->table_bytes = 0;
        tokenize_row(in, s, row, level_depth[2], NULL, pt, tk, 0, simd, simd);
        const size_t ntok = tk->n + tk->run_extra - n0;
        flat = ntok * FLAT_TOKENS_DIV < pixels ||
               tk->table_bytes * COVER_DEN >= COVER_NUM * (row - 1);
        if (!flat && small && (tk->trial || tk->table_bytes * 2 >= row - 1))
            flat = small_row_pays(in, s, row, tk, tk->lit_bytes - l0, ntok);
        tk->trial = 0;
        if (tk->table_bytes == 0) {
            tk->flat_rest = FLAT_REST;
            flat = 0;
        }
        const size_t lone =
            tk->searched++ % GATE_EVERY == GATE_EVERY - 1 ? lone_pixels(in, s, row, simd) : 0;
        if (lone * GATE_FEW >= pixels) {
            const int won = (tk->lit_bytes - l0) * GATE_DIV < BPP * lone;
            tk->gate_credit += won ? GATE_WIN : -GATE_LOSS;
            if (tk->gate_credit > GATE_CREDIT) tk->gate_credit = GATE_CREDIT;
            if (won) tk->gate_rest_len = GATE_REST;
            if (tk->gate_credit < 0) {
                tk->gate_rest = tk->gate_rest_len;
                tk->gate_credit = 0;
                if (tk->gate_rest_len < GATE_REST_MAX) tk->gate_rest_len *= 2;
            }
        }
    } else {
        tokenize_row(in, s, row, level_depth[1], NULL, pt, tk, 0, simd, simd);
        flat = (tk->n + tk->run_extra - n0) * FLAT_TOKENS_DIV < pixels && tk->flat_rest == 0;
        if (tk->flat_rest > 0 && --tk->flat_rest == 0)
            flat = simd && pixels >= REPEAT_MIN_PIXELS && s >= REPEAT_ROWS * row &&
                   repeats_above(in, s, row);
        if (tk->gate_rest > 0) tk->gate_rest--;
        tk->searched = 0;
        if (small) {
            tk->plain_lit = tk->lit_bytes - l0;
            tk->plain_tokens = tk->n + tk->run_extra - n0;
            if (flat || tk->flat_rest > 0 || tk->gate_rest > 0 ||
                tk->plain_tokens * TRIAL_DEN < pixels * TRIAL_NUM)
                tk->plain_rows = 0;
            else if (++tk->plain_rows >= TRIAL_ROWS) {
                tk->plain_rows = 0;
                if (repeats_near(in, s, row, pixels, simd)) tk->trial = flat = 1;
            }
        }
    }
    tk->flat = flat;
}

/* The row at s. The first row has no row above and no pixel before its
 * first; in the others, the first pixel may match at distance 3 too, into
 * the row before. Each level's constants are folded into its own loop. */
static ALWAYS_INLINE void tokenize(int level, const uint8_t *in, size_t s, size_t row, rows *tb,
                                   pairs *pt, tokens *tk, const int simd)
{
    if (s == 0) {
        if (level == 1)
            tokenize_row(in, s, row, level_depth[1], NULL, pt, tk, 1, simd, simd);
        else
            tokenize_row(in, s, row, level_depth[level], tb, NULL, tk, 1, simd, 0);
        return;
    }
    switch (level) {
    case 1: tokenize_fast(in, s, row, pt, tk, simd); break;
    case 2: tokenize_row(in, s, row, level_depth[2], tb, NULL, tk, 0, simd, 0); break;
    default: tokenize_row(in, s, row, level_depth[3], tb, NULL, tk, 0, simd, 0); break;
    }
}

/* ---- pass 2: one block --------------------------------------------------- */

static const uint8_t cl_order[CL_SYMS] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                          11, 4,  12, 3, 13, 2, 14, 1, 15};

/* The code-length sequence run-length coded: symbol | extra << 8. */
static int rle_lengths(const uint8_t *lens, int n, uint16_t *out, uint32_t *cl_freq)
{
    int k = 0;
    for (int i = 0; i < n;) {
        int v = lens[i], r = 1;
        while (i + r < n && lens[i + r] == v) r++;
        i += r;
        if (v == 0) {
            while (r >= 11) {
                int c = r > 138 ? 138 : r;
                out[k++] = (uint16_t)(18 | (c - 11) << 8);
                cl_freq[18]++;
                r -= c;
            }
            if (r >= 3) {
                out[k++] = (uint16_t)(17 | (r - 3) << 8);
                cl_freq[17]++;
                r = 0;
            }
        } else {
            out[k++] = (uint16_t)v;
            cl_freq[v]++;
            r--;
            while (r >= 3) {
                int c = r > 6 ? 6 : r;
                out[k++] = (uint16_t)(16 | (c - 3) << 8);
                cl_freq[16]++;
                r -= c;
            }
        }
        while (r-- > 0) {
            out[k++] = (uint16_t)v;
            cl_freq[v]++;
        }
    }
    return k;
}

static const uint8_t cl_extra[CL_SYMS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0, 2, 3, 7};

/* Stored blocks of in[0, n): each 3 header bits, to a byte, LEN, NLEN, bytes. */
static void put_stored(bitw *w, const uint8_t *in, size_t n, int final)
{
    do {
        size_t k = n < STORED_MAX ? n : STORED_MAX;
        n -= k;
        put(w, (final && n == 0) ? 1 : 0, 3);
        align(w);
        w->p[0] = (uint8_t)k;
        w->p[1] = (uint8_t)(k >> 8);
        w->p[2] = (uint8_t)~k;
        w->p[3] = (uint8_t)(~k >> 8);
        memcpy(w->p + 4, in, k);
        w->p += 4 + k;
        in += k;
    } while (n > 0);
}

/* Bytes stored blocks of n bytes take at most (3 bits + alignment in each). */
static size_t stored_size(size_t n)
{
    size_t blocks = n / STORED_MAX + 1;
    return n + blocks * 5;
}

/* ---- level 1's literal runs, 32 bytes a step (the AVX2 + BMI2 path) ------- */

/* The literal/length code is shaped so that a byte's code comes from
 * 16-entry tables (one pshufb each) indexed by its low or high nibble:
 * the bytes 0-15 and 240-255 (small residuals, the common ones) have codes
 * of at most 8 bits of their own; each of the 14 groups of 16 bytes between
 * (16-31, ..., 224-239) has one length for all its bytes, so their
 * canonical codes are consecutive: the group's first code plus the low
 * nibble. Lengths: Huffman's on the 32 bytes, the 14 groups (a group of
 * length L standing for 16 codes of L + 4 bits) and one symbol for all
 * lengths and the end of block, at most 8 bits each; the lengths get a
 * code of their own below that symbol's. */
/* Runs shorter than SHORT_RUN bytes go out a pixel a write. The literals
 * of one row in LIT_SAMPLE (the block's first among them) are counted: on
 * the corpus, level 1 with 16 writes 0.08% more bytes than with 4 (with 2:
 * 0.01% fewer) in 0.95x the time. */
enum { NIB_SYMS = 16 + 16 + 14 + 1, SHORT_RUN = 16, LIT_SAMPLE = 16 };

/* The most bytes one step of level 1's block writer (32 literal bytes, a
 * short run, a match, the end of block) moves the writer or stores past it:
 * 48 and the 8-byte store, rounded up. */
enum { RUN_STEP_MAX = 64 };

static void nibble_lengths(const uint32_t *freq, uint8_t *len)
{
    uint32_t f[NIB_SYMS] = {0};
    uint8_t l[NIB_SYMS], ll[LITLEN_SYMS - 256];
    /* every byte keeps a code: the counts are a sample */
    for (int i = 0; i < 16; i++) {
        f[i] = freq[i] + 1;
        f[16 + i] = freq[240 + i] + 1;
    }
    for (int g = 0; g < 14; g++) f[32 + g] = 1;
    for (int s = 16; s < 240; s++) f[32 + s / 16 - 1] += freq[s];
    for (int s = 256; s < LITLEN_SYMS; s++) f[NIB_SYMS - 1] += freq[s];
    cg_zd_huff_lengths(f, NIB_SYMS, 8, l);
    for (int i = 0; i < 16; i++) {
        len[i] = l[i];
        len[240 + i] = l[16 + i];
    }
    for (int s = 16; s < 240; s++) {
        const uint8_t g = l[32 + s / 16 - 1];
        len[s] = g != 0 ? (uint8_t)(g + 4) : 0;
    }
    const int z = l[NIB_SYMS - 1]; /* 1..8: the end of block is always there */
    cg_zd_huff_lengths(freq + 256, LITLEN_SYMS - 256, MAX_BITS - z, ll);
    for (int s = 256; s < LITLEN_SYMS; s++)
        len[s] = ll[s - 256] != 0 ? (uint8_t)(ll[s - 256] + z) : 0;
}

#if defined(CG_ZD_STARTS8)
/* The tables of a block's code (see nibble_lengths), by low nibble for the
 * bytes 0-15 (lo_*) and 240-255 (hi_*), by high nibble for the groups: a
 * group's first canonical code c is split into its low nibble (g_add) and
 * the rest, written bit-reversed (g_top, and g_top1 for the rest plus one,
 * where the low nibbles' sum carries); the code of the group's byte b is
 * rev(top) | rev4((c + b) & 15) << (L - 4), the shift a multiply by g_mul. */
typedef struct nib_tabs {
    uint8_t lo_len[16], lo_code[16], hi_len[16], hi_code[16];
    uint8_t g_len[16], g_add[16], g_top[16], g_top1[16], g_mul_lo[16], g_mul_hi[16];
} nib_tabs;

static unsigned rev_bits(unsigned v, unsigned n)
{
    unsigned r = 0;
    for (unsigned i = 0; i < n; i++) r |= ((v >> i) & 1) << (n - 1 - i);
    return r;
}

static void nib_tables(const uint8_t *len, const uint16_t *code, nib_tabs *tb)
{
    memset(tb, 0, sizeof *tb);
    for (int i = 0; i < 16; i++) {
        tb->lo_len[i] = len[i];
        tb->lo_code[i] = (uint8_t)code[i];
        tb->hi_len[i] = len[240 + i];
        tb->hi_code[i] = (uint8_t)code[240 + i];
    }
    for (int g = 1; g < 15; g++) {
        const unsigned l = len[16 * g];
        if (l == 0) continue;
        const unsigned c = rev_bits(code[16 * g], l), top = c >> 4;
        tb->g_len[g] = (uint8_t)l;
        tb->g_add[g] = (uint8_t)(c & 15);
        tb->g_top[g] = (uint8_t)rev_bits(top, l - 4);
        tb->g_top1[g] = (uint8_t)rev_bits(top + 1, l - 4);
        tb->g_mul_lo[g] = (uint8_t)(1u << (l - 4)); /* l - 4 = 8: 0 and ... */
        tb->g_mul_hi[g] = (uint8_t)((1u << (l - 4)) >> 8); /* ... 1 */
    }
}

#define AVX2B __attribute__((target("avx2,bmi,bmi2")))

static ALWAYS_INLINE AVX2B __m256i tab16(const uint8_t *t)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)t));
}

/* Bytes to 64-bit lanes of codes: c holds codes in 16-bit lanes (two
 * bytes' codes already joined in each) and n their lengths; pairs of them
 * are joined in 32-bit lanes, those in 64-bit lanes. */
static ALWAYS_INLINE AVX2B void join_lanes(__m256i *c, __m256i *n)
{
    const __m256i m16 = _mm256_set1_epi32(0xffff), m32 = _mm256_set1_epi64x(0xffffffff);
    *c = _mm256_or_si256(_mm256_and_si256(*c, m16),
                         _mm256_sllv_epi32(_mm256_srli_epi32(*c, 16), _mm256_and_si256(*n, m16)));
    *n = _mm256_madd_epi16(*n, _mm256_set1_epi16(1));
    *c = _mm256_or_si256(_mm256_and_si256(*c, m32),
                         _mm256_sllv_epi64(_mm256_srli_epi64(*c, 32), _mm256_and_si256(*n, m32)));
    *n = _mm256_add_epi32(*n, _mm256_srli_epi64(*n, 32));
}

/* The codes of the 32 bytes x where keep is 0xff (none for the others)
 * into the bit writer, in the bytes' order. */
static ALWAYS_INLINE AVX2B void put32(bitw *w, __m256i x, __m256i keep, const nib_tabs *tb)
{
    const __m256i nib = _mm256_set1_epi8(15), zero = _mm256_setzero_si256();
    const __m256i lo = _mm256_and_si256(x, nib);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nib);
    /* the bytes 0-15 and 240-255: x + 112 > 95 as signed bytes; blendv
     * picks the second table for the bytes with the top bit (240-255) */
    const __m256i edge =
        _mm256_cmpgt_epi8(_mm256_add_epi8(x, _mm256_set1_epi8(112)), _mm256_set1_epi8(95));
    __m256i len = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab16(tb->lo_len), lo),
                                     _mm256_shuffle_epi8(tab16(tb->hi_len), lo), x);
    __m256i code = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab16(tb->lo_code), lo),
                                      _mm256_shuffle_epi8(tab16(tb->hi_code), lo), x);
    const unsigned short_codes = (unsigned)_mm256_movemask_epi8(
        _mm256_or_si256(edge, _mm256_andnot_si256(keep, _mm256_set1_epi8(-1))));
    if (short_codes == 0xffffffffu) {
        /* Codes of at most 8 bits: eight to a 64-bit lane. Pairs: the odd
         * byte's code shifted by the even byte's length as a multiply,
         * (o << 8) * (2^(n - 1) << 8) >> 16, doubled. */
        len = _mm256_and_si256(len, keep);
        code = _mm256_and_si256(code, keep);
        const __m256i half = _mm256_setr_epi8(0, 1, 2, 4, 8, 16, 32, 64, (char)128, 0, 0, 0, 0,
                                              0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, (char)128, 0,
                                              0, 0, 0, 0, 0, 0);
        const __m256i m8 = _mm256_set1_epi16(0xff);
        const __m256i prod = _mm256_slli_epi16(_mm256_shuffle_epi8(half, len), 8);
        const __m256i odd = _mm256_mulhi_epu16(_mm256_andnot_si256(m8, code), prod);
        __m256i c = _mm256_or_si256(_mm256_and_si256(code, m8), _mm256_add_epi16(odd, odd));
        __m256i n = _mm256_maddubs_epi16(len, _mm256_set1_epi8(1));
        join_lanes(&c, &n);
        uint64_t cs[4], ns[4];
        _mm256_storeu_si256((__m256i *)(void *)cs, c);
        _mm256_storeu_si256((__m256i *)(void *)ns, n);
        for (int i = 0; i < 4; i++) {
            unsigned k = (unsigned)ns[i];
            uint64_t v = cs[i];
            if (k > 56) { /* up to 64 bits: put takes 56 at most */
                put(w, v & 0xffff, 16);
                v >>= 16;
                k -= 16;
            }
            put(w, v, k);
        }
        return;
    }
    /* The groups' bytes: the code's top from the high nibble (the group's
     * first code's top, plus one where the low nibbles' sum carries), its
     * last four bits from the sum. */
    const __m256i sum = _mm256_add_epi8(_mm256_shuffle_epi8(tab16(tb->g_add), hi), lo);
    const __m256i carry = _mm256_cmpgt_epi8(sum, nib);
    const __m256i rev4 = _mm256_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15, 0,
                                          8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15);
    const __m256i r4 = _mm256_and_si256(
        _mm256_andnot_si256(edge, _mm256_shuffle_epi8(rev4, _mm256_and_si256(sum, nib))), keep);
    const __m256i top = _mm256_blendv_epi8(_mm256_shuffle_epi8(tab16(tb->g_top), hi),
                                           _mm256_shuffle_epi8(tab16(tb->g_top1), hi), carry);
    len = _mm256_and_si256(_mm256_blendv_epi8(_mm256_shuffle_epi8(tab16(tb->g_len), hi), len, edge),
                           keep);
    code = _mm256_and_si256(_mm256_blendv_epi8(top, code, edge), keep);
    /* Codes of up to 12 bits, one to a 16-bit lane: a = bytes 0-7 and
     * 16-23, b = bytes 8-15 and 24-31; the last four bits shifted by L - 4
     * as a multiply by g_mul. */
    const __m256i mlo = _mm256_shuffle_epi8(tab16(tb->g_mul_lo), hi);
    const __m256i mhi = _mm256_shuffle_epi8(tab16(tb->g_mul_hi), hi);
    __m256i la = _mm256_unpacklo_epi8(len, zero), lb = _mm256_unpackhi_epi8(len, zero);
    __m256i ca = _mm256_or_si256(_mm256_unpacklo_epi8(code, zero),
                                 _mm256_mullo_epi16(_mm256_unpacklo_epi8(r4, zero),
                                                    _mm256_unpacklo_epi8(mlo, mhi)));
    __m256i cb = _mm256_or_si256(_mm256_unpackhi_epi8(code, zero),
                                 _mm256_mullo_epi16(_mm256_unpackhi_epi8(r4, zero),
                                                    _mm256_unpackhi_epi8(mlo, mhi)));
    /* the first join in join_lanes takes 16-bit lanes of one code each */
    join_lanes(&ca, &la);
    join_lanes(&cb, &lb);
    uint64_t c[8], n[8];
    _mm256_storeu_si256((__m256i *)(void *)c, ca);
    _mm256_storeu_si256((__m256i *)(void *)(c + 4), cb);
    _mm256_storeu_si256((__m256i *)(void *)n, la);
    _mm256_storeu_si256((__m256i *)(void *)(n + 4), lb);
    static const uint8_t order[8] = {0, 1, 4, 5, 2, 3, 6, 7};
    for (int i = 0; i < 8; i++) put(w, c[order[i]], (unsigned)n[order[i]]); /* <= 48 bits */
}

/* The literal bytes [p, p + nb) into the bit writer w, returned; the input
 * is readable up to safe (the last step reads 32 bytes only where they are).
 * Returns early, its run cut short, once the writer is at or past stop (each
 * step writes at most RUN_STEP_MAX bytes past where the writer was).
 * The writer goes in and out by value, as put_block keeps it in a local: where
 * the compiler does not inline this function (GCC -O2 did not), a writer
 * behind a pointer is stored and reloaded around every 8-byte write, which
 * may alias it (a GCC -O2 build of the fast setting took 1.05x the time). */
static inline AVX2B bitw put_run(bitw w, const uint8_t *p, size_t nb, const nib_tabs *tb,
                                 const uint8_t *safe, const uint8_t *stop)
{
    /* the first nb of 32 bytes: ramp + 32 - nb */
    static const uint8_t ramp[64] = {
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255,
        255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255};
    uint8_t tmp[32];
    for (;;) {
        const size_t k = nb < 32 ? nb : 32;
        const uint8_t *q = p;
        if (k < 32 && (size_t)(safe - p) < 32) { /* the input's end: no read past it */
            memset(tmp, 0, sizeof tmp);
            memcpy(tmp, p, k);
            q = tmp;
        }
        put32(&w, _mm256_loadu_si256((const __m256i *)(const void *)q),
              _mm256_loadu_si256((const __m256i *)(const void *)(ramp + 32 - k)), tb);
        if (nb <= 32 || w.p >= stop) return w;
        p += 32;
        nb -= 32;
    }
}
#endif

/* Write the block of tk (covering in[0, n)). CG_E_PNG when out of room
 * (cannot happen with cg_zd_bound). */
static ALWAYS_INLINE cg_status put_block(bitw *w, const uint8_t *in, size_t n, tokens *tk,
                                         int final, const uint8_t *out_end, const int runs,
                                         const uint8_t *safe)
{
    (void)safe;
    for (int b = 0; b < 256; b++) tk->len[b] = tk->lit[0][b] + tk->lit[1][b] + tk->lit[2][b];
    if (runs && tk->counted != 0) /* a sample of the rows: scaled to the block */
        for (int b = 0; b < 256; b++)
            tk->len[b] = (uint32_t)((uint64_t)tk->len[b] * tk->rows / tk->counted);
    tk->len[256] = 1; /* end of block */
    uint8_t llen[LITLEN_SYMS], dlen[DIST_SYMS], cllen[CL_SYMS];
    uint16_t lcode[LITLEN_SYMS] = {0}, dcode[DIST_SYMS] = {0}, clcode[CL_SYMS] = {0};
    if (runs)
        nibble_lengths(tk->len, llen);
    else
        cg_zd_huff_lengths(tk->len, LITLEN_SYMS, MAX_BITS, llen);
    cg_zd_huff_lengths(tk->dist, DIST_SYMS, MAX_BITS, dlen);
    int hlit = LITLEN_SYMS, hdist = DIST_SYMS;
    while (hlit > 257 && llen[hlit - 1] == 0) hlit--;
    while (hdist > 1 && dlen[hdist - 1] == 0) hdist--;
    uint8_t seq[LITLEN_SYMS + DIST_SYMS];
    memcpy(seq, llen, (size_t)hlit);
    memcpy(seq + hlit, dlen, (size_t)hdist);
    uint16_t rle[LITLEN_SYMS + DIST_SYMS];
    uint32_t cl_freq[CL_SYMS] = {0};
    int nrle = rle_lengths(seq, hlit + hdist, rle, cl_freq);
    cg_zd_huff_lengths(cl_freq, CL_SYMS, CL_MAX_BITS, cllen);
    int hclen = CL_SYMS;
    while (hclen > 4 && cllen[cl_order[hclen - 1]] == 0) hclen--;

    /* The dynamic block's exact size in bits: its header, then (not runs)
     * its symbols. With runs the literal counts are a sample, so the size is
     * known once written: the block is written until it reaches the stored
     * size (stop), and then replaced by stored blocks; that needs room for
     * the stored size and one step of the writer more, which cg_zd_bound
     * leaves. (Asking room for a bound on the block, every literal byte at
     * the longest code, up to 1.5x the stored size, sent the frames of one
     * block, the small ones, to stored blocks: 1.1-2.6x libpng's bytes at
     * 64x64.) */
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)hclen;
    for (int s = 0; s < CL_SYMS; s++) bits += (uint64_t)cl_freq[s] * (cllen[s] + cl_extra[s]);
    if (!runs) {
        for (int s = 0; s < LITLEN_SYMS; s++) {
            unsigned eb = s >= 265 && s < 285 ? (unsigned)(s - 261) / 4 : 0;
            bits += (uint64_t)tk->len[s] * (llen[s] + eb);
        }
        for (int s = 0; s < DIST_SYMS; s++)
            bits += (uint64_t)tk->dist[s] * (dlen[s] + (s >= 4 ? (unsigned)s / 2 - 1 : 0));
    }

    const size_t room = (size_t)(out_end - w->p);
    const bitw start = *w;
    if (bits / 8 + 16 >= stored_size(n)) {
        CG_RETURN_IF(room < stored_size(n) + 16, CG_E_PNG);
        put_stored(w, in, n, final);
        return CG_OK;
    }
    CG_RETURN_IF(room < (runs ? stored_size(n) + RUN_STEP_MAX + 16 : bits / 8 + 16), CG_E_PNG);

    huff_codes(llen, LITLEN_SYMS, lcode);
    huff_codes(dlen, DIST_SYMS, dcode);
    huff_codes(cllen, CL_SYMS, clcode);
    put(w, (unsigned)final | 2u << 1, 3);
    put(w, (unsigned)(hlit - 257), 5);
    put(w, (unsigned)(hdist - 1), 5);
    put(w, (unsigned)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++) put(w, cllen[cl_order[i]], 3);
    for (int i = 0; i < nrle; i++) {
        unsigned s = rle[i] & 0xff;
        put(w, clcode[s], cllen[s]);
        if (cl_extra[s]) put(w, rle[i] >> 8, cl_extra[s]);
    }

    /* Lengths with their extra bits in one code each. */
    uint32_t lfull[MAX_MATCH + 1];
    uint8_t lbits[MAX_MATCH + 1];
    for (unsigned l = 3; l <= MAX_MATCH; l++) {
        const len_info li = tk->len_tab[l];
        lfull[l] = lcode[li.sym] | (uint32_t)li.extra << llen[li.sym];
        lbits[l] = (uint8_t)(llen[li.sym] + li.extra_bits);
    }
    uint64_t dfull[DIST_SYMS];
    for (int c = 0; c < DIST_SYMS; c++) dfull[c] = dcode[c];
    /* The writer in a local: its bytes go out through a uint8_t pointer,
     * which could alias *w, so put(w, ...) would reload *w every time. */
    bitw lw = *w;
    const uint32_t *t = tk->t, *const te = tk->t + tk->n;
#if defined(CG_ZD_STARTS8)
    if (runs) { /* runs of literal bytes and matches only */
        const uint8_t *const stop = start.p + stored_size(n);
        nib_tabs nt;
        nib_tables(llen, lcode, &nt);
        const uint8_t *p = in;
        for (; t < te && lw.p < stop; t++) {
            const uint32_t v = *t;
            if (v < TOK_MATCH) {
                const size_t nb = v - TOK_RUN;
                if (nb < SHORT_RUN) { /* a pixel or byte a write */
                    size_t i = 0;
                    if (nb % BPP != 0) put(&lw, lcode[p[0]], llen[p[0]]), i = 1;
                    for (; i < nb; i += BPP) {
                        const unsigned b0 = p[i], b1 = p[i + 1], b2 = p[i + 2];
                        const unsigned l0 = llen[b0], l01 = l0 + llen[b1];
                        put(&lw, lcode[b0] | (uint64_t)lcode[b1] << l0 | (uint64_t)lcode[b2] << l01,
                            l01 + llen[b2]);
                    }
                } else {
                    lw = put_run(lw, p, nb, &nt, safe, stop);
                }
                p += nb;
            } else {
                const unsigned l = (v >> 16) & 0x1ff, d = v & 0xffff, dc = (v >> 25) & 31;
                const unsigned eb = dc >= 4 ? dc / 2 - 1 : 0;
                const uint64_t dist = dfull[dc] | (uint64_t)((d - 1) & ((1u << eb) - 1))
                                                      << dlen[dc];
                put(&lw, lfull[l] | dist << lbits[l], lbits[l] + dlen[dc] + eb);
                p += l;
            }
        }
        t = te;
    }
#endif
    for (; t < te; t++) {
        const uint32_t v = *t;
        if (v < TOK_BYTE) { /* a pixel: three codes of at most 15 bits */
            const unsigned b0 = v & 0xff, b1 = (v >> 8) & 0xff, b2 = v >> 16;
            const unsigned l0 = llen[b0], l01 = l0 + llen[b1];
            put(&lw, lcode[b0] | (uint64_t)lcode[b1] << l0 | (uint64_t)lcode[b2] << l01,
                l01 + llen[b2]);
        } else if (v < TOK_MATCH) {
            put(&lw, lcode[v & 0xff], llen[v & 0xff]);
        } else { /* length (<= 20 bits) and distance (<= 28 bits) together */
            const unsigned l = (v >> 16) & 0x1ff, d = v & 0xffff, dc = (v >> 25) & 31;
            const unsigned eb = dc >= 4 ? dc / 2 - 1 : 0;
            const uint64_t dist = dfull[dc] | (uint64_t)((d - 1) & ((1u << eb) - 1)) << dlen[dc];
            put(&lw, lfull[l] | dist << lbits[l], lbits[l] + dlen[dc] + eb);
        }
    }
    put(&lw, lcode[256], llen[256]);
    *w = lw;
    if (runs && (size_t)(w->p - start.p) >= stored_size(n)) {
        *w = start;
        put_stored(w, in, n, final);
    }
    return CG_OK;
}

/* ---- the stream ----------------------------------------------------------- */

size_t cg_zd_bound(size_t n)
{
    /* 2 header bytes, stored-size blocks (the worst case, see put_block),
     * one block per row group at most, the Adler-32, 8 bytes of store slack. */
    size_t blocks = n / (BLOCK_TOKENS / 2) + 2; /* a block holds >= BLOCK_TOKENS / 2 bytes */
    return n + (n / STORED_MAX + 1) * 5 + blocks * 24 + 2 + 4 + 64;
}

/* The work memory's parts: the token counts, the tokens of one block, the
 * table; each from a 64-byte boundary (the work memory's first one: it may
 * start anywhere, and a table row must not straddle two cache lines). */
enum { PART_ALIGN = 64 };

static size_t part(size_t n)
{
    return (n + PART_ALIGN - 1) / PART_ALIGN * PART_ALIGN;
}

static size_t block_tokens(int level)
{
    return level == 1 ? BLOCK_TOKENS_FAST : BLOCK_TOKENS;
}

/* Where the table starts in the aligned work memory: after the token
 * counts and the tokens of one block (rows while the tokens of one more row
 * still fit). */
static size_t table_at(int level, size_t row)
{
    return part(sizeof(tokens)) + part((block_tokens(level) + row) * sizeof(uint32_t));
}

/* The table's size: level 1's own (pairs), the rows at levels 2 and 3. */
static size_t table_size(int level)
{
    return level == 1 ? sizeof(pairs) : sizeof(rows);
}

size_t cg_zd_work_size(int level, size_t row)
{
    if (level < CG_PNG_OWN_LEVEL_MIN || level > CG_PNG_OWN_LEVEL_MAX) return 0;
    if (row > (SIZE_MAX - 4 * PART_ALIGN - sizeof(tokens) - sizeof(rows)) / 4 - BLOCK_TOKENS_FAST)
        return 0;
    return PART_ALIGN - 1 + table_at(level, row) + part(table_size(level));
}

cg_status cg_zd_compress(int level, const uint8_t *in, size_t n, size_t row, uint8_t *out,
                         size_t cap, size_t *out_len)
{
    const size_t need = cg_zd_work_size(level, row);
    CG_RETURN_IF(need == 0, CG_E_INVALID_ARG);
    void *work = malloc(need);
    CG_RETURN_IF(work == NULL, CG_E_NO_MEMORY);
    const cg_status st = cg_zd_compress_in(work, need, level, in, n, row, out, cap, out_len);
    free(work);
    return st;
}

/* The stream, arguments checked. simd: level 1's four-pixel check (the
 * AVX2 + BMI2 path only: the portable path keeps the per-pixel loop, the
 * reference the tests compare the other with, byte for byte). */
static ALWAYS_INLINE cg_status compress_body(void *work, int level, const uint8_t *in, size_t n,
                                             size_t row, uint8_t *out, size_t cap,
                                             size_t *out_len, const int simd)
{
    const size_t max_tokens = block_tokens(level);
    uint8_t *const wb = (uint8_t *)work + (PART_ALIGN - (uintptr_t)work % PART_ALIGN) % PART_ALIGN;
    tokens *const tk = (tokens *)(void *)wb;
    tk->t = (uint32_t *)(void *)(wb + part(sizeof(tokens)));
    void *const table = wb + table_at(level, row);
    memset(table, 0, table_size(level));
    rows *const tb = level == 1 ? NULL : (rows *)table;
    pairs *const pt = level == 1 ? (pairs *)table : NULL;
    for (unsigned l = 3; l <= MAX_MATCH; l++) tk->len_tab[l] = length_info(l);
    tk->probe_credit = PROBE_CREDIT;
    tk->probe_skipped = 0;
    tk->flat = 0;
    tk->flat_rest = 0;
    tk->plain_rows = 0;
    tk->trial = 0;
    tk->plain_lit = row - 1;
    tk->plain_tokens = (row - 1) / BPP;
    tk->table_bytes = 0;
    tk->gate_rest = 0;
    tk->gate_rest_len = GATE_REST;
    tk->gate_credit = GATE_CREDIT;
    tk->searched = 0;
    bitw w = {0, 0, out};
    const uint8_t *const out_end = out + cap;
    out[0] = 0x78; /* deflate, 32 KiB window */
    out[1] = 0x01; /* fastest-level hint; (0x78 << 8 | 0x01) % 31 == 0 */
    w.p = out + 2;
    cg_status st = CG_OK;
    size_t s = 0;
    while (st == CG_OK && s < n) {
        size_t b0 = s;
        tk->n = 0;
        tk->run_extra = 0;
        tk->rows = tk->counted = 0;
        tk->lit_bytes = 0;
        memset(tk->lit, 0, sizeof tk->lit);
        memset(tk->len, 0, sizeof tk->len);
        memset(tk->dist, 0, sizeof tk->dist);
        do {
            tk->count = tk->rows % LIT_SAMPLE == 0;
            tk->counted += (unsigned)tk->count;
            tk->rows++;
            tokenize(level, in, s, row, tb, pt, tk, simd);
            s += row;
        } while (s < n && tk->n + tk->run_extra + row <= max_tokens);
        st = put_block(&w, in + b0, s - b0, tk, s == n, out_end, simd && level == 1,
                       in + n + CG_ZD_SLACK);
    }
    CG_TRY(st);
    CG_RETURN_IF(out_end - w.p < 16, CG_E_PNG);
    align(&w);
    uint32_t ad = cg_adler32(1, in, n);
    w.p[0] = (uint8_t)(ad >> 24);
    w.p[1] = (uint8_t)(ad >> 16);
    w.p[2] = (uint8_t)(ad >> 8);
    w.p[3] = (uint8_t)ad;
    *out_len = (size_t)(w.p + 4 - out);
    return CG_OK;
}

static cg_status compress_portable(void *work, int level, const uint8_t *in, size_t n, size_t row,
                                   uint8_t *out, size_t cap, size_t *out_len)
{
    return compress_body(work, level, in, n, row, out, cap, out_len, 0);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CG_ZD_V3 1
/* The same code for CPUs with AVX2 and BMI2 (flag-free variable shifts for
 * the bit writer, VEX-coded table compares), and level 1's four-pixel check. */
__attribute__((target("avx2,bmi,bmi2"))) static cg_status
compress_v3(void *work, int level, const uint8_t *in, size_t n, size_t row, uint8_t *out,
            size_t cap, size_t *out_len)
{
    return compress_body(work, level, in, n, row, out, cap, out_len, 1);
}
#endif

cg_status cg_zd_compress_in(void *work, size_t work_len, int level, const uint8_t *in, size_t n,
                            size_t row, uint8_t *out, size_t cap, size_t *out_len)
{
    return cg_zd_compress_in_path(CG_ZD_PATH_BEST, work, work_len, level, in, n, row, out, cap,
                                  out_len);
}

static int have_v3(void)
{
#if defined(CG_ZD_V3)
    return cg_simd_available(CG_SIMD_AVX2) && __builtin_cpu_supports("bmi2");
#else
    return 0;
#endif
}

cg_status cg_zd_compress_in_path(int path, void *work, size_t work_len, int level,
                                 const uint8_t *in, size_t n, size_t row, uint8_t *out,
                                 size_t cap, size_t *out_len)
{
    CG_RETURN_IF(path != CG_ZD_PATH_BEST && path != CG_ZD_PATH_PORTABLE &&
                     path != CG_ZD_PATH_AVX2_BMI2,
                 CG_E_INVALID_ARG);
    const int v3 = have_v3();
    CG_RETURN_IF(path == CG_ZD_PATH_AVX2_BMI2 && !v3, CG_E_UNSUPPORTED);
    CG_RETURN_IF(in == NULL || out == NULL || out_len == NULL || work == NULL, CG_E_INVALID_ARG);
    CG_RETURN_IF(row < 1 + BPP || (row - 1) % BPP != 0 || n % row != 0, CG_E_INVALID_ARG);
    CG_RETURN_IF(cap < cg_zd_bound(n), CG_E_BUFFER_TOO_SMALL);
    CG_RETURN_IF(level < CG_PNG_OWN_LEVEL_MIN || level > CG_PNG_OWN_LEVEL_MAX, CG_E_INVALID_ARG);
    CG_RETURN_IF(work_len < cg_zd_work_size(level, row), CG_E_BUFFER_TOO_SMALL);
#if defined(CG_ZD_V3)
    if (path != CG_ZD_PATH_PORTABLE && v3)
        return compress_v3(work, level, in, n, row, out, cap, out_len);
#endif
    return compress_portable(work, level, in, n, row, out, cap, out_len);
}
