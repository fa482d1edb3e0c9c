use crate::callback::{ctx_ref, guard, into_ctx, panic_message, release_ctx};
use crate::connection::Connection;
use crate::disposable::{Disposable, Subscription};
use crate::error::Error;
use crate::handle::Handle;
use crate::scheduler::Scheduler;
use crate::subject::Subject;
use crate::value::{drop_value, Event, Value};
use core::ffi::c_void;
use core::ptr::null_mut;
use ripple_sys as sys;
use std::fmt;
use std::sync::mpsc;
use std::time::Duration;

/// A signal (`rpl_signal_t`): a stream of values ending with an error or a completion.
/// Cloning adds a reference to the same signal; every method works from any thread.
#[derive(Clone)]
pub struct Signal(pub(crate) Handle<sys::rpl_signal_t>);

/// Nanoseconds for the C API; `Duration::MAX` (see [`crate::FOREVER`]) saturates to
/// `RPL_FOREVER`.
pub(crate) fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

// --- Trampolines: C calls these with the boxed closure as ctx ------------------------------

unsafe extern "C" fn map_fn<F: Fn(&Value) -> Value>(ctx: *mut c_void, v: *const sys::rpl_value) -> sys::rpl_value {
    let f = ctx_ref::<F>(ctx);
    let v = Value::from_raw(v);
    let out = guard(|| Value::Nil, || f(&v));
    drop_value(v);
    out.into_raw()
}

unsafe extern "C" fn predicate_fn<F: Fn(&Value) -> bool>(ctx: *mut c_void, v: *const sys::rpl_value) -> bool {
    let f = ctx_ref::<F>(ctx);
    let v = Value::from_raw(v);
    let out = guard(|| false, || f(&v));
    drop_value(v);
    out
}

unsafe extern "C" fn reduce_fn<F: Fn(&Value, &Value) -> Value>(
    ctx: *mut c_void,
    acc: *const sys::rpl_value,
    v: *const sys::rpl_value,
) -> sys::rpl_value {
    let f = ctx_ref::<F>(ctx);
    let (acc_v, v) = (Value::from_raw(acc), Value::from_raw(v));
    // A panicking reducer keeps the accumulator (acc is still valid then).
    let out = guard(|| Value::from_raw(acc), || f(&acc_v, &v));
    drop_value(acc_v);
    drop_value(v);
    out.into_raw()
}

unsafe extern "C" fn value_fn<F: Fn(&Value)>(ctx: *mut c_void, v: *const sys::rpl_value) {
    let f = ctx_ref::<F>(ctx);
    let v = Value::from_raw(v);
    guard(|| (), || f(&v));
    drop_value(v);
}

unsafe extern "C" fn error_fn<F: Fn(&Error)>(ctx: *mut c_void, e: *const sys::rpl_error_t) {
    let f = ctx_ref::<F>(ctx);
    guard(|| (), || f(&Error::from_raw(e)))
}

unsafe extern "C" fn unit_fn<F: Fn()>(ctx: *mut c_void) {
    let f = ctx_ref::<F>(ctx);
    guard(|| (), f)
}

unsafe extern "C" fn bind_fn<F: Fn(&Value, &mut bool) -> Option<Signal>>(
    ctx: *mut c_void,
    v: *const sys::rpl_value,
    stop: *mut bool,
) -> *mut sys::rpl_signal_t {
    let f = ctx_ref::<F>(ctx);
    // A panicking bind returns NULL, which ends the source side.
    guard(|| None, || f(&Value::from_raw(v), &mut *stop)).map_or(null_mut(), Signal::into_raw)
}

unsafe extern "C" fn flatten_map_fn<F: Fn(&Value) -> Signal>(
    ctx: *mut c_void,
    v: *const sys::rpl_value,
) -> *mut sys::rpl_signal_t {
    let f = ctx_ref::<F>(ctx);
    // NULL is an empty inner signal.
    guard(|| None, || Some(f(&Value::from_raw(v)))).map_or(null_mut(), Signal::into_raw)
}

unsafe extern "C" fn catch_fn<F: Fn(&Error) -> Signal>(
    ctx: *mut c_void,
    e: *const sys::rpl_error_t,
) -> *mut sys::rpl_signal_t {
    let f = ctx_ref::<F>(ctx);
    // NULL passes the original error on.
    guard(|| None, || Some(f(&Error::from_raw(e)))).map_or(null_mut(), Signal::into_raw)
}

