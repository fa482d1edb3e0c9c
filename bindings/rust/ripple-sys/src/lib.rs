//! Raw FFI declarations of libripple: one `extern "C"` declaration per function of
//! `Include/ripple.h`, under the same name, plus its types and constants.
//!
//! Everything here is `unsafe` and follows the C contract exactly (ownership, +1 returns,
//! consumed values); the `ripple` crate is the safe API on top.
//!
//! Keeping in sync with the header: the functions are declared through the
//! [`functions!`] macro and the integer constants through [`constants!`], which also
//! record them in [`FUNCTIONS`] and [`CONSTANTS`]. The `header_parity` test parses
//! `ripple.h` and fails on any function or constant that is missing here, extra here, or
//! has a different number of parameters / value. When the header grows, add the new
//! declarations to the lists below and the test passes again.
#![allow(non_camel_case_types)]
#![no_std]

use core::ffi::{c_char, c_int, c_uint, c_void};
use core::marker::{PhantomData, PhantomPinned};

// --- Opaque handles -----------------------------------------------------------------------

macro_rules! opaque {
    ($($name:ident),* $(,)?) => {$(
        /// An opaque, reference-counted runtime object (`rpl_retain` / `rpl_release`).
        #[repr(C)]
        pub struct $name {
            _private: [u8; 0],
            // Not Send/Sync/Unpin by itself: the safe crate decides what is shareable.
            _marker: PhantomData<(*mut u8, PhantomPinned)>,
        }
    )*};
}
opaque!(
    rpl_signal_t,
    rpl_subject_t,
    rpl_subscriber_t,
    rpl_disposable_t,
    rpl_connection_t,
    rpl_scheduler_t,
    rpl_error_t,
    rpl_run_loop_t,
);

// --- Scalar types -------------------------------------------------------------------------

/// Result of a command: `RPL_OK` (0) or a negative `RPL_ERR_*`.
pub type rpl_status = i32;
/// An `RPL_TYPE_*` constant (a C enum; `rpl_value::type_` stores it as `uint32_t`).
pub type rpl_type = c_uint;
/// An `RPL_EVENT_*` constant.
pub type rpl_event_kind = c_uint;

// --- Values -------------------------------------------------------------------------------

/// The payload of an [`rpl_value`].
#[repr(C)]
#[derive(Copy, Clone)]
pub union rpl_value_payload {
    pub b: bool,
    pub i: i64,
    pub d: f64,
    pub box_: *mut c_void,
}

/// A 16-byte tagged value. Use the constructors and accessors; boxed payloads are
/// reference counted (`rpl_value_copy` / `rpl_value_release`).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rpl_value {
    pub type_: u32,
    pub reserved_: u32,
    pub as_: rpl_value_payload,
}

// --- Callback types -----------------------------------------------------------------------

pub type rpl_release_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;
pub type rpl_subscribe_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, subscriber: *mut rpl_subscriber_t) -> *mut rpl_disposable_t>;
pub type rpl_map_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, v: *const rpl_value) -> rpl_value>;
pub type rpl_predicate_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, v: *const rpl_value) -> bool>;
pub type rpl_reduce_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, acc: *const rpl_value, v: *const rpl_value) -> rpl_value>;
pub type rpl_do_next_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, v: *const rpl_value)>;
pub type rpl_do_error_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, e: *const rpl_error_t)>;
pub type rpl_do_completed_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;
pub type rpl_bind_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, v: *const rpl_value, stop: *mut bool) -> *mut rpl_signal_t>;
pub type rpl_flatten_map_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, v: *const rpl_value) -> *mut rpl_signal_t>;
pub type rpl_reduce_each_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, items: *const rpl_value, count: usize) -> rpl_value>;
pub type rpl_equal_fn =
    Option<unsafe extern "C" fn(ctx: *mut c_void, a: *const rpl_value, b: *const rpl_value) -> bool>;
