// C++ rows of `make bench` (issue 13): what ripple.hpp costs per event over
// the C API, on the same workloads, measured side by side in one process.
//
//   subject -> 1 subscriber           ns per delivery
//   subject -> map -> filter -> scan  ns per source event
//   subject -> 100 subscribers        ns per delivery
//
// Each row runs the C-API version and two ripple.hpp versions, Signal and the
// typed Observable<int64_t> (the same arithmetic, lambdas taking int64_t), in
// alternating rounds, timing the sends in chunks, and keeps the fastest chunk
// of each: load on a shared machine inflates some chunks of every side, never
// the fastest.
// Built by `make bench` once per compiler (g++ and clang++, -O2); the target
// is ripple.hpp (both layers) within 10% of the C API on every row.
#include <ripple.hpp>
extern "C" {
#include "bench.h"  // bench_now, bench_chain (bench_chain.c: the C table's chain)
}

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

// Sends `events` values through send(i) in chunks of `chunk` and returns the
// fastest chunk's ns per send: on a shared machine preemption inflates some
// chunks, never the fastest, so the two sides compare undisturbed costs.
template <class Send>
double best_chunk(long events, long chunk, Send send) {
    double best = 1e30;
    for (long base = 0; base < events; base += chunk) {
        double t0 = bench_now();
        for (long i = base; i < base + chunk; i++) send(i);
        best = std::min(best, (bench_now() - t0) * 1e9 / double(chunk));
    }
    return best;
}

// ---- The C-API side, written as a C user would (as bench/bench_*.c) ------
void on_int(void *ctx, const rpl_value *v) { *static_cast<int64_t *>(ctx) += v->as.i; }

// One round through the C API: `subs` subscribers on a fresh subject (through
// the chain when `chained`), `events` sends in chunks; the best chunk's ns per
// unit (delivery, or source event for the chain).
double c_round(int subs, bool chained, long events, long chunk, int64_t &total) {
    rpl_subject_t *subject = rpl_subject_create();
    rpl_signal_t *sig = chained ? bench_chain(reinterpret_cast<rpl_signal_t *>(subject))
                                : static_cast<rpl_signal_t *>(rpl_retain(subject));
    std::vector<rpl_disposable_t *> ds;
    for (int i = 0; i < subs; i++) ds.push_back(rpl_signal_subscribe_next(sig, on_int, &total));
    double ns = best_chunk(events, chunk, [subject](long i) { rpl_subject_send_next(subject, rpl_int(i)); }) /
                double(chained ? 1 : subs);
    for (auto *d : ds) rpl_release(d);
    rpl_release(sig);
    rpl_release(subject);
    return ns;
}

// ---- The same through ripple.hpp: Signal (untyped, with typed lambdas) or
// the typed layer (SubjectOf<int64_t>, Observable<int64_t>) ------------------
template <class Subj, class Sig>
double cpp_round(int subs, bool chained, long events, long chunk, int64_t &total) {
    Subj subject;
    Sig sig = subject;
    if (chained)
        sig = subject.map([](int64_t x) { return x + 1; })
                  .filter([](int64_t x) { return (x & 1) == 0; })
                  .scan(0, [](int64_t acc, int64_t x) { return acc + x; });
    std::vector<ripple::Disposable> ds;
    for (int i = 0; i < subs; i++) ds.push_back(sig.subscribe([&total](int64_t x) { total += x; }));
    return best_chunk(events, chunk, [&subject](long i) { subject.send_next(i); }) / double(chained ? 1 : subs);
}

void row(const char *name, int subs, bool chained, long events, long chunk, int rounds) {
    double c = 1e30, untyped = 1e30, typed = 1e30;
    int64_t c_total = 0, untyped_total = 0, typed_total = 0;
    for (int i = 0; i < rounds; i++) {
        c = std::min(c, c_round(subs, chained, events, chunk, c_total));
        untyped = std::min(untyped, cpp_round<ripple::Subject, ripple::Signal>(subs, chained, events, chunk, untyped_total));
        typed = std::min(typed, cpp_round<ripple::SubjectOf<int64_t>, ripple::Observable<int64_t>>(
                                    subs, chained, events, chunk, typed_total));
    }
    if (c_total != untyped_total || c_total != typed_total || c_total == 0)
        std::fprintf(stderr, "bench_cpp: %s: C and C++ disagree\n", name);
    double r1 = untyped / c, r2 = typed / c;
    std::printf("%-40s %8.2f %8.2f %8.2f %8.3f %8.3f  %s\n", name, c, untyped, typed, r1, r2,
                r1 <= 1.10 && r2 <= 1.10 ? "ok" : "OVER 10%");
}

std::string loadavg() {
    std::ifstream f("/proc/loadavg");
    std::string s;
    std::getline(f, s);
    return s;
}

}  // namespace

int main(int argc, char **argv) {
    // Rounds per row (best kept); an argument overrides, for a quicker look.
    int rounds = argc > 1 ? std::atoi(argv[1]) : 9;
#if defined(__clang__)
#define RIPPLE_STR2(x) #x
#define RIPPLE_STR(x) RIPPLE_STR2(x)
    const char *compiler = "clang++ " RIPPLE_STR(__clang_major__) "." RIPPLE_STR(__clang_minor__) "." RIPPLE_STR(__clang_patchlevel__);
#elif defined(__GNUC__)
    const char *compiler = "g++ " __VERSION__;
#else
    const char *compiler = "unknown compiler";
#endif
    std::printf("ripple.hpp vs the C API, %s, -O2 (%d alternating rounds each, fastest chunk of sends)\n", compiler,
                rounds);
    std::printf("load before: %s\n", loadavg().c_str());
    std::printf("%-40s %8s %8s %8s %8s %8s\n", "ns per unit", "C API", "Signal", "Obs<T>", "Sig / C", "Obs / C");
    row("subject -> 1 subscriber (2M)", 1, false, 2000000L, 50000L, rounds);
    row("subject -> map -> filter -> scan (2M)", 1, true, 2000000L, 50000L, rounds);
    row("subject -> 100 subscribers (50k x 100)", 100, false, 50000L, 1000L, rounds);
    std::printf("load after:  %s\n", loadavg().c_str());
    return 0;
}