unsafe extern "C" fn defer_fn<F: Fn() -> Signal>(ctx: *mut c_void) -> *mut sys::rpl_signal_t {
    let f = ctx_ref::<F>(ctx);
    // NULL fails that subscription with an RPL_ERROR_CALLBACK error.
    guard(|| None, || Some(f())).map_or(null_mut(), Signal::into_raw)
}

unsafe extern "C" fn subscribe_fn<F: Fn(Subscriber) -> Option<Disposable>>(
    ctx: *mut c_void,
    subscriber: *mut sys::rpl_subscriber_t,
) -> *mut sys::rpl_disposable_t {
    let f = ctx_ref::<F>(ctx);
    let Some(handle) = Handle::from_borrowed(subscriber) else { return null_mut() };
    let s = Subscriber(handle);
    let keep = s.clone();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(s))) {
        Ok(d) => d.map_or(null_mut(), |d| d.0.into_raw()),
        Err(payload) => {
            // Here the subscriber is at hand, so the panic becomes its error.
            let message = panic_message(&*payload);
            keep.send_error(Error::new(Error::PANIC_DOMAIN, i64::from(sys::RPL_ERROR_CALLBACK), message));
            null_mut()
        }
    }
}

struct Observer<N, E, C> {
    next: N,
    error: E,
    completed: C,
}

unsafe extern "C" fn obs_next<N: Fn(&Value), E, C>(ctx: *mut c_void, v: *const sys::rpl_value) {
    let o = ctx_ref::<Observer<N, E, C>>(ctx);
    let v = Value::from_raw(v);
    guard(|| (), || (o.next)(&v));
    drop_value(v);
}

unsafe extern "C" fn obs_error<N, E: Fn(&Error), C>(ctx: *mut c_void, e: *const sys::rpl_error_t) {
    let o = ctx_ref::<Observer<N, E, C>>(ctx);
    guard(|| (), || (o.error)(&Error::from_raw(e)))
}

unsafe extern "C" fn obs_completed<N, E, C: Fn()>(ctx: *mut c_void) {
    let o = ctx_ref::<Observer<N, E, C>>(ctx);
    guard(|| (), || (o.completed)())
}

/// Passes a closure to a C function taking `(fn, ctx, release)` last: the closure is
/// freed by `release`, also when the call fails.
macro_rules! with_closure {
    ($f:ident, $tramp:ident, |$fnp:ident, $ctx:ident, $rel:ident| $call:expr) => {{
        let $ctx = into_ctx::<F>($f);
        let $fnp = Some($tramp::<F> as _);
        let $rel: sys::rpl_release_fn = Some(release_ctx::<F>);
        unsafe { $call }
    }};
}

impl Signal {
    /// Takes over a +1 signal, panicking with the runtime's message for NULL.
    pub(crate) unsafe fn from_owned(p: *mut sys::rpl_signal_t, what: &str) -> Signal {
        Signal(Handle::from_owned(p).unwrap_or_else(|| crate::failed(what)))
    }

    pub(crate) unsafe fn from_borrowed(p: *mut sys::rpl_signal_t) -> Option<Signal> {
        Handle::from_borrowed(p).map(Signal)
    }

    /// The raw handle, borrowed.
    pub fn as_ptr(&self) -> *mut sys::rpl_signal_t {
        self.0.as_ptr()
    }

    /// Gives the reference away (+1), for C functions that take one.
    pub fn into_raw(self) -> *mut sys::rpl_signal_t {
        self.0.into_raw()
    }

    // --- Creating ---------------------------------------------------------------------------

