/*
 * cg_png_internal.h - the PNG encoder's parts, shared by its own files and
 * its tests only.
 *
 * The encoder writes the PNG container (signature, IHDR, IDAT, IEND, CRC-32)
 * and the row filters itself. The zlib stream comes from the project's own
 * deflate encoder (cg_png_zdeflate.c), or on request from a deflate library
 * loaded with dlopen at first use: libdeflate (libdeflate.so.0), else zlib
 * (libz.so.1). Neither is a load-time dependency of the library, so a
 * player's machine without them still loads it and encodes PNG.
 */
#ifndef CG_PNG_INTERNAL_H
#define CG_PNG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cg_frame.h"

/* ---- CRC-32 (ISO 3309, as PNG chunks use it) ------------------------------ */

/* Continue crc (0 to start) over n bytes. */
uint32_t cg_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* The bytewise table reference, for the tests. */
uint32_t cg_crc32_bytewise(uint32_t crc, const uint8_t *p, size_t n);

/* ---- row filters (bytes per pixel: 3) ------------------------------------- */

enum { CG_PNG_NFILTERS = 5 }; /* PNG filter types 0..4: none sub up avg paeth */

/* Filter one row of n bytes: out[0] = the filter type picked among `mask`
 * (CG_PNG_FILTER_* bits; more than one: the smallest sum of absolute signed
 * residuals, libpng's heuristic, ties to the lower type), out[1..n] = the
 * filtered bytes. prev: the row above, or a row of n zero bytes for the
 * first row. Returns the type written. */
typedef int (*cg_png_filter_fn)(const uint8_t *row, const uint8_t *prev, size_t n, int mask,
                                uint8_t *out);

/* Portable reference, and the fastest this CPU runs (same output). */
int cg_png_filter_row_scalar(const uint8_t *row, const uint8_t *prev, size_t n, int mask,
                             uint8_t *out);
cg_png_filter_fn cg_png_filter_best(void);

/* ---- deflate libraries, loaded at run time -------------------------------- */

typedef enum cg_deflate_kind { CG_DEFLATE_LIBDEFLATE = 1, CG_DEFLATE_ZLIB = 2 } cg_deflate_kind;

typedef struct cg_deflate_lib cg_deflate_lib;

/* Open the first of the two shared objects that loads and has the functions
 * (either name may be NULL to skip it). CG_E_UNSUPPORTED when neither does;
 * CG_E_NO_MEMORY. *out is NULL on failure. */
cg_status cg_deflate_open(const char *libdeflate_soname, const char *zlib_soname,
                          cg_deflate_lib **out);
void cg_deflate_close(cg_deflate_lib *lib); /* NULL is a no-op */
cg_deflate_kind cg_deflate_lib_kind(const cg_deflate_lib *lib);

/* The process's library: opened once ("libdeflate.so.0", else "libz.so.1"),
 * never closed. NULL when neither loads. Thread-safe. */
const cg_deflate_lib *cg_deflate_default(void);

/* The library for a cg_png_options strategy: -1: cg_deflate_default();
 * 0..4: zlib (opened once, on first need), else the default (libdeflate,
 * which has no strategies). */
const cg_deflate_lib *cg_deflate_for_strategy(int strategy);

/* A sentence saying why cg_deflate_default() is NULL: which libraries the
 * build loads and what to install (static storage). */
const char *cg_deflate_unavailable_reason(void);

/* Worst-case size of the zlib stream for n input bytes. */
size_t cg_deflate_bound(const cg_deflate_lib *lib, size_t n);

/* Compress n bytes into one zlib stream (RFC 1950) at out (cap bytes, at
 * least cg_deflate_bound). level 0..9; strategy -1 for the library's
 * default, 0..4 zlib's strategies (only zlib has them: libdeflate ignores
 * it). Sets *out_len. CG_E_NO_MEMORY, CG_E_PNG. */
cg_status cg_deflate_zlib(const cg_deflate_lib *lib, int level, int strategy, const uint8_t *in,
                          size_t n, uint8_t *out, size_t cap, size_t *out_len);

/* ---- the project's own deflate encoder (cg_png_zdeflate.c) --------------- */

/* Adler-32 (RFC 1950) continued over n bytes (1 to start); the portable
 * reference and the fastest this CPU runs (same result). */
uint32_t cg_adler32_scalar(uint32_t adler, const uint8_t *p, size_t n);
uint32_t cg_adler32(uint32_t adler, const uint8_t *p, size_t n);

/* Huffman code lengths for the n symbols with counts freq (n <= 286),
 * none above max_bits: a complete prefix code (Kraft's sum exactly 1),
 * unused symbols 0; with fewer than two symbols used, an unused one gets a
 * code too so the code stays complete. */
void cg_zd_huff_lengths(const uint32_t *freq, int n, int max_bits, uint8_t *len);

/* The most bytes cg_zd_compress writes for n input bytes. */
size_t cg_zd_bound(size_t n);

/* Bytes past the input cg_zd_compress may read (never uses): the caller
 * keeps them readable. */
enum { CG_ZD_SLACK = 8 };

/* One zlib stream of n bytes of filtered PNG rows of `row` bytes each
 * (filter byte + 3-byte pixels; n a multiple of row; n + CG_ZD_SLACK bytes
 * readable at in) at level 1..3
 * (CG_PNG_OWN_LEVEL_*). cap >= cg_zd_bound(n). Sets *out_len.
 * CG_E_INVALID_ARG, CG_E_BUFFER_TOO_SMALL, CG_E_NO_MEMORY. */
cg_status cg_zd_compress(int level, const uint8_t *in, size_t n, size_t row, uint8_t *out,
                         size_t cap, size_t *out_len);

/* The same in work memory of the caller's: work_len >= cg_zd_work_size(level,
 * row) bytes, aligned as malloc aligns (0: a level or row out of range).
 * cg_zd_compress allocates it each call. */
size_t cg_zd_work_size(int level, size_t row);
cg_status cg_zd_compress_in(void *work, size_t work_len, int level, const uint8_t *in, size_t n,
                            size_t row, uint8_t *out, size_t cap, size_t *out_len);

/* cg_zd_compress_in's code paths: the same source compiled for any CPU, and
 * for x86-64 CPUs with AVX2 and BMI2; BEST picks the second where the CPU
 * has it. Both write the same bytes. CG_E_UNSUPPORTED: AVX2_BMI2 asked for
 * where this build or CPU has none. */
enum { CG_ZD_PATH_BEST = 0, CG_ZD_PATH_PORTABLE = 1, CG_ZD_PATH_AVX2_BMI2 = 2 };
cg_status cg_zd_compress_in_path(int path, void *work, size_t work_len, int level,
                                 const uint8_t *in, size_t n, size_t row, uint8_t *out,
                                 size_t cap, size_t *out_len);

/* ---- the encoder with a given library ------------------------------------- */

/* cg_png_encode_rgb with the deflate library chosen by the caller (used
 * when opt->deflate is CG_PNG_DEFLATE_LIBRARY; NULL: CG_E_UNSUPPORTED). */
cg_status cg_png_encode_rgb_with(const cg_deflate_lib *lib, const uint8_t *rgb, int w, int h,
                                 size_t stride, const cg_png_options *opt, cg_buf *out);

#endif /* CG_PNG_INTERNAL_H */
