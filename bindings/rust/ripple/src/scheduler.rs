use crate::callback::{ctx_ref, guard, into_ctx, release_ctx};
use crate::disposable::Disposable;
use crate::error::{check, Error};
use crate::handle::Handle;
use crate::signal::ns;
use core::ffi::c_void;
use core::ops::Deref;
use ripple_sys as sys;
use std::ffi::CString;
use std::fmt;
use std::os::fd::RawFd;
use std::time::Duration;

/// A scheduler: where and when work runs. The immediate and background schedulers are
/// shared instances the runtime owns; the others are reference counted.
pub struct Scheduler {
    ptr: *mut sys::rpl_scheduler_t,
    // False for the shared instances, which must never be released.
    owned: bool,
}

// Every scheduler function may be called from any thread (ripple.h, threading contract).
unsafe impl Send for Scheduler {}
unsafe impl Sync for Scheduler {}

unsafe extern "C" fn run_once<F: FnOnce()>(ctx: *mut c_void) {
    // One-shot work runs at most once, before its release.
    if let Some(f) = (*ctx.cast::<Option<F>>()).take() {
        guard(|| (), f);
    }
}

unsafe extern "C" fn run_repeated<F: Fn()>(ctx: *mut c_void) {
    guard(|| (), ctx_ref::<F>(ctx));
}

impl Scheduler {
    unsafe fn shared(ptr: *mut sys::rpl_scheduler_t) -> Scheduler {
        Scheduler { ptr, owned: false }
    }

    unsafe fn from_owned(ptr: *mut sys::rpl_scheduler_t, what: &str) -> Scheduler {
        let h = Handle::from_owned(ptr).unwrap_or_else(|| crate::failed(what));
        Scheduler { ptr: h.into_raw(), owned: true }
    }

    unsafe fn from_borrowed(ptr: *mut sys::rpl_scheduler_t) -> Option<Scheduler> {
        if ptr == sys::rpl_scheduler_immediate() || ptr == sys::rpl_scheduler_background() {
            return Some(Scheduler::shared(ptr));
        }
        Handle::from_borrowed(ptr).map(|h| Scheduler { ptr: h.into_raw(), owned: true })
    }

    /// Runs work on the calling thread, at once (a trampoline for nested work).
    pub fn immediate() -> Scheduler {
        unsafe { Scheduler::shared(sys::rpl_scheduler_immediate()) }
    }

    /// The shared pool of worker threads.
    pub fn background() -> Scheduler {
        unsafe { Scheduler::shared(sys::rpl_scheduler_background()) }
    }

    /// A new serial scheduler with a thread of its own named `label`.
    pub fn serial(label: &str) -> Scheduler {
        let label = CString::new(label.replace('\0', "")).unwrap();
        unsafe { Scheduler::from_owned(sys::rpl_scheduler_create_serial(label.as_ptr()), "rpl_scheduler_create_serial") }
    }

    /// The scheduler running the calling code, if it runs inside scheduled work.
    pub fn current() -> Option<Scheduler> {
        unsafe { Scheduler::from_borrowed(sys::rpl_scheduler_current()) }
    }

    /// The scheduler's clock in ns (virtual time on a test scheduler).
    pub fn now(&self) -> u64 {
        unsafe { sys::rpl_scheduler_now(self.ptr) }
    }

    /// Runs `f` as soon as possible; disposing the result before it ran cancels it.
    pub fn schedule<F: FnOnce() + Send + 'static>(&self, f: F) -> Disposable {
        let ctx = into_ctx::<Option<F>>(Some(f));
        unsafe {
            Disposable::from_owned(
                sys::rpl_scheduler_schedule(self.ptr, Some(run_once::<F>), ctx, Some(release_ctx::<Option<F>>)),
                "rpl_scheduler_schedule",
            )
        }
    }

    /// Runs `f` once `delay` has passed.
    pub fn after<F: FnOnce() + Send + 'static>(&self, delay: Duration, f: F) -> Disposable {
        let ctx = into_ctx::<Option<F>>(Some(f));
        unsafe {
            Disposable::from_owned(
                sys::rpl_scheduler_after(self.ptr, ns(delay), Some(run_once::<F>), ctx, Some(release_ctx::<Option<F>>)),
                "rpl_scheduler_after",
            )
        }
    }

    /// Runs `f` after `delay`, then every `interval`, until the result is disposed.
    ///
    /// # Panics
    /// On a zero interval or the immediate scheduler.
    pub fn repeat<F: Fn() + Send + Sync + 'static>(&self, delay: Duration, interval: Duration, f: F) -> Disposable {
        let ctx = into_ctx::<F>(f);
        unsafe {
            Disposable::from_owned(
                sys::rpl_scheduler_repeat(self.ptr, ns(delay), ns(interval), Some(run_repeated::<F>), ctx, Some(release_ctx::<F>)),
                "rpl_scheduler_repeat",
            )
        }
    }

    pub fn as_ptr(&self) -> *mut sys::rpl_scheduler_t {
        self.ptr
    }
}

