//! Closures handed to C: boxed into `ctx`, freed by the C `release` exactly once, and
//! never unwinding into C.
use core::ffi::c_void;
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

static PANICS: AtomicUsize = AtomicUsize::new(0);

/// How many panics inside callbacks have been caught so far (turned into the
/// operator's error, or swallowed where no operator can fail).
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

/// The one place a callback's panic is handled. Inside an operator callback (map,
/// filter, scan, ...) the panic becomes that operator's error through
/// `rpl_callback_fail` (domain [`Error::PANIC_DOMAIN`](crate::Error::PANIC_DOMAIN),
/// code `RPL_ERROR_CALLBACK`, the panic's message); the fallback value C gets is
/// then discarded by the runtime. Anywhere else (subscriber callbacks, scheduled
/// work, disposables, destructors) the runtime refuses, and the panic is reported and
/// swallowed. Either way it is counted.
fn callback_panicked(payload: Box<dyn Any + Send>) {
    PANICS.fetch_add(1, Ordering::Relaxed);
    let message = panic_message(&*payload);
    let error = crate::Error::new(crate::Error::PANIC_DOMAIN, i64::from(ripple_sys::RPL_ERROR_CALLBACK), message.clone());
    // rpl_callback_fail consumes the handle, whatever it returns.
    let status = unsafe { ripple_sys::rpl_callback_fail(error.to_handle().into_raw()) };
    if status != ripple_sys::RPL_OK {
        eprintln!("ripple: a callback panicked; the panic was caught and swallowed: {message}");
    }
}