    /// A cold signal: `f` runs once per subscription with its [`Subscriber`], which may
    /// be kept and sent to later from any thread. It returns what to dispose when the
    /// subscription ends. A panic in `f` sends the subscriber an error of domain
    /// [`Error::PANIC_DOMAIN`].
    pub fn create<F>(f: F) -> Signal
    where
        F: Fn(Subscriber) -> Option<Disposable> + Send + Sync + 'static,
    {
        with_closure!(f, subscribe_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_create(fp, ctx, rel),
            "rpl_signal_create"
        ))
    }

    /// Sends `v`, then completes (`rpl_signal_return`).
    pub fn return_(v: impl Into<Value>) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_return(v.into().into_raw()), "rpl_signal_return") }
    }

    /// Completes at once.
    pub fn empty() -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_empty(), "rpl_signal_empty") }
    }

    /// Fails at once with `e`.
    pub fn error(e: Error) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_error(e.to_handle().as_ptr()), "rpl_signal_error") }
    }

    /// Never sends anything.
    pub fn never() -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_never(), "rpl_signal_never") }
    }

    /// Calls `f` at each subscription and subscribes to the signal it returns.
    pub fn defer<F: Fn() -> Signal + Send + Sync + 'static>(f: F) -> Signal {
        with_closure!(f, defer_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_defer(fp, ctx, rel),
            "rpl_signal_defer"
        ))
    }

    /// The ints 0, 1, 2, ... on `s`, every `period`; never completes.
    ///
    /// # Panics
    /// On a zero period or the immediate scheduler.
    pub fn interval(period: Duration, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_interval(ns(period), s.as_ptr()), "rpl_signal_interval") }
    }

    /// All values of `signals` as they arrive; completes when all have.
    pub fn merge(signals: &[Signal]) -> Signal {
        let raw: Vec<_> = signals.iter().map(Signal::as_ptr).collect();
        unsafe { Signal::from_owned(sys::rpl_signal_merge(raw.as_ptr(), raw.len()), "rpl_signal_merge") }
    }

    /// A tuple of every input's latest value, each time one sends (once all have).
    pub fn combine_latest(signals: &[Signal]) -> Signal {
        let raw: Vec<_> = signals.iter().map(Signal::as_ptr).collect();
        unsafe {
            Signal::from_owned(sys::rpl_signal_combine_latest(raw.as_ptr(), raw.len()), "rpl_signal_combine_latest")
        }
    }

    /// Tuples of the i-th values of every input.
    pub fn zip(signals: &[Signal]) -> Signal {
        let raw: Vec<_> = signals.iter().map(Signal::as_ptr).collect();
        unsafe { Signal::from_owned(sys::rpl_signal_zip(raw.as_ptr(), raw.len()), "rpl_signal_zip") }
    }

    // --- Subscribing ------------------------------------------------------------------------

    /// Subscribes with a callback per event. The callbacks of one subscription never run
    /// at the same time; they are dropped exactly once, after the subscription ended.
    pub fn subscribe<N, E, C>(&self, on_next: N, on_error: E, on_completed: C) -> Subscription
    where
        N: Fn(&Value) + Send + Sync + 'static,
        E: Fn(&Error) + Send + Sync + 'static,
        C: Fn() + Send + Sync + 'static,
    {
        let ctx = into_ctx(Observer { next: on_next, error: on_error, completed: on_completed });
        let obs = sys::rpl_observer {
            version: sys::RPL_OBSERVER_INIT.version,
            on_next: Some(obs_next::<N, E, C>),
            on_error: Some(obs_error::<N, E, C>),
            on_completed: Some(obs_completed::<N, E, C>),
            release: Some(release_ctx::<Observer<N, E, C>>),
            ctx,
        };
        unsafe { Disposable::from_owned(sys::rpl_signal_subscribe(self.as_ptr(), &obs), "rpl_signal_subscribe") }
    }

    /// Subscribes to values only; errors and completion end the subscription silently.
    pub fn subscribe_next<F: Fn(&Value) + Send + Sync + 'static>(&self, on_next: F) -> Subscription {
        let obs = sys::rpl_observer {
            version: sys::RPL_OBSERVER_INIT.version,
            on_next: Some(value_fn::<F>),
            on_error: None,
            on_completed: None,
            release: Some(release_ctx::<F>),
            ctx: into_ctx(on_next),
        };
        unsafe { Disposable::from_owned(sys::rpl_signal_subscribe(self.as_ptr(), &obs), "rpl_signal_subscribe") }
    }

    /// Sends this signal's events into `subject`; disposing the result unsubscribes it.
    pub fn subscribe_subject(&self, subject: &Subject) -> Subscription {
        unsafe {
            Disposable::from_owned(
                sys::rpl_signal_subscribe_subject(self.as_ptr(), subject.as_subject_ptr()),
                "rpl_signal_subscribe_subject",
            )
        }
    }

    // --- Blocking helpers -------------------------------------------------------------------

    /// Waits for the first value. Errors: the signal's error, or a status error
    /// (`RPL_ERR_TIMEOUT`, `RPL_ERR_NO_VALUE`). [`crate::FOREVER`] waits without limit.
    pub fn first(&self, timeout: Duration) -> Result<Value, Error> {
        let mut out = unsafe { sys::rpl_nil() };
        let status = unsafe { sys::rpl_signal_first(self.as_ptr(), &mut out, ns(timeout)) };
        let value = unsafe { Value::from_owned_raw(out) };
        blocking(status).map(|_| value)
    }

    /// Waits until the signal terminates.
    pub fn wait(&self, timeout: Duration) -> Result<(), Error> {
        blocking(unsafe { sys::rpl_signal_wait(self.as_ptr(), ns(timeout)) })
    }

    /// Every value, once the signal completes.
    pub fn to_vec(&self, timeout: Duration) -> Result<Vec<Value>, Error> {
        let mut out = unsafe { sys::rpl_nil() };
        let status = unsafe { sys::rpl_signal_to_array(self.as_ptr(), &mut out, ns(timeout)) };
        let value = unsafe { Value::from_owned_raw(out) };
        blocking(status)?;
        match value {
            Value::Tuple(items) => Ok(items),
            other => Ok(vec![other]),
        }
    }

    /// Subscribes and iterates over the values: `Ok(value)` per value, then `None` at
    /// completion; an error (the signal's, or a timeout when no event came within
    /// `timeout` of asking) is yielded as `Err` and ends the iteration. Dropping the
    /// iterator disposes the subscription.
    pub fn iter(&self, timeout: Duration) -> SignalIter {
        let (tx, rx) = mpsc::channel::<Event>();
        let (t1, t2) = (tx.clone(), tx.clone());
        let subscription = self.subscribe(
            move |v| drop(tx.send(Event::Next(v.clone()))),
            move |e| drop(t1.send(Event::Error(e.clone()))),
            move || drop(t2.send(Event::Completed)),
        );
        SignalIter { rx, subscription, timeout, done: false }
    }

    // --- Transforming -----------------------------------------------------------------------

    pub fn map<F: Fn(&Value) -> Value + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, map_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_map(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_map"
        ))
    }

    /// The values for which `f` is true (a panicking `f` counts as false).
    pub fn filter<F: Fn(&Value) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, predicate_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_filter(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_filter"
        ))
    }

    /// Running accumulations `acc = f(&acc, &v)` from `initial`, each sent.
    pub fn scan<F: Fn(&Value, &Value) -> Value + Send + Sync + 'static>(&self, initial: impl Into<Value>, f: F) -> Signal {
        let init = initial.into().into_raw();
        with_closure!(f, reduce_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_scan(self.as_ptr(), init, fp, ctx, rel),
            "rpl_signal_scan"
        ))
    }

    /// Like scan, but sends only the final accumulation, at completion.
    pub fn aggregate<F: Fn(&Value, &Value) -> Value + Send + Sync + 'static>(
        &self,
        initial: impl Into<Value>,
        f: F,
    ) -> Signal {
        let init = initial.into().into_raw();
        with_closure!(f, reduce_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_aggregate(self.as_ptr(), init, fp, ctx, rel),
            "rpl_signal_aggregate"
        ))
    }

    /// Drops each value equal to the previous one sent.
    pub fn distinct_until_changed(&self) -> Signal {
        self.unary(sys::rpl_signal_distinct_until_changed, "rpl_signal_distinct_until_changed")
    }

    /// Every event as a [`Value::Event`]; the result never fails.
    pub fn materialize(&self) -> Signal {
        self.unary(sys::rpl_signal_materialize, "rpl_signal_materialize")
    }

    /// The inverse of `materialize`.
    pub fn dematerialize(&self) -> Signal {
        self.unary(sys::rpl_signal_dematerialize, "rpl_signal_dematerialize")
    }

    /// One tuple of every value, at completion.
    pub fn collect(&self) -> Signal {
        self.unary(sys::rpl_signal_collect, "rpl_signal_collect")
    }

    /// RAC's bind: `f(value, &mut stop)` gives a signal to merge in (or None); setting
    /// `stop` (or returning None) ends the source side.
    pub fn bind<F: Fn(&Value, &mut bool) -> Option<Signal> + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, bind_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_bind(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_bind"
        ))
    }

    /// Merges the signals `f` returns for each value.
    pub fn flatten_map<F: Fn(&Value) -> Signal + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, flatten_map_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_flatten_map(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_flatten_map"
        ))
    }

    /// Merges a signal of [`Value::Signal`]s.
    pub fn flatten(&self) -> Signal {
        self.unary(sys::rpl_signal_flatten, "rpl_signal_flatten")
    }

    /// Follows only the latest inner signal of a signal of signals.
    pub fn switch_to_latest(&self) -> Signal {
        self.unary(sys::rpl_signal_switch_to_latest, "rpl_signal_switch_to_latest")
    }

    // --- Combining --------------------------------------------------------------------------

    /// This signal's events, then `next`'s.
    pub fn concat(&self, next: &Signal) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_concat(self.as_ptr(), next.as_ptr()), "rpl_signal_concat") }
    }

    /// `v` first, then this signal's events.
    pub fn start_with(&self, v: impl Into<Value>) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_start_with(self.as_ptr(), v.into().into_raw()), "rpl_signal_start_with") }
    }

    /// Ignores this signal's values; when it completes, `next`'s events.
    pub fn then(&self, next: &Signal) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_then(self.as_ptr(), next.as_ptr()), "rpl_signal_then") }
    }

    /// Events until `trigger` sends a value or completes.
    pub fn take_until(&self, trigger: &Signal) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_take_until(self.as_ptr(), trigger.as_ptr()), "rpl_signal_take_until") }
    }

    // --- Limiting ---------------------------------------------------------------------------

    pub fn take(&self, n: usize) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_take(self.as_ptr(), n), "rpl_signal_take") }
    }

    pub fn skip(&self, n: usize) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_skip(self.as_ptr(), n), "rpl_signal_skip") }
    }

    /// The last `n` values, at completion.
    pub fn take_last(&self, n: usize) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_take_last(self.as_ptr(), n), "rpl_signal_take_last") }
    }

    /// Values while `f` is true; completes at the first false (a panic counts as false).
    pub fn take_while<F: Fn(&Value) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, predicate_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_take_while(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_take_while"
        ))
    }

    /// Drops values while `f` is true (a panic counts as false).
    pub fn skip_while<F: Fn(&Value) -> bool + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, predicate_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_skip_while(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_skip_while"
        ))
    }

    // --- Side effects and recovery ----------------------------------------------------------

    pub fn do_next<F: Fn(&Value) + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, value_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_do_next(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_do_next"
        ))
    }

    pub fn do_error<F: Fn(&Error) + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, error_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_do_error(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_do_error"
        ))
    }

    pub fn do_completed<F: Fn() + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, unit_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_do_completed(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_do_completed"
        ))
    }

    /// On an error, continues with the signal `f` returns for it.
    pub fn catch<F: Fn(&Error) -> Signal + Send + Sync + 'static>(&self, f: F) -> Signal {
        with_closure!(f, catch_fn, |fp, ctx, rel| Signal::from_owned(
            sys::rpl_signal_catch(self.as_ptr(), fp, ctx, rel),
            "rpl_signal_catch"
        ))
    }

    /// On an error, continues with `replacement`.
    pub fn catch_to(&self, replacement: &Signal) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_catch_to(self.as_ptr(), replacement.as_ptr()), "rpl_signal_catch_to") }
    }

    /// Resubscribes at most `n` times after an error (`usize::MAX`: without limit).
    pub fn retry(&self, n: usize) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_retry(self.as_ptr(), n), "rpl_signal_retry") }
    }

    /// Subscribes `n` times in all, one after the other (`usize::MAX`: forever).
    pub fn repeat(&self, n: usize) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_repeat(self.as_ptr(), n), "rpl_signal_repeat") }
    }

    // --- Multicasting -----------------------------------------------------------------------

    /// A connection through a new plain subject (not connected yet).
    pub fn publish(&self) -> Connection {
        unsafe { Connection::from_owned(sys::rpl_signal_publish(self.as_ptr()), "rpl_signal_publish") }
    }

    /// A connection through `subject` (not connected yet).
    pub fn multicast(&self, subject: &Subject) -> Connection {
        unsafe {
            Connection::from_owned(sys::rpl_signal_multicast(self.as_ptr(), subject.as_subject_ptr()), "rpl_signal_multicast")
        }
    }

    /// Subscribed at once; every subscriber gets every value, then the terminal event.
    pub fn replay(&self) -> Signal {
        self.unary(sys::rpl_signal_replay, "rpl_signal_replay")
    }

    /// Subscribed at once; subscribers get the latest value, then live events.
    pub fn replay_last(&self) -> Signal {
        self.unary(sys::rpl_signal_replay_last, "rpl_signal_replay_last")
    }

    /// Like replay, but subscribed on the first subscription.
    pub fn replay_lazily(&self) -> Signal {
        self.unary(sys::rpl_signal_replay_lazily, "rpl_signal_replay_lazily")
    }

    // --- Schedulers and time ----------------------------------------------------------------

    /// Subscribes on `s`.
    pub fn subscribe_on(&self, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_subscribe_on(self.as_ptr(), s.as_ptr()), "rpl_signal_subscribe_on") }
    }

    /// Delivers every event on `s`.
    pub fn deliver_on(&self, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_deliver_on(self.as_ptr(), s.as_ptr()), "rpl_signal_deliver_on") }
    }

    /// Delays values and completion by `d` on `s`.
    pub fn delay(&self, d: Duration, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_delay(self.as_ptr(), ns(d), s.as_ptr()), "rpl_signal_delay") }
    }

    /// Sends a value once `d` passes with no newer one (RAC's throttle, Rx's debounce).
    ///
    /// # Panics
    /// On the immediate scheduler.
    pub fn throttle(&self, d: Duration, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_throttle(self.as_ptr(), ns(d), s.as_ptr()), "rpl_signal_throttle") }
    }

    /// Fails with a timeout error (see [`Error::is_timeout`]) unless terminated within `d`.
    ///
    /// # Panics
    /// On the immediate scheduler.
    pub fn timeout(&self, d: Duration, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_timeout(self.as_ptr(), ns(d), s.as_ptr()), "rpl_signal_timeout") }
    }

    fn unary(&self, op: unsafe extern "C" fn(*mut sys::rpl_signal_t) -> *mut sys::rpl_signal_t, what: &str) -> Signal {
        unsafe { Signal::from_owned(op(self.as_ptr()), what) }
    }
}

