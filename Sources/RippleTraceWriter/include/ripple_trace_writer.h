/* The built-in trace hook (rpl_trace_write, RIPPLE_TRACE) and the text of a
   value (rpl_signal_log and the trace's "value" field). Written against the
   public C API, as a user's own hook would be. Internal: not installed. */
#ifndef RIPPLE_TRACE_WRITER_H
#define RIPPLE_TRACE_WRITER_H
#include <stddef.h>

/* Starts writing the trace to a duplicate of fd (fd -1: stops). RPL_OK, or
   an error status with its message in *msg (static storage or msgbuf). */
int ripple_trace_writer_set(int fd, char *msgbuf, size_t cap, const char **msg)
    __attribute__((visibility("hidden")));

/* Writes v as text into buf (NUL-terminated; cut with "..." past cap - 1
   bytes) and returns its length: nil, true, 42, 1.5, "text" (quoted, as
   is), <3 bytes>, <pointer>, (1, "a"), <signal name>, <next 1>,
   <error message>, <completed>. v is a const rpl_value * (void here so
   that this header does not bring ripple.h's types into a second Swift
   module). cap must be at least 8. */
size_t ripple_value_text(const void *v, char *buf, size_t cap) __attribute__((visibility("hidden")));

#endif