pub type rpl_catch_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, e: *const rpl_error_t) -> *mut rpl_signal_t>;
/// An `RPL_TRACE_*` constant (a C enum).
pub type rpl_trace_kind = c_uint;
/// An `RPL_OVERFLOW_*` constant (a C enum): what `rpl_signal_deliver_on_bounded` does
/// with a value sent into a full queue.
pub type rpl_overflow = c_uint;

/// One traced event (`version` = [`RPL_TRACE_EVENT_VERSION`]); everything is borrowed for
/// the hook's call.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rpl_trace_event {
    pub version: u32,
    pub kind: rpl_trace_kind,
    pub signal_name: *const c_char,
    pub subscription: u64,
    pub value: *const rpl_value,
    pub error: *const rpl_error_t,
}
pub type rpl_trace_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, e: *const rpl_trace_event)>;

/// What a subscriber does with events (`version` = [`RPL_OBSERVER_VERSION`]).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct rpl_observer {
    pub version: u32,
    pub on_next: Option<unsafe extern "C" fn(ctx: *mut c_void, value: *const rpl_value)>,
    pub on_error: Option<unsafe extern "C" fn(ctx: *mut c_void, error: *const rpl_error_t)>,
    pub on_completed: Option<unsafe extern "C" fn(ctx: *mut c_void)>,
    pub release: rpl_release_fn,
    pub ctx: *mut c_void,
}

/// `RPL_OBSERVER_INIT`.
pub const RPL_OBSERVER_INIT: rpl_observer = rpl_observer {
    version: RPL_OBSERVER_VERSION,
    on_next: None,
    on_error: None,
    on_completed: None,
    release: None,
    ctx: core::ptr::null_mut(),
};

// --- Constants ----------------------------------------------------------------------------