fn blocking(status: sys::rpl_status) -> Result<(), Error> {
    match status {
        sys::RPL_OK => Ok(()),
        sys::RPL_ERR_FAILED => {
            let e = unsafe { sys::rpl_last_signal_error() };
            Err(if e.is_null() { Error::from_status(status) } else { unsafe { Error::from_raw(e) } })
        }
        _ => Err(Error::from_status(status)),
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signal({:p})", self.as_ptr())
    }
}

/// The iterator of [`Signal::iter`].
pub struct SignalIter {
    rx: mpsc::Receiver<Event>,
    subscription: Subscription,
    timeout: Duration,
    done: bool,
}

impl Iterator for SignalIter {
    type Item = Result<Value, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = match self.rx.recv_timeout(self.timeout) {
            Ok(Event::Next(v)) => return Some(Ok(v)),
            Ok(Event::Error(e)) => Some(Err(e)),
            Ok(Event::Completed) => None,
            Err(mpsc::RecvTimeoutError::Timeout) => Some(Err(Error::from_status(sys::RPL_ERR_TIMEOUT))),
            // The subscription ended without a terminal event (its sources were freed).
            Err(mpsc::RecvTimeoutError::Disconnected) => None,
        };
        self.done = true;
        self.subscription.dispose();
        item
    }
}

