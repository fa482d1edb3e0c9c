/* make bench: one process, one table. Each bench_*.c file adds rows through a
   section function; main calls the sections that are linked in, or only the
   ones named on the command line (bench core subjects ...; bench/compare.sh
   runs them one at a time). */
#include "bench.h"
#include <stdio.h>
#include <string.h>

__attribute__((weak)) void bench_core(void);
__attribute__((weak)) void bench_subjects(void);
__attribute__((weak)) void bench_operators(void);
__attribute__((weak)) void bench_combining(void);
__attribute__((weak)) void bench_schedulers(void);
__attribute__((weak)) void bench_costs(void);
__attribute__((weak)) void bench_trace(void);
__attribute__((weak)) void bench_pipeline(void);
__attribute__((weak)) void bench_os(void);

static const struct {
    const char *name;
    void (*run)(void);
} sections[] = {
    { "core", bench_core },           { "subjects", bench_subjects }, { "operators", bench_operators },
    { "combining", bench_combining }, { "schedulers", bench_schedulers }, { "costs", bench_costs },
    { "trace", bench_trace },         { "pipeline", bench_pipeline }, { "os", bench_os },
};
enum { SECTIONS = sizeof sections / sizeof sections[0] };

int main(int argc, char **argv) {
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (int i = 0; i < SECTIONS; i++) known |= !strcmp(argv[a], sections[i].name);
        if (!known) {
            fprintf(stderr, "usage: %s [section...]; sections:", argv[0]);
            for (int i = 0; i < SECTIONS; i++) fprintf(stderr, " %s", sections[i].name);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    bench_header();
    for (int i = 0; i < SECTIONS; i++) {
        int chosen = argc == 1;
        for (int a = 1; a < argc; a++) chosen |= !strcmp(argv[a], sections[i].name);
        if (chosen && sections[i].run) sections[i].run();
    }
    return 0;
}
