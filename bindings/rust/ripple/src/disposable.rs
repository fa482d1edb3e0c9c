use crate::callback::{guard, into_ctx, release_ctx};
use crate::error::{check, Error};
use crate::handle::Handle;
use core::ffi::c_void;
use core::ops::Deref;
use ripple_sys as sys;
use std::fmt;

/// A disposable (`rpl_disposable_t`): something that can be stopped once.
///
/// Dropping it only drops the reference: as in ReactiveCocoa, a subscription goes on
/// until it terminates or [`dispose`](Disposable::dispose) is called. Use
/// [`dispose_on_drop`](Disposable::dispose_on_drop) for a scope-bound subscription.
#[derive(Clone)]
pub struct Disposable(pub(crate) Handle<sys::rpl_disposable_t>);

/// The disposable a subscription returns.
pub type Subscription = Disposable;

unsafe extern "C" fn run_once<F: FnOnce()>(ctx: *mut c_void) {
    // The runtime calls on_dispose at most once, before the release.
    let slot = &mut *ctx.cast::<Option<F>>();
    if let Some(f) = slot.take() {
        guard(|| (), f);
    }
}

impl Disposable {
    /// A disposable that runs `f` on the first `dispose`. `f` is dropped exactly once:
    /// after running, or unrun when the disposable is freed undisposed.
    pub fn new<F: FnOnce() + Send + 'static>(f: F) -> Disposable {
        let ctx = into_ctx::<Option<F>>(Some(f));
        unsafe {
            Disposable::from_owned(
                sys::rpl_disposable_create_with_release(Some(run_once::<F>), ctx, Some(release_ctx::<Option<F>>)),
                "rpl_disposable_create_with_release",
            )
        }
    }

    /// A disposable that only records being disposed.
    pub fn empty() -> Disposable {
        unsafe { Disposable::from_owned(sys::rpl_disposable_create(None, core::ptr::null_mut()), "rpl_disposable_create") }
    }

    pub(crate) unsafe fn from_owned(p: *mut sys::rpl_disposable_t, what: &str) -> Disposable {
        Disposable(Handle::from_owned(p).unwrap_or_else(|| crate::failed(what)))
    }

    /// Stops it (idempotent, any thread). On a subscription: no callback of that
    /// subscriber starts after this returns.
    pub fn dispose(&self) {
        unsafe { sys::rpl_disposable_dispose(self.as_ptr()) };
    }

    /// True once disposed (or, for a subscription, once it has terminated).
    pub fn is_disposed(&self) -> bool {
        unsafe { sys::rpl_disposable_is_disposed(self.as_ptr()) }
    }

    /// A guard that disposes this disposable when it is dropped.
    pub fn dispose_on_drop(self) -> DisposeOnDrop {
        DisposeOnDrop(self)
    }

    pub fn as_ptr(&self) -> *mut sys::rpl_disposable_t {
        self.0.as_ptr()
    }
}

impl fmt::Debug for Disposable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Disposable({:p}, disposed: {})", self.as_ptr(), self.is_disposed())
    }
}

/// Disposes its disposable when dropped (see [`Disposable::dispose_on_drop`]).
#[derive(Debug)]
pub struct DisposeOnDrop(Disposable);

impl Deref for DisposeOnDrop {
    type Target = Disposable;
    fn deref(&self) -> &Disposable {
        &self.0
    }
}

impl Drop for DisposeOnDrop {
    fn drop(&mut self) {
        self.0.dispose();
    }
}

/// A disposable holding others; disposing it disposes each of them. Adding to a
/// disposed one disposes the new one at once.
#[derive(Clone, Debug)]
pub struct CompoundDisposable(Disposable);

impl CompoundDisposable {
    pub fn new() -> Self {
        CompoundDisposable(unsafe {
            Disposable::from_owned(sys::rpl_compound_disposable_create(), "rpl_compound_disposable_create")
        })
    }
    pub fn add(&self, d: &Disposable) -> Result<(), Error> {
        check(unsafe { sys::rpl_compound_disposable_add(self.as_ptr(), d.as_ptr()) })
    }
    /// Removes `d` without disposing it.
    pub fn remove(&self, d: &Disposable) -> Result<(), Error> {
        check(unsafe { sys::rpl_compound_disposable_remove(self.as_ptr(), d.as_ptr()) })
    }
}

impl Default for CompoundDisposable {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for CompoundDisposable {
    type Target = Disposable;
    fn deref(&self) -> &Disposable {
        &self.0
    }
}

/// A disposable holding at most one other. Setting into a disposed one disposes the new
/// one at once.
#[derive(Clone, Debug)]
pub struct SerialDisposable(Disposable);

impl SerialDisposable {
    pub fn new() -> Self {
        SerialDisposable(unsafe {
            Disposable::from_owned(sys::rpl_serial_disposable_create(), "rpl_serial_disposable_create")
        })
    }
    /// Puts `d` (or nothing) in and returns the previous one, not disposed.
    pub fn swap(&self, d: Option<&Disposable>) -> Option<Disposable> {
        let p = d.map_or(core::ptr::null_mut(), Disposable::as_ptr);
        unsafe { Handle::from_owned(sys::rpl_serial_disposable_swap(self.as_ptr(), p)).map(Disposable) }
    }
}

impl Default for SerialDisposable {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for SerialDisposable {
    type Target = Disposable;
    fn deref(&self) -> &Disposable {
        &self.0
    }
}
