/*
 * bench_prof.h - a poor man's sampling profiler for one timed call of a
 * benchmark, where perf is not installed (the GPU machine): SIGPROF every
 * 100 us of the process's CPU time records the call stack, but only while
 * bench_prof_in is set (inside the timed call). At the end, for each
 * sample (frame 0 is the handler, 1 the signal trampoline), the innermost frame that dladdr names in the benchmark's own
 * binary (the library's global functions, exported with -rdynamic) and the
 * innermost frame's shared object are counted, and the table is written to
 * a file. Header-only, for one translation unit; needs _GNU_SOURCE.
 */
#ifndef BENCH_PROF_H
#define BENCH_PROF_H

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#define BENCH_PROF_MAX 20000
#define BENCH_PROF_DEPTH 24

static volatile sig_atomic_t bench_prof_in;
static void *bench_prof_stack[BENCH_PROF_MAX][BENCH_PROF_DEPTH];
static int bench_prof_depth[BENCH_PROF_MAX];
static volatile int bench_prof_n;

static void bench_prof_handler(int sig)
{
    (void)sig;
    if (!bench_prof_in || bench_prof_n >= BENCH_PROF_MAX) return;
    int i = bench_prof_n++;
    bench_prof_depth[i] = backtrace(bench_prof_stack[i], BENCH_PROF_DEPTH);
}

static void bench_prof_start(void)
{
    void *warm[4];
    backtrace(warm, 4); /* loads the unwinder outside the handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = bench_prof_handler;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval it = {{0, 100}, {0, 100}};
    setitimer(ITIMER_PROF, &it, NULL);
}

/* The table: "<our innermost named function> <- <innermost object>: count". */
static void bench_prof_write(const char *path)
{
    struct itimerval off;
    memset(&off, 0, sizeof off);
    setitimer(ITIMER_PROF, &off, NULL);
    FILE *f = fopen(path, "w");
    if (!f) return;
    enum { KEYS = 256 };
    static char key[KEYS][256];
    static int count[KEYS];
    int nk = 0, n = bench_prof_n;
    Dl_info self;
    memset(&self, 0, sizeof self);
    dladdr((void *)bench_prof_write, &self);
    for (int i = 0; i < n; i++) {
        const char *ours = "?", *inner = "?", *inner_sym = "";
        Dl_info d;
        if (bench_prof_depth[i] > 2 && dladdr(bench_prof_stack[i][2], &d)) {
            inner = d.dli_fname ? strrchr(d.dli_fname, '/') ? strrchr(d.dli_fname, '/') + 1
                                                          : d.dli_fname
                                : "?";
            inner_sym = d.dli_sname ? d.dli_sname : "";
        }
        for (int k = 2; k < bench_prof_depth[i]; k++)
            if (dladdr(bench_prof_stack[i][k], &d) && d.dli_fbase == self.dli_fbase && d.dli_sname) {
                ours = d.dli_sname;
                break;
            }
        char s[256];
        snprintf(s, sizeof s, "%s <- %s %s", ours, inner, inner_sym);
        int k = 0;
        while (k < nk && strcmp(key[k], s)) k++;
        if (k == nk && nk < KEYS) snprintf(key[nk++], sizeof key[0], "%s", s);
        if (k < KEYS) count[k]++;
    }
    fprintf(f, "%d samples of 100 us CPU inside the timed call\n", n);
    for (int k = 0; k < nk; k++)
        if (count[k] * 100 >= n) fprintf(f, "%6d %5.1f%%  %s\n", count[k], 100.0 * count[k] / n, key[k]);
    fclose(f);
}

#endif /* BENCH_PROF_H */
