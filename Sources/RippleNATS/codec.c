/* Payload codecs: MessagePack (nil, bool, int, double, string, bytes and
   tuples as arrays) and RAW (bytes). Anything a payload holds beyond that -
   a map, an ext type, an integer above INT64_MAX, trailing bytes, a
   truncated value, nesting past RN_MAX_DEPTH - makes the whole payload a
   bytes value, so one bad publisher cannot end a subscriber's stream. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

enum { RN_MAX_DEPTH = 128 };

void rn_buf_init(rn_buf *b) {
    b->data = b->inline_;
    b->len = 0;
    b->cap = sizeof b->inline_;
}

void rn_buf_free(rn_buf *b) {
    if (b->data != b->inline_) free(b->data);
    rn_buf_init(b);
}

static uint8_t *reserve(rn_buf *b, size_t n) {
    if (b->cap - b->len < n) {
        size_t cap = b->cap * 2;
        while (cap - b->len < n) cap *= 2;
        uint8_t *d = malloc(cap);
        if (!d) abort();
        memcpy(d, b->data, b->len);
        if (b->data != b->inline_) free(b->data);
        b->data = d;
        b->cap = cap;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

static void put_be(rn_buf *b, uint8_t tag, uint64_t x, int bytes) {
    uint8_t *p = reserve(b, 1 + (size_t)bytes);
    p[0] = tag;
    for (int i = 0; i < bytes; i++) p[1 + i] = (uint8_t)(x >> (8 * (bytes - 1 - i)));
}

/* A length header: the fix form (fix_base | n below fix_limit), else the 8-,
   16- or 32-bit form (tags t8 (0 if none), t16, t32). */
static void put_len(rn_buf *b, uint8_t fix_base, size_t fix_limit, uint8_t t8, uint8_t t16, uint8_t t32, size_t n) {
    if (n < fix_limit) *reserve(b, 1) = (uint8_t)(fix_base | n);
    else if (t8 && n <= 0xff) put_be(b, t8, n, 1);
    else if (n <= 0xffff) put_be(b, t16, n, 2);
    else put_be(b, t32, n, 4);
}

static void put_raw(rn_buf *b, const void *p, size_t n) {
    if (n) memcpy(reserve(b, n), p, n);
}

static bool encode_mp(const rpl_value *v, rn_buf *b, int depth) {
    switch (rpl_value_type(v)) {
    case RPL_TYPE_NIL: *reserve(b, 1) = 0xc0; return true;
    case RPL_TYPE_BOOL: *reserve(b, 1) = rpl_value_bool(v) ? 0xc3 : 0xc2; return true;
    case RPL_TYPE_INT: {
        int64_t i = rpl_value_int(v);
        if (i >= 0) {
            uint64_t u = (uint64_t)i;
            if (u < 128) *reserve(b, 1) = (uint8_t)u;
            else if (u <= 0xff) put_be(b, 0xcc, u, 1);
            else if (u <= 0xffff) put_be(b, 0xcd, u, 2);
            else if (u <= 0xffffffffu) put_be(b, 0xce, u, 4);
            else put_be(b, 0xcf, u, 8);
        } else if (i >= -32) {
            *reserve(b, 1) = (uint8_t)(int8_t)i;
        } else if (i >= INT8_MIN) put_be(b, 0xd0, (uint64_t)i, 1);
        else if (i >= INT16_MIN) put_be(b, 0xd1, (uint64_t)i, 2);
        else if (i >= INT32_MIN) put_be(b, 0xd2, (uint64_t)i, 4);
        else put_be(b, 0xd3, (uint64_t)i, 8);
        return true;
    }
    case RPL_TYPE_DOUBLE: {
        double d = rpl_value_double(v);
        uint64_t u;
        memcpy(&u, &d, sizeof u);
        put_be(b, 0xcb, u, 8);
        return true;
    }
    case RPL_TYPE_STRING:
    case RPL_TYPE_BYTES: {  /* str or bin: a length, then the bytes */
        size_t n = 0;
        bool str = rpl_value_type(v) == RPL_TYPE_STRING;
        const void *p = str ? (const void *)rpl_value_string(v, &n) : rpl_value_bytes(v, &n);
        if (n > 0xffffffffu) return false;
        if (str) put_len(b, 0xa0, 32, 0xd9, 0xda, 0xdb, n);
        else put_len(b, 0, 0, 0xc4, 0xc5, 0xc6, n);
        put_raw(b, p, n);
        return true;
    }
    case RPL_TYPE_TUPLE: {
        size_t n = rpl_value_tuple_count(v);
        if (depth >= RN_MAX_DEPTH || n > 0xffffffffu) return false;
        put_len(b, 0x90, 16, 0, 0xdc, 0xdd, n);
        for (size_t i = 0; i < n; i++) {
            rpl_value item = rpl_value_tuple_at(v, i);
            bool ok = encode_mp(&item, b, depth + 1);
            rpl_value_release(&item);
            if (!ok) return false;
        }
        return true;
    }
    default:  /* pointer, signal, event */
        return false;
    }
}

bool rn_encode(int32_t codec, const rpl_value *v, rn_buf *b) {
    b->len = 0;
    if (codec == RPL_NATS_CODEC_RAW) {
        size_t n = 0;
        const void *p;
        switch (rpl_value_type(v)) {
        case RPL_TYPE_BYTES: p = rpl_value_bytes(v, &n); break;
        case RPL_TYPE_STRING: p = rpl_value_string(v, &n); break;
        default: return false;
        }
        put_raw(b, p, n);
        return true;
    }
    return encode_mp(v, b, 0);
}

