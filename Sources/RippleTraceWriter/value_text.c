/* A value as text, the one rendering rpl_signal_log and the trace writer
   share. Reads the value only through the public accessors (it runs inside
   a trace hook, where nothing else may be called). */
#include "ripple_trace_writer.h"
#include "../../Include/ripple.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *p;
    size_t len, cap; /* cap excludes the NUL */
    int full;
} text;

static void put(text *t, const char *s, size_t n) {
    if (t->full) return;
    if (n > t->cap - t->len) {
        n = t->cap - t->len;
        t->full = 1;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}
static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* The shortest %g that reads back as d, with ".0" on a whole number (as
   Swift prints doubles). */
static void put_double(text *t, double d) {
    char b[40];
    if (isnan(d)) { puts_(t, "nan"); return; }
    if (isinf(d)) { puts_(t, d < 0 ? "-inf" : "inf"); return; }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d) break;
    }
    puts_(t, b);
    if (!strpbrk(b, ".e")) puts_(t, ".0");
}

/* "<signal name>", "<error message>": a tag, a string (NULL: empty), ">". */
static void put_tagged(text *t, const char *tag, const char *s) {
    puts_(t, tag);
    puts_(t, s ? s : "");
    puts_(t, ">");
}

/* Tuples and events nested deeper than this are written "..." (ripple.h
   rpl_signal_log): the nesting is the program's, the text is for reading,
   and the recursion stays shallow. */
enum { DESCRIBED_DEPTH = 16 };

static void put_value(text *t, const rpl_value *v, int depth) {
    char b[48];
    rpl_type type = rpl_value_type(v);
    if (depth == DESCRIBED_DEPTH && (type == RPL_TYPE_TUPLE || type == RPL_TYPE_EVENT)) {
        puts_(t, "...");
        return;
    }
    switch (type) {
    case RPL_TYPE_NIL: puts_(t, "nil"); break;
    case RPL_TYPE_BOOL: puts_(t, rpl_value_bool(v) ? "true" : "false"); break;
    case RPL_TYPE_INT: {
        /* By hand: snprintf would cost more than the rest of a trace line. */
        int64_t i = rpl_value_int(v);
        uint64_t x = i < 0 ? 0 - (uint64_t)i : (uint64_t)i;
        char *e = b + sizeof b, *p = e;
        do *--p = (char)('0' + x % 10); while ((x /= 10));
        if (i < 0) *--p = '-';
        put(t, p, (size_t)(e - p));
        break;
    }
    case RPL_TYPE_DOUBLE: put_double(t, rpl_value_double(v)); break;
    case RPL_TYPE_STRING: {
        size_t n = 0;
        const char *s = rpl_value_string(v, &n);
        puts_(t, "\"");
        put(t, s ? s : "", s ? n : 0);
        puts_(t, "\"");
        break;
    }
    case RPL_TYPE_BYTES: {
        size_t n = 0;
        rpl_value_bytes(v, &n);
        snprintf(b, sizeof b, "<%zu bytes>", n);
        puts_(t, b);
        break;
    }
    case RPL_TYPE_POINTER: puts_(t, "<pointer>"); break;
    case RPL_TYPE_TUPLE: {
        size_t n = rpl_value_tuple_count(v);
        puts_(t, "(");
        for (size_t i = 0; i < n && !t->full; i++) {
            if (i) puts_(t, ", ");
            rpl_value item = rpl_value_tuple_at(v, i);
            put_value(t, &item, depth + 1);
            rpl_value_release(&item);
        }
        puts_(t, ")");
        break;
    }
    case RPL_TYPE_SIGNAL: put_tagged(t, "<signal ", rpl_signal_name(rpl_value_signal(v))); break;
    case RPL_TYPE_EVENT:
        switch (rpl_value_event_kind(v)) {
        case RPL_EVENT_NEXT: {
            rpl_value inner = rpl_value_event_value(v);
            puts_(t, "<next ");
            put_value(t, &inner, depth + 1);
            puts_(t, ">");
            rpl_value_release(&inner);
            break;
        }
        case RPL_EVENT_ERROR: put_tagged(t, "<error ", rpl_error_message(rpl_value_event_error(v))); break;
        default: puts_(t, "<completed>"); break;
        }
        break;
    default: puts_(t, "?"); break;
    }
}

size_t ripple_value_text(const void *v, char *buf, size_t cap) {
    text t = {buf, 0, cap - 1, 0};
    put_value(&t, (const rpl_value *)v, 0);
    if (t.full) memcpy(buf + t.cap - 3, "...", 3);
    buf[t.len] = 0;
    return t.len;
}
