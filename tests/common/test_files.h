/* Test-only: write bytes to DIR/NAME.EXT, for a host-side checker to read. */
#ifndef CG_TEST_FILES_H
#define CG_TEST_FILES_H

#include <stddef.h>
#include <stdio.h>

/* Nonzero when all n bytes were written and the file closed cleanly. */
static inline int cg_test_write_file(const char *dir, const char *name, const char *ext,
                                     const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    FILE *f = fopen(path, "wb");
    if (f == NULL) return 0;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

#endif /* CG_TEST_FILES_H */