/* ---- decoding ---- */
typedef struct { const uint8_t *p, *end; } rd;

static bool take(rd *r, size_t n, const uint8_t **out) {
    if ((size_t)(r->end - r->p) < n) return false;
    *out = r->p;
    r->p += n;
    return true;
}

static bool be(rd *r, int bytes, uint64_t *x) {
    const uint8_t *q;
    if (!take(r, (size_t)bytes, &q)) return false;
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | q[i];
    *x = v;
    return true;
}

static bool decode_mp(rd *r, rpl_value *out, int depth);

static bool decode_array(rd *r, uint64_t n, rpl_value *out, int depth) {
    /* every item takes at least one byte: refuse counts the payload cannot hold */
    if (depth >= RN_MAX_DEPTH || n > (uint64_t)(r->end - r->p)) return false;
    rpl_value *items = rn_calloc(n ? n : 1, sizeof *items);
    size_t got = 0;
    bool ok = true;
    for (; got < n; got++) {
        if (!decode_mp(r, &items[got], depth + 1)) { ok = false; break; }
    }
    if (!ok) {
        for (size_t i = 0; i < got; i++) rpl_value_release(&items[i]);
        free(items);
        return false;
    }
    *out = rpl_tuple(items, n);
    free(items);
    return rpl_value_type(out) == RPL_TYPE_TUPLE;
}

static bool decode_str(rd *r, uint64_t n, rpl_value *out) {
    const uint8_t *q;
    if (!take(r, n, &q)) return false;
    *out = rpl_string_n((const char *)q, n);
    return rpl_value_type(out) == RPL_TYPE_STRING;
}

static bool decode_bin(rd *r, uint64_t n, rpl_value *out) {
    const uint8_t *q;
    if (!take(r, n, &q)) return false;
    *out = rpl_bytes(q, n);
    return rpl_value_type(out) == RPL_TYPE_BYTES;
}

static bool decode_mp(rd *r, rpl_value *out, int depth) {
    const uint8_t *q;
    if (!take(r, 1, &q)) return false;
    uint8_t t = q[0];
    uint64_t x;
    if (t <= 0x7f) { *out = rpl_int(t); return true; }
    if (t >= 0xe0) { *out = rpl_int((int8_t)t); return true; }
    if ((t & 0xe0) == 0xa0) return decode_str(r, t & 0x1f, out);
    if ((t & 0xf0) == 0x90) return decode_array(r, t & 0x0f, out, depth);
    switch (t) {
    case 0xc0: *out = rpl_nil(); return true;
    case 0xc2: *out = rpl_bool(false); return true;
    case 0xc3: *out = rpl_bool(true); return true;
    case 0xcc: if (!be(r, 1, &x)) return false; *out = rpl_int((int64_t)x); return true;
    case 0xcd: if (!be(r, 2, &x)) return false; *out = rpl_int((int64_t)x); return true;
    case 0xce: if (!be(r, 4, &x)) return false; *out = rpl_int((int64_t)x); return true;
    case 0xcf:
        if (!be(r, 8, &x) || x > (uint64_t)INT64_MAX) return false;  /* outside int64 */
        *out = rpl_int((int64_t)x);
        return true;
    case 0xd0: if (!be(r, 1, &x)) return false; *out = rpl_int((int8_t)x); return true;
    case 0xd1: if (!be(r, 2, &x)) return false; *out = rpl_int((int16_t)x); return true;
    case 0xd2: if (!be(r, 4, &x)) return false; *out = rpl_int((int32_t)x); return true;
    case 0xd3: if (!be(r, 8, &x)) return false; *out = rpl_int((int64_t)x); return true;
    case 0xca: {
        if (!be(r, 4, &x)) return false;
        uint32_t u = (uint32_t)x;
        float f;
        memcpy(&f, &u, sizeof f);
        *out = rpl_double(f);
        return true;
    }
    case 0xcb: {
        if (!be(r, 8, &x)) return false;
        double d;
        memcpy(&d, &x, sizeof d);
        *out = rpl_double(d);
        return true;
    }
    case 0xd9: return be(r, 1, &x) && decode_str(r, x, out);
    case 0xda: return be(r, 2, &x) && decode_str(r, x, out);
    case 0xdb: return be(r, 4, &x) && decode_str(r, x, out);
    case 0xc4: return be(r, 1, &x) && decode_bin(r, x, out);
    case 0xc5: return be(r, 2, &x) && decode_bin(r, x, out);
    case 0xc6: return be(r, 4, &x) && decode_bin(r, x, out);
    case 0xdc: return be(r, 2, &x) && decode_array(r, x, out, depth);
    case 0xdd: return be(r, 4, &x) && decode_array(r, x, out, depth);
    default:  /* maps, ext types, the never-used 0xc1 */
        return false;
    }
}

rpl_value rn_decode(int32_t codec, const void *data, size_t len) {
    if (codec == RPL_NATS_CODEC_MSGPACK && len > 0) {
        rd r = { data, (const uint8_t *)data + len };
        rpl_value v = rpl_nil();
        if (decode_mp(&r, &v, 0)) {
            if (r.p == r.end) return v;
            rpl_value_release(&v);  /* trailing bytes: not one value */
        }
    }
    return rpl_bytes(data, len);
}
