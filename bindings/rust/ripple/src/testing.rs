//! Marble tests (`ripple.h`, "Marble tests"): signals drawn as text on a test scheduler,
//! one character per frame of 1 ms, in RxJS's run-mode syntax.
//!
//! ```no_run
//! use ripple::testing::Marbles;
//! use std::time::Duration;
//!
//! let m = Marbles::new();
//! let clicks = m.hot("-a--b-c---d|", &[]);
//! m.expect(&clicks.throttle(Duration::from_millis(2), &m.scheduler()), "---a----c--(d|)", &[]);
//! assert_eq!(m.subscriptions(&clicks).unwrap(), ["^----------!"]);
//! ```
//!
//! [`Marbles::expect`] panics like `assert_eq!` (with both diagrams and a caret under the
//! first difference), so it reads as an assertion in a `#[test]`; [`Marbles::check`]
//! returns the difference as an [`Error`] instead. Values come from a table of
//! `(char, Value)` pairs; without an entry a digit is its int and any other character a
//! one-character string. A bad diagram is an error (`RPL_ERR_INVALID`, with the column).
use crate::error::Error;
use crate::scheduler::TestScheduler;
use crate::signal::Signal;
use crate::subject::Subject;
use crate::value::Value;
use ripple_sys as sys;
use std::ffi::CString;
use std::ptr::null;

/// Marble diagrams on one test scheduler. Frame 0 of [`expect`](Self::expect) and
/// [`record`](Self::record) is the scheduler's time at the call; each runs the scheduler
/// until nothing is pending.
#[derive(Clone, Debug, Default)]
pub struct Marbles {
    scheduler: TestScheduler,
}

/// A value table as C wants it: the values are the table's own references.
struct Table(Vec<sys::rpl_marble_value>);

impl Table {
    fn new(values: &[(char, Value)]) -> Result<Table, Error> {
        let mut t = Table(Vec::with_capacity(values.len()));
        for (key, value) in values {
            if !key.is_ascii() {
                return Err(Error::new(Error::STATUS_DOMAIN, sys::RPL_ERR_INVALID as i64,
                                      format!("ripple: a marble key is one ASCII character, not {key:?}")));
            }
            t.0.push(sys::rpl_marble_value { key: *key as u8 as _, value: value.clone().into_raw() });
        }
        Ok(t)
    }

    /// Hands the values to a C function that consumes them.
    fn give(mut self) -> Vec<sys::rpl_marble_value> {
        std::mem::take(&mut self.0)
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        for e in &mut self.0 {
            unsafe { sys::rpl_value_release(&mut e.value) };
        }
    }
}

fn text(s: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| Error::new(Error::STATUS_DOMAIN, sys::RPL_ERR_INVALID as i64, "ripple: a diagram with a NUL"))
}

/// An owned string value, or the call's error for nil.
unsafe fn string(v: sys::rpl_value) -> Result<String, Error> {
    match Value::from_owned_raw(v) {
        Value::Str(s) => Ok(s),
        _ => Err(Error::last()),
    }
}

impl Marbles {
    /// Marbles on a new test scheduler.
    pub fn new() -> Marbles {
        Marbles { scheduler: TestScheduler::new() }
    }

    /// Marbles on `scheduler`, shared with the code under test.
    pub fn with_scheduler(scheduler: TestScheduler) -> Marbles {
        Marbles { scheduler }
    }

    /// The test scheduler the diagrams run on.
    pub fn scheduler(&self) -> TestScheduler {
        self.scheduler.clone()
    }

    /// A signal that plays `marbles` for each subscriber, from its subscription. Panics
    /// on a bad diagram (see [`try_cold`](Self::try_cold)).
    #[track_caller]
    pub fn cold(&self, marbles: &str, values: &[(char, Value)]) -> Signal {
        self.try_cold(marbles, values).unwrap_or_else(|e| panic!("{}", e.message()))
    }

    /// [`cold`](Self::cold), with a bad diagram as an error.
    pub fn try_cold(&self, marbles: &str, values: &[(char, Value)]) -> Result<Signal, Error> {
        let p = self.make(marbles, values, sys::rpl_marble_cold)?;
        Ok(unsafe { Signal::from_owned(p, "rpl_marble_cold") })
    }

