/* make bench: one process, one table. Each bench_*.c file adds rows through a
   section function; main calls the sections that are linked in. */
#include "bench.h"
#include <stdio.h>

__attribute__((weak)) void bench_core(void);
__attribute__((weak)) void bench_subjects(void);
__attribute__((weak)) void bench_operators(void);
__attribute__((weak)) void bench_combining(void);
__attribute__((weak)) void bench_schedulers(void);
__attribute__((weak)) void bench_costs(void);
__attribute__((weak)) void bench_trace(void);
__attribute__((weak)) void bench_pipeline(void);
__attribute__((weak)) void bench_os(void);

int main(void) {
    bench_header();
    if (bench_core) bench_core();
    if (bench_subjects) bench_subjects();
    if (bench_operators) bench_operators();
    if (bench_combining) bench_combining();
    if (bench_schedulers) bench_schedulers();
    if (bench_costs) bench_costs();
    if (bench_trace) bench_trace();
    if (bench_pipeline) bench_pipeline();
    if (bench_os) bench_os();
    return 0;
}