/// Declares integer constants and records each in [`CONSTANTS`] for the parity test.
macro_rules! constants {
    ($($(#[$meta:meta])* pub const $name:ident: $ty:ty = $value:expr;)*) => {
        $($(#[$meta])* pub const $name: $ty = $value;)*
        /// Every integer constant of the header declared here, with its value.
        pub const CONSTANTS: &[(&str, i128)] = &[$((stringify!($name), $name as i128)),*];
    };
}

constants! {
    pub const RPL_VERSION_MAJOR: c_uint = 0;
    pub const RPL_VERSION_MINOR: c_uint = 1;
    pub const RPL_VERSION_PATCH: c_uint = 0;
    /// MAJOR * 10000 + MINOR * 100 + PATCH; compare with `rpl_version()`.
    pub const RPL_VERSION_NUMBER: c_uint = RPL_VERSION_MAJOR * 10000 + RPL_VERSION_MINOR * 100 + RPL_VERSION_PATCH;

    pub const RPL_OK: rpl_status = 0;
    pub const RPL_ERR_NULL: rpl_status = -1;
    pub const RPL_ERR_KIND: rpl_status = -2;
    pub const RPL_ERR_INVALID: rpl_status = -3;
    pub const RPL_ERR_TIMEOUT: rpl_status = -4;
    pub const RPL_ERR_NO_VALUE: rpl_status = -5;
    pub const RPL_ERR_FAILED: rpl_status = -6;
    pub const RPL_ERR_NOMEM: rpl_status = -7;
    pub const RPL_ERR_STATE: rpl_status = -8;
    pub const RPL_ERR_MISUSE: rpl_status = -9;

    pub const RPL_ERROR_GENERIC: i64 = 1;
    pub const RPL_ERROR_TIMEOUT: i64 = 2;
    pub const RPL_ERROR_CALLBACK: i64 = 3;
    pub const RPL_ERROR_TYPE: i64 = 4;
    pub const RPL_ERROR_OVERFLOW: i64 = 5;
    pub const RPL_ERROR_NO_MATCHING_CASE: i64 = 6;

    pub const RPL_OVERFLOW_BLOCK: rpl_overflow = 0;
    pub const RPL_OVERFLOW_DROP_NEWEST: rpl_overflow = 1;
    pub const RPL_OVERFLOW_DROP_OLDEST: rpl_overflow = 2;
    pub const RPL_OVERFLOW_FAIL: rpl_overflow = 3;

    pub const RPL_TYPE_NIL: rpl_type = 0;
    pub const RPL_TYPE_BOOL: rpl_type = 1;
    pub const RPL_TYPE_INT: rpl_type = 2;
    pub const RPL_TYPE_DOUBLE: rpl_type = 3;
    pub const RPL_TYPE_STRING: rpl_type = 4;
    pub const RPL_TYPE_BYTES: rpl_type = 5;
    pub const RPL_TYPE_POINTER: rpl_type = 6;
    pub const RPL_TYPE_TUPLE: rpl_type = 7;
    pub const RPL_TYPE_SIGNAL: rpl_type = 8;
    pub const RPL_TYPE_EVENT: rpl_type = 9;

    pub const RPL_EVENT_NEXT: rpl_event_kind = 0;
    pub const RPL_EVENT_ERROR: rpl_event_kind = 1;
    pub const RPL_EVENT_COMPLETED: rpl_event_kind = 2;

    pub const RPL_OBSERVER_VERSION: u32 = 1;
    /// Wait without limit (blocking helpers).
    pub const RPL_FOREVER: u64 = u64::MAX;
    /// No limit for `rpl_replay_subject_create`.
    pub const RPL_REPLAY_UNLIMITED: usize = usize::MAX;
    /// No limit for `rpl_signal_retry` / `rpl_signal_repeat`.
    pub const RPL_FOREVER_COUNT: usize = usize::MAX;

    pub const RPL_TRACE_SUBSCRIBE: rpl_trace_kind = 0;
    pub const RPL_TRACE_NEXT: rpl_trace_kind = 1;
    pub const RPL_TRACE_ERROR: rpl_trace_kind = 2;
    pub const RPL_TRACE_COMPLETED: rpl_trace_kind = 3;
    pub const RPL_TRACE_DISPOSE: rpl_trace_kind = 4;
    pub const RPL_TRACE_EVENT_VERSION: u32 = 1;
}

/// `RPL_VERSION_STRING`, NUL-terminated.
pub const RPL_VERSION_STRING: &[u8] = b"0.1.0\0";
/// `RPL_ERROR_DOMAIN`, NUL-terminated: the domain of errors the runtime makes itself.
pub const RPL_ERROR_DOMAIN: &[u8] = b"ripple\0";

// --- Functions ----------------------------------------------------------------------------

/// Declares the library's functions and records each in [`FUNCTIONS`] (name and number of
/// parameters) for the parity test. Add a new header function here, in header order.
macro_rules! functions {
    ($(pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        extern "C" {
            $(pub fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }
        /// Every function declared here: its name and its number of parameters.
        pub const FUNCTIONS: &[(&str, usize)] = &[$((stringify!($name), functions!(@count $($arg)*))),*];
        /// The address of every function declared here, resolved by the dynamic loader:
        /// taking them makes a symbol missing from the library fail at load time.
        pub fn function_addresses() -> [(&'static str, *const c_void); FUNCTIONS.len()] {
            [$((stringify!($name), $name as *const c_void)),*]
        }
    };
    (@count) => { 0usize };
    (@count $head:ident $($tail:ident)*) => { 1usize + functions!(@count $($tail)*) };
}

functions! {
    pub fn rpl_version() -> c_uint;
    pub fn rpl_version_string() -> *const c_char;
    pub fn rpl_retain(handle: *mut c_void) -> *mut c_void;
    pub fn rpl_release(handle: *mut c_void);
    pub fn rpl_last_error() -> rpl_status;
    pub fn rpl_last_error_message() -> *const c_char;
    pub fn rpl_status_string(status: rpl_status) -> *const c_char;
    pub fn rpl_error_create(domain: *const c_char, code: i64, message: *const c_char) -> *mut rpl_error_t;
    pub fn rpl_error_domain(e: *const rpl_error_t) -> *const c_char;
    pub fn rpl_error_code(e: *const rpl_error_t) -> i64;
    pub fn rpl_error_message(e: *const rpl_error_t) -> *const c_char;
    pub fn rpl_error_equal(a: *const rpl_error_t, b: *const rpl_error_t) -> bool;
    pub fn rpl_callback_fail(error: *mut rpl_error_t) -> rpl_status;
    pub fn rpl_nil() -> rpl_value;
    pub fn rpl_bool(b: bool) -> rpl_value;
    pub fn rpl_int(i: i64) -> rpl_value;
    pub fn rpl_double(d: f64) -> rpl_value;
    pub fn rpl_string(utf8: *const c_char) -> rpl_value;
    pub fn rpl_string_n(utf8: *const c_char, len: usize) -> rpl_value;
    pub fn rpl_bytes(data: *const c_void, len: usize) -> rpl_value;
    pub fn rpl_pointer(ptr: *mut c_void, dtor: rpl_release_fn) -> rpl_value;
    pub fn rpl_tuple(items: *mut rpl_value, count: usize) -> rpl_value;
    pub fn rpl_signal_value(s: *mut rpl_signal_t) -> rpl_value;
    pub fn rpl_value_type(v: *const rpl_value) -> rpl_type;
    pub fn rpl_value_bool(v: *const rpl_value) -> bool;
    pub fn rpl_value_int(v: *const rpl_value) -> i64;
    pub fn rpl_value_double(v: *const rpl_value) -> f64;
    pub fn rpl_value_string(v: *const rpl_value, len_out: *mut usize) -> *const c_char;
    pub fn rpl_value_bytes(v: *const rpl_value, len_out: *mut usize) -> *const c_void;
    pub fn rpl_value_pointer(v: *const rpl_value) -> *mut c_void;
    pub fn rpl_value_tuple_count(v: *const rpl_value) -> usize;
    pub fn rpl_value_tuple_at(v: *const rpl_value, i: usize) -> rpl_value;
    pub fn rpl_value_signal(v: *const rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_value_copy(v: *const rpl_value) -> rpl_value;
    pub fn rpl_value_release(v: *mut rpl_value);
    pub fn rpl_value_equal(a: *const rpl_value, b: *const rpl_value) -> bool;
    pub fn rpl_event_next(v: rpl_value) -> rpl_value;
    pub fn rpl_event_error(e: *mut rpl_error_t) -> rpl_value;
    pub fn rpl_event_completed() -> rpl_value;
    pub fn rpl_value_event_kind(v: *const rpl_value) -> i32;
    pub fn rpl_value_event_value(v: *const rpl_value) -> rpl_value;
    pub fn rpl_value_event_error(v: *const rpl_value) -> *mut rpl_error_t;
    pub fn rpl_disposable_create(on_dispose: Option<unsafe extern "C" fn(*mut c_void)>, ctx: *mut c_void) -> *mut rpl_disposable_t;
    pub fn rpl_disposable_create_with_release(on_dispose: Option<unsafe extern "C" fn(*mut c_void)>, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_disposable_t;
    pub fn rpl_disposable_dispose(d: *mut rpl_disposable_t) -> rpl_status;
    pub fn rpl_disposable_is_disposed(d: *const rpl_disposable_t) -> bool;
    pub fn rpl_compound_disposable_create() -> *mut rpl_disposable_t;
    pub fn rpl_compound_disposable_add(c: *mut rpl_disposable_t, d: *mut rpl_disposable_t) -> rpl_status;
    pub fn rpl_compound_disposable_remove(c: *mut rpl_disposable_t, d: *mut rpl_disposable_t) -> rpl_status;
    pub fn rpl_serial_disposable_create() -> *mut rpl_disposable_t;
    pub fn rpl_serial_disposable_swap(s: *mut rpl_disposable_t, d: *mut rpl_disposable_t) -> *mut rpl_disposable_t;
    pub fn rpl_signal_create(did_subscribe: rpl_subscribe_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_subscriber_send_next(s: *mut rpl_subscriber_t, v: rpl_value) -> rpl_status;
    pub fn rpl_subscriber_send_error(s: *mut rpl_subscriber_t, e: *mut rpl_error_t) -> rpl_status;
    pub fn rpl_subscriber_send_completed(s: *mut rpl_subscriber_t) -> rpl_status;
    pub fn rpl_subscriber_is_disposed(s: *const rpl_subscriber_t) -> bool;
    pub fn rpl_signal_subscribe(sig: *mut rpl_signal_t, obs: *const rpl_observer) -> *mut rpl_disposable_t;
    pub fn rpl_signal_subscribe_next(sig: *mut rpl_signal_t, on_next: Option<unsafe extern "C" fn(*mut c_void, *const rpl_value)>, ctx: *mut c_void) -> *mut rpl_disposable_t;
    pub fn rpl_signal_return(v: rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_signal_empty() -> *mut rpl_signal_t;
    pub fn rpl_signal_error(e: *mut rpl_error_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_never() -> *mut rpl_signal_t;
    pub fn rpl_signal_defer(factory: Option<unsafe extern "C" fn(*mut c_void) -> *mut rpl_signal_t>, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_first(sig: *mut rpl_signal_t, out: *mut rpl_value, timeout_ns: u64) -> rpl_status;
    pub fn rpl_signal_wait(sig: *mut rpl_signal_t, timeout_ns: u64) -> rpl_status;
    pub fn rpl_signal_to_array(sig: *mut rpl_signal_t, out_tuple: *mut rpl_value, timeout_ns: u64) -> rpl_status;
    pub fn rpl_last_signal_error() -> *mut rpl_error_t;
    pub fn rpl_subject_create() -> *mut rpl_subject_t;
    pub fn rpl_behavior_subject_create(initial: rpl_value) -> *mut rpl_subject_t;
    pub fn rpl_replay_subject_create(capacity: usize) -> *mut rpl_subject_t;
    pub fn rpl_subject_send_next(s: *mut rpl_subject_t, v: rpl_value) -> rpl_status;
    pub fn rpl_subject_send_error(s: *mut rpl_subject_t, e: *mut rpl_error_t) -> rpl_status;
    pub fn rpl_subject_send_completed(s: *mut rpl_subject_t) -> rpl_status;
    pub fn rpl_subject_as_signal(s: *mut rpl_subject_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_subscribe_subject(sig: *mut rpl_signal_t, s: *mut rpl_subject_t) -> *mut rpl_disposable_t;
    pub fn rpl_subject_subscriber_count(s: *const rpl_subject_t) -> usize;
    pub fn rpl_subject_is_terminated(s: *const rpl_subject_t) -> bool;
    pub fn rpl_behavior_subject_value(s: *mut rpl_subject_t, out: *mut rpl_value) -> rpl_status;
    pub fn rpl_signal_publish(sig: *mut rpl_signal_t) -> *mut rpl_connection_t;
    pub fn rpl_signal_multicast(sig: *mut rpl_signal_t, subject: *mut rpl_subject_t) -> *mut rpl_connection_t;
    pub fn rpl_connection_signal(c: *mut rpl_connection_t) -> *mut rpl_signal_t;
    pub fn rpl_connection_connect(c: *mut rpl_connection_t) -> *mut rpl_disposable_t;
    pub fn rpl_connection_autoconnect(c: *mut rpl_connection_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_replay(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_replay_last(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_replay_lazily(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_map(sig: *mut rpl_signal_t, fn_: rpl_map_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_filter(sig: *mut rpl_signal_t, fn_: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_scan(sig: *mut rpl_signal_t, initial: rpl_value, fn_: rpl_reduce_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_aggregate(sig: *mut rpl_signal_t, initial: rpl_value, fn_: rpl_reduce_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_distinct_until_changed(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_materialize(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_dematerialize(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_collect(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_take(sig: *mut rpl_signal_t, n: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_skip(sig: *mut rpl_signal_t, n: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_take_last(sig: *mut rpl_signal_t, n: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_take_while(sig: *mut rpl_signal_t, fn_: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_skip_while(sig: *mut rpl_signal_t, fn_: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_do_next(sig: *mut rpl_signal_t, fn_: rpl_do_next_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_do_error(sig: *mut rpl_signal_t, fn_: rpl_do_error_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_do_completed(sig: *mut rpl_signal_t, fn_: rpl_do_completed_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_bind(sig: *mut rpl_signal_t, bind: rpl_bind_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_flatten_map(sig: *mut rpl_signal_t, fn_: rpl_flatten_map_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_flatten(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_switch_to_latest(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_concat(a: *mut rpl_signal_t, b: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_merge(sigs: *const *mut rpl_signal_t, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_combine_latest(sigs: *const *mut rpl_signal_t, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_zip(sigs: *const *mut rpl_signal_t, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_start_with(sig: *mut rpl_signal_t, v: rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_signal_then(sig: *mut rpl_signal_t, next: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_take_until(sig: *mut rpl_signal_t, trigger: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_catch(sig: *mut rpl_signal_t, fn_: rpl_catch_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_catch_to(sig: *mut rpl_signal_t, replacement: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_retry(sig: *mut rpl_signal_t, n: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_repeat(sig: *mut rpl_signal_t, n: usize) -> *mut rpl_signal_t;
    pub fn rpl_scheduler_immediate() -> *mut rpl_scheduler_t;
    pub fn rpl_scheduler_background() -> *mut rpl_scheduler_t;
    pub fn rpl_scheduler_create_serial(label: *const c_char) -> *mut rpl_scheduler_t;
    pub fn rpl_scheduler_current() -> *mut rpl_scheduler_t;
    pub fn rpl_scheduler_now(s: *mut rpl_scheduler_t) -> u64;
    pub fn rpl_scheduler_schedule(s: *mut rpl_scheduler_t, fn_: Option<unsafe extern "C" fn(*mut c_void)>, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_disposable_t;
    pub fn rpl_scheduler_after(s: *mut rpl_scheduler_t, delay_ns: u64, fn_: Option<unsafe extern "C" fn(*mut c_void)>, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_disposable_t;
    pub fn rpl_scheduler_repeat(s: *mut rpl_scheduler_t, delay_ns: u64, interval_ns: u64, fn_: Option<unsafe extern "C" fn(*mut c_void)>, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_disposable_t;
    pub fn rpl_test_scheduler_create() -> *mut rpl_scheduler_t;
    pub fn rpl_test_scheduler_advance_by(s: *mut rpl_scheduler_t, ns: u64) -> rpl_status;
    pub fn rpl_test_scheduler_run(s: *mut rpl_scheduler_t) -> rpl_status;
    pub fn rpl_run_loop_create() -> *mut rpl_run_loop_t;
    pub fn rpl_run_loop_scheduler(loop_: *mut rpl_run_loop_t) -> *mut rpl_scheduler_t;
    pub fn rpl_run_loop_fd(loop_: *mut rpl_run_loop_t) -> c_int;
    pub fn rpl_run_loop_run_until_idle(loop_: *mut rpl_run_loop_t) -> i64;
    pub fn rpl_run_loop_run_one(loop_: *mut rpl_run_loop_t) -> i64;
    pub fn rpl_run_loop_run(loop_: *mut rpl_run_loop_t) -> rpl_status;
    pub fn rpl_run_loop_stop(loop_: *mut rpl_run_loop_t) -> rpl_status;
    pub fn rpl_run_loop_next_timeout(loop_: *mut rpl_run_loop_t) -> u64;
    pub fn rpl_signal_subscribe_on(sig: *mut rpl_signal_t, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_deliver_on(sig: *mut rpl_signal_t, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_deliver_on_bounded(
        sig: *mut rpl_signal_t,
        s: *mut rpl_scheduler_t,
        capacity: usize,
        policy: rpl_overflow,
    ) -> *mut rpl_signal_t;
    pub fn rpl_signal_delay(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_throttle(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_timeout(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_interval(ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_set_name(sig: *mut rpl_signal_t, name: *const c_char) -> rpl_status;
    pub fn rpl_signal_name(sig: *const rpl_signal_t) -> *const c_char;
    pub fn rpl_trace_set(fn_: rpl_trace_fn, ctx: *mut c_void) -> rpl_status;
    pub fn rpl_trace_write(fd: c_int) -> rpl_status;
    pub fn rpl_live_objects() -> usize;
    pub fn rpl_signal_log(sig: *mut rpl_signal_t, label: *const c_char) -> *mut rpl_signal_t;
    // Added in 0.2: the rest of RAC's catalogue and the Rx operators.
    pub fn rpl_signal_from_array(values: *const rpl_value, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_range(start: i64, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_timer(ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_start_lazily(s: *mut rpl_scheduler_t, fn_: rpl_subscribe_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_start_eagerly(s: *mut rpl_scheduler_t, fn_: rpl_subscribe_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_share(sig: *mut rpl_signal_t, replay: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_delay_subscription(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_throttle_first(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_throttle_if(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t, predicate: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_buffer_with_time(sig: *mut rpl_signal_t, ns: u64, s: *mut rpl_scheduler_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_map_replace(sig: *mut rpl_signal_t, v: rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_signal_ignore(sig: *mut rpl_signal_t, v: rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_signal_ignore_values(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_reduce_each(sig: *mut rpl_signal_t, fn_: rpl_reduce_each_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_combine_previous(sig: *mut rpl_signal_t, start: rpl_value, fn_: rpl_reduce_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_distinct_until_changed_with(sig: *mut rpl_signal_t, fn_: rpl_equal_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_buffer(sig: *mut rpl_signal_t, count: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_not(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_and(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_or(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_any(sig: *mut rpl_signal_t, fn_: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_all(sig: *mut rpl_signal_t, fn_: rpl_predicate_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_default_if_empty(sig: *mut rpl_signal_t, v: rpl_value) -> *mut rpl_signal_t;
    pub fn rpl_signal_initially(sig: *mut rpl_signal_t, fn_: rpl_do_completed_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_finally(sig: *mut rpl_signal_t, fn_: rpl_do_completed_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_do_dispose(sig: *mut rpl_signal_t, fn_: rpl_do_completed_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_flatten_max(sig: *mut rpl_signal_t, max_concurrent: usize) -> *mut rpl_signal_t;
    pub fn rpl_signal_concat_all(sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_concat_map(sig: *mut rpl_signal_t, fn_: rpl_flatten_map_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
    pub fn rpl_signal_switch_if_empty(sig: *mut rpl_signal_t, other: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_if(cond: *mut rpl_signal_t, then_sig: *mut rpl_signal_t, else_sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_switch_cases(key_sig: *mut rpl_signal_t, keys: *const rpl_value, cases: *const *mut rpl_signal_t, count: usize, default_sig: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_with_latest_from(sig: *mut rpl_signal_t, other: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_sample(sig: *mut rpl_signal_t, sampler: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_take_until_replacement(sig: *mut rpl_signal_t, replacement: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_skip_until(sig: *mut rpl_signal_t, trigger: *mut rpl_signal_t) -> *mut rpl_signal_t;
    pub fn rpl_signal_group_by(sig: *mut rpl_signal_t, key: rpl_map_fn, ctx: *mut c_void, release: rpl_release_fn) -> *mut rpl_signal_t;
}
