//! One owned reference to a runtime object: `Drop` releases it, `Clone` retains it.
use core::ffi::c_void;
use core::ptr::NonNull;
use ripple_sys as sys;

pub(crate) struct Handle<T> {
    ptr: NonNull<T>,
}

// The runtime's objects are reference counted atomically and every function may be
// called from any thread (ripple.h, "Threads").
unsafe impl<T> Send for Handle<T> {}
unsafe impl<T> Sync for Handle<T> {}

impl<T> Handle<T> {
    /// Takes over a +1 reference; None for NULL.
    pub(crate) unsafe fn from_owned(ptr: *mut T) -> Option<Self> {
        NonNull::new(ptr).map(|ptr| Handle { ptr })
    }

    /// Adds a reference to a borrowed handle; None for NULL.
    pub(crate) unsafe fn from_borrowed(ptr: *mut T) -> Option<Self> {
        let ptr = NonNull::new(ptr)?;
        sys::rpl_retain(ptr.as_ptr().cast());
        Some(Handle { ptr })
    }

    pub(crate) fn as_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Gives the reference away (to a C function that takes a +1 handle).
    pub(crate) fn into_raw(self) -> *mut T {
        let p = self.ptr.as_ptr();
        core::mem::forget(self);
        p
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        unsafe { sys::rpl_retain(self.ptr.as_ptr().cast::<c_void>()) };
        Handle { ptr: self.ptr }
    }
}

impl<T> Drop for Handle<T> {
    fn drop(&mut self) {
        unsafe { sys::rpl_release(self.ptr.as_ptr().cast::<c_void>()) }
    }
}
