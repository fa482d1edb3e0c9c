//! Closures handed to C: boxed into `ctx`, freed by the C `release` exactly once, and
//! never unwinding into C.
use core::ffi::c_void;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// How many panics inside callbacks have been caught (and swallowed) so far.
pub fn callback_panics() -> usize {
    PANICS.load(Ordering::Relaxed)
}

/// Boxes a closure for a C `ctx`; [`release_ctx::<F>`] frees it.
pub(crate) fn into_ctx<F>(f: F) -> *mut c_void {
    Box::into_raw(Box::new(f)).cast()
}

/// The C `release` of a context made by [`into_ctx`]: drops the closure (and what it
/// captured). A panicking destructor is caught like any callback.
pub(crate) unsafe extern "C" fn release_ctx<F>(ctx: *mut c_void) {
    if !ctx.is_null() {
        guard(|| (), || drop(Box::from_raw(ctx.cast::<F>())));
    }
}

/// Borrows the closure behind a context made by [`into_ctx`].
pub(crate) unsafe fn ctx_ref<'a, F>(ctx: *mut c_void) -> &'a F {
    &*ctx.cast::<F>()
}

/// Runs a user callback on behalf of C. A panic must not unwind into C (that would
/// abort), so it is caught, handed to [`callback_panicked`], and `fallback` gives the
/// value C gets instead.
#[inline]
pub(crate) fn guard<R>(fallback: impl FnOnce() -> R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            callback_panicked(payload);
            fallback()
        }
    }
}

/// The message a panic was raised with.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-string payload".to_string()
    }
}

/// The one place a callback's panic is handled. ripple.h 0.1 has no failure channel for
/// callbacks, so the panic is reported (the panic hook has already printed it; this
/// says it was swallowed) and counted. When `rpl_callback_fail` exists, call it here
/// with an error made from the message, so the panic becomes the signal's error.
fn callback_panicked(payload: Box<dyn Any + Send>) {
    PANICS.fetch_add(1, Ordering::Relaxed);
    eprintln!("ripple: a callback panicked; the panic was caught and swallowed: {}", panic_message(&*payload));
}
