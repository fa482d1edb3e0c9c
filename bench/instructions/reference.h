/* The C references of make bench-instructions (reference.c): W1's, W3's and
   W4's work in plain C, with the rules' checks and no Ripple code. */
#ifndef RIPPLE_BENCH_REFERENCE_H
#define RIPPLE_BENCH_REFERENCE_H
#include <ripple.h>

typedef struct ref_subject ref_subject;
typedef struct ref_member ref_member;

ref_subject *ref_subject_create(void);
void ref_subject_destroy(ref_subject *s);
void ref_subject_send_next(ref_subject *s, rpl_value v);
ref_member *ref_subscribe(ref_subject *s, const rpl_observer *o);
void ref_dispose(ref_member *m);
void ref_release(ref_member *m);
/* map(fn: map) -> filter(fn: filter) -> scan(0, fn: scan) -> observer on s:
   the callbacks of bench_chain.c, passed as pointers. */
typedef rpl_value (*ref_map_fn)(void *ctx, const rpl_value *v);
typedef bool (*ref_filter_fn)(void *ctx, const rpl_value *v);
typedef rpl_value (*ref_scan_fn)(void *ctx, const rpl_value *acc, const rpl_value *v);
typedef void (*ref_next_fn)(void *ctx, const rpl_value *v);
ref_member *ref_subscribe_chain(ref_subject *s, ref_map_fn map, ref_filter_fn filter, ref_scan_fn scan,
                                ref_next_fn observer);
void ref_unsubscribe_chain(ref_member *m);
#endif