impl Drop for SignalIter {
    fn drop(&mut self) {
        self.subscription.dispose();
    }
}

/// The sending side of one subscription of a [`Signal::create`] signal. It is also the
/// subscription's disposable. Clone it to keep sending after the callback returned.
#[derive(Clone)]
pub struct Subscriber(Handle<sys::rpl_subscriber_t>);

impl Subscriber {
    pub fn send_next(&self, v: impl Into<Value>) {
        unsafe { sys::rpl_subscriber_send_next(self.0.as_ptr(), v.into().into_raw()) };
    }
    pub fn send_error(&self, e: Error) {
        unsafe { sys::rpl_subscriber_send_error(self.0.as_ptr(), e.to_handle().as_ptr()) };
    }
    pub fn send_completed(&self) {
        unsafe { sys::rpl_subscriber_send_completed(self.0.as_ptr()) };
    }
    /// True once the subscription terminated or was disposed: a producer should stop.
    pub fn is_disposed(&self) -> bool {
        unsafe { sys::rpl_subscriber_is_disposed(self.0.as_ptr()) }
    }
    /// Ends the subscription from the producer's side.
    pub fn dispose(&self) {
        unsafe { sys::rpl_disposable_dispose(self.0.as_ptr().cast()) };
    }
}

impl fmt::Debug for Subscriber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Subscriber({:p})", self.0.as_ptr())
    }
}
