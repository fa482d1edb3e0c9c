/* C operator callbacks as the runtime calls them. Internal: not installed.
 *
 * A Swift struct cannot appear in a @convention(c) function type, so the
 * runtime (which does not import ripple.h) calls the C operator callbacks of
 * ripple.h (rpl_map_fn, rpl_predicate_fn, rpl_reduce_fn, ...) through these
 * types. ripple_value has the size, alignment and calling convention of
 * rpl_value and of Swift's Value: 16 bytes, two INTEGER eightbytes (SysV
 * x86-64: returned in rax:rdx; AAPCS64: x0:x1), because rpl_value's payload
 * union holds an int64_t. The shim converts the function pointers with
 * unsafeBitCast. */
#ifndef RIPPLE_CALLBACKS_H
#define RIPPLE_CALLBACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ripple_value {
    uint32_t type;
    uint32_t reserved;
    uint64_t bits;
} ripple_value;

/* The same numbers ripple.h asserts for rpl_value; Swift's Value is checked
   against both in Tests/RippleTests/ValueLayoutTests.swift. */
_Static_assert(sizeof(ripple_value) == 16, "ripple_value must match rpl_value");
_Static_assert(offsetof(ripple_value, type) == 0, "ripple_value.type must match rpl_value.type");
_Static_assert(offsetof(ripple_value, reserved) == 4, "ripple_value.reserved must match rpl_value.reserved_");
_Static_assert(offsetof(ripple_value, bits) == 8, "ripple_value.bits must match rpl_value's payload");

#endif