    /// Calls `rpl_marble_cold` or `rpl_marble_hot` (which consume the table).
    fn make<T>(&self, marbles: &str, values: &[(char, Value)],
               f: unsafe extern "C" fn(*mut sys::rpl_scheduler_t, *const std::ffi::c_char,
                                       *mut sys::rpl_marble_value, usize) -> *mut T) -> Result<*mut T, Error> {
        let (m, mut t) = (text(marbles)?, Table::new(values)?.give());
        let p = unsafe { f(self.scheduler.as_ptr(), m.as_ptr(), t.as_mut_ptr(), t.len()) };
        if p.is_null() { Err(Error::last()) } else { Ok(p) }
    }

    /// A subject that plays `marbles` once, from now (its `^`). Panics on a bad diagram
    /// (see [`try_hot`](Self::try_hot)).
    #[track_caller]
    pub fn hot(&self, marbles: &str, values: &[(char, Value)]) -> Subject {
        self.try_hot(marbles, values).unwrap_or_else(|e| panic!("{}", e.message()))
    }

    /// [`hot`](Self::hot), with a bad diagram as an error.
    pub fn try_hot(&self, marbles: &str, values: &[(char, Value)]) -> Result<Subject, Error> {
        let p = self.make(marbles, values, sys::rpl_marble_hot)?;
        Ok(unsafe { Subject::from_owned(p, "rpl_marble_hot") })
    }

    /// What `sig` does, drawn as a diagram (values by their key in `values`),
    /// subscribed at `subscription`'s `^` (now for `None`) and disposed at its `!`.
    pub fn record(&self, sig: &Signal, subscription: Option<&str>, values: &[(char, Value)]) -> Result<String, Error> {
        let sub = subscription.map(text).transpose()?;
        let t = Table::new(values)?;
        unsafe {
            string(sys::rpl_marble_record(self.scheduler.as_ptr(), sig.as_ptr(),
                                          sub.as_ref().map_or(null(), |s| s.as_ptr()), t.0.as_ptr(), t.0.len()))
        }
    }

    /// `Ok` when `sig` does exactly `expected` (`#` matching any error), subscribed as
    /// `subscription` says; else an error whose status is `RPL_ERR_FAILED` and whose
    /// message shows both diagrams with a caret under the first difference.
    pub fn check(&self, sig: &Signal, subscription: Option<&str>, expected: &str, values: &[(char, Value)])
                 -> Result<(), Error> {
        let sub = subscription.map(text).transpose()?;
        let (e, t) = (text(expected)?, Table::new(values)?);
        let status = unsafe {
            sys::rpl_marble_expect(self.scheduler.as_ptr(), sig.as_ptr(), sub.as_ref().map_or(null(), |s| s.as_ptr()),
                                   e.as_ptr(), t.0.as_ptr(), t.0.len())
        };
        if status == sys::RPL_OK {
            return Ok(());
        }
        let last = Error::last();
        match last.message().split_once(": ") {
            Some((_, diff)) if status == sys::RPL_ERR_FAILED => {
                Err(Error::new(Error::STATUS_DOMAIN, status as i64, diff.to_string()))
            }
            _ => Err(last),
        }
    }

    /// Panics, like `assert_eq!`, unless `sig` does exactly `expected`.
    #[track_caller]
    pub fn expect(&self, sig: &Signal, expected: &str, values: &[(char, Value)]) {
        self.expect_subscribed(sig, None, expected, values)
    }

    /// [`expect`](Self::expect) with a subscription diagram (`"--^---!"`).
    #[track_caller]
    pub fn expect_subscribed(&self, sig: &Signal, subscription: Option<&str>, expected: &str, values: &[(char, Value)]) {
        if let Err(e) = self.check(sig, subscription, expected, values) {
            panic!("marble expectation failed: {}", e.message());
        }
    }

    /// The subscriptions made to a cold or hot marble, one `"^--!"` each.
    pub fn subscriptions(&self, marble: &Signal) -> Result<Vec<String>, Error> {
        let s = unsafe { string(sys::rpl_marble_subscriptions(marble.as_ptr()))? };
        Ok(if s.is_empty() { Vec::new() } else { s.split('\n').map(str::to_string).collect() })
    }
}

