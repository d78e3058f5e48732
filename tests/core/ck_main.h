#ifndef CK_MAIN_H
#define CK_MAIN_H

#include <check.h>

/* Defined by each test file; ck_main.c runs it. */
Suite *make_suite(void);

/* Optional (weak default: NULL): why this suite would check nothing here. */
const char *suite_skip_reason(void);

#endif