impl Clone for Scheduler {
    fn clone(&self) -> Self {
        if self.owned {
            unsafe { sys::rpl_retain(self.ptr.cast()) };
        }
        Scheduler { ptr: self.ptr, owned: self.owned }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        if self.owned {
            unsafe { sys::rpl_release(self.ptr.cast()) };
        }
    }
}

impl PartialEq for Scheduler {
    fn eq(&self, other: &Scheduler) -> bool {
        self.ptr == other.ptr
    }
}

impl fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scheduler({:p})", self.ptr)
    }
}

/// A scheduler with a virtual clock: work runs only in [`advance_by`](Self::advance_by)
/// and [`run`](Self::run), on the calling thread, so time-based code is tested without
/// sleeping. Dereferences to its [`Scheduler`].
#[derive(Clone, Debug)]
pub struct TestScheduler(Scheduler);

impl TestScheduler {
    pub fn new() -> TestScheduler {
        TestScheduler(unsafe { Scheduler::from_owned(sys::rpl_test_scheduler_create(), "rpl_test_scheduler_create") })
    }

    /// Moves the clock forward by `d`, running what falls due, in time order.
    pub fn advance_by(&self, d: Duration) {
        let status = unsafe { sys::rpl_test_scheduler_advance_by(self.0.ptr, ns(d)) };
        debug_assert_eq!(status, sys::RPL_OK);
    }

    /// Runs until nothing is pending (never with repeating work pending).
    pub fn run(&self) {
        let status = unsafe { sys::rpl_test_scheduler_run(self.0.ptr) };
        debug_assert_eq!(status, sys::RPL_OK);
    }
}

impl Default for TestScheduler {
    fn default() -> Self {
        Self::new()
    }
}

impl Deref for TestScheduler {
    type Target = Scheduler;
    fn deref(&self) -> &Scheduler {
        &self.0
    }
}

/// A scheduler whose work runs only when the program drives it, on the driving thread
/// (a GUI or event-loop thread). Its [`fd`](Self::fd) is readable while work is
/// pending. Dereferences to its [`Scheduler`].
#[derive(Clone, Debug)]
pub struct RunLoop {
    scheduler: Scheduler,
}

impl RunLoop {
    /// A new run loop; fails if its descriptors cannot be created.
    pub fn new() -> Result<RunLoop, Error> {
        let raw = unsafe { sys::rpl_run_loop_create() };
        if raw.is_null() {
            return Err(Error::last());
        }
        // The run loop and its scheduler are the same object: keep that one reference.
        let sched = unsafe { sys::rpl_run_loop_scheduler(raw) };
        assert_eq!(sched.cast::<c_void>(), raw.cast::<c_void>(), "run loop and scheduler differ");
        Ok(RunLoop { scheduler: Scheduler { ptr: sched, owned: true } })
    }

    fn raw(&self) -> *mut sys::rpl_run_loop_t {
        self.scheduler.ptr.cast()
    }

    /// The descriptor to poll (POLLIN); owned by the loop.
    pub fn fd(&self) -> RawFd {
        unsafe { sys::rpl_run_loop_fd(self.raw()) }
    }

    /// Runs ready and due work until there is none; returns how many items ran.
    pub fn run_until_idle(&self) -> Result<u64, Error> {
        count(unsafe { sys::rpl_run_loop_run_until_idle(self.raw()) })
    }

    /// Runs at most one item; true if one ran.
    pub fn run_one(&self) -> Result<bool, Error> {
        count(unsafe { sys::rpl_run_loop_run_one(self.raw()) }).map(|n| n == 1)
    }

    /// Runs work, sleeping while there is none, until [`stop`](Self::stop).
    pub fn run(&self) -> Result<(), Error> {
        check(unsafe { sys::rpl_run_loop_run(self.raw()) })
    }

    /// Makes `run` return after its current item (any thread).
    pub fn stop(&self) {
        unsafe { sys::rpl_run_loop_stop(self.raw()) };
    }

    /// Time until the loop next has work: zero if it has some now, None if nothing is
    /// pending.
    pub fn next_timeout(&self) -> Option<Duration> {
        let t = unsafe { sys::rpl_run_loop_next_timeout(self.raw()) };
        (t != u64::MAX).then(|| Duration::from_nanos(t))
    }

    pub fn scheduler(&self) -> Scheduler {
        self.scheduler.clone()
    }
}

impl Deref for RunLoop {
    type Target = Scheduler;
    fn deref(&self) -> &Scheduler {
        &self.scheduler
    }
}

fn count(n: i64) -> Result<u64, Error> {
    if n >= 0 {
        Ok(n as u64)
    } else {
        Err(Error::last())
    }
}
