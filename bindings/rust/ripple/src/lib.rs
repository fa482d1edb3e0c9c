//! Ripple for Rust: reactive signals with ReactiveCocoa's semantics, from libripple's C
//! API (`ripple-sys`), safe to share between threads and with C or Python code in the
//! same process.
//!
//! ```no_run
//! use ripple::{Subject, Value};
//!
//! let subject = Subject::new();
//! let sub = subject
//!     .signal()
//!     .map(|v| Value::Int(v.as_int().unwrap_or(0) * 10))
//!     .filter(|v| v.as_int().unwrap_or(0) > 10)
//!     .subscribe_next(|v| println!("got {v:?}"));
//! subject.send_next(1);
//! subject.send_next(2); // prints "got Int(20)"
//! sub.dispose();
//! ```
//!
//! Ownership: every handle type (`Signal`, `Subject`, `Disposable`, `Connection`,
//! `Scheduler`) is one reference to a runtime object; `Clone` adds one and `Drop`
//! releases it. Dropping a `Subscription` does not end it (ReactiveCocoa's rule): call
//! `dispose`, or keep a [`Disposable::dispose_on_drop`] guard.
//!
//! Closures given to operators, subscriptions and schedulers are dropped exactly once,
//! when the runtime releases them. A panic inside one never unwinds into C: it is
//! caught, reported on stderr, counted by [`callback_panics`] and swallowed (a panicking
//! `map` sends nil, a panicking predicate counts as false); a panic in a
//! [`Signal::create`] callback becomes the subscriber's error.
//!
//! Bad arguments the runtime rejects (a zero capacity or interval, a timer operator on
//! the immediate scheduler) panic at the call with the runtime's message.
pub use ripple_sys as sys;

mod callback;
mod connection;
mod disposable;
mod error;
mod handle;
#[cfg(feature = "nats")]
pub mod nats;
pub mod os;
mod scheduler;
mod signal;
mod subject;
pub mod testing;
mod value;

pub use callback::callback_panics;
pub use connection::Connection;
pub use disposable::{CompoundDisposable, Disposable, DisposeOnDrop, SerialDisposable, Subscription};
pub use error::Error;
pub use scheduler::{RunLoop, Scheduler, TestScheduler};
pub use signal::{Signal, SignalIter, Subscriber};
pub use subject::Subject;
pub use value::{Event, Pointer, RawValue, Value};

use std::time::Duration;

/// A timeout that never expires, for the blocking helpers.
pub const FOREVER: Duration = Duration::MAX;

/// `RPL_VERSION_NUMBER` of the loaded library (MAJOR * 10000 + MINOR * 100 + PATCH).
pub fn version() -> u32 {
    unsafe { sys::rpl_version() }
}

/// "MAJOR.MINOR.PATCH" of the loaded library.
pub fn version_string() -> &'static str {
    let s = unsafe { core::ffi::CStr::from_ptr(sys::rpl_version_string()) };
    s.to_str().unwrap_or("?")
}

/// Writes every event of every subscription as one JSON line to `fd`, for the
/// `ripple-trace` command to draw as a timeline (ripple.h `rpl_trace_write`); `None`
/// stops and writes out what is pending. The runtime writes to its own duplicate of the
/// descriptor, so it is only borrowed. Process-wide: it takes the one trace hook slot.
/// `RIPPLE_TRACE=path` in the environment does the same from load time.
///
/// Errors: a descriptor not open for writing; when the file it ends had a write fail
/// (a closed pipe, a full disk), the message says why and how many events were lost.
///
/// ```no_run
/// let file = std::fs::File::create("trace.jsonl").unwrap();
/// ripple::trace_write(Some(std::os::fd::AsFd::as_fd(&file))).unwrap();
/// // ... run the program ...
/// ripple::trace_write(None).unwrap();
/// ```
pub fn trace_write(fd: Option<std::os::fd::BorrowedFd<'_>>) -> Result<(), Error> {
    use std::os::fd::AsRawFd;
    error::check(unsafe { sys::rpl_trace_write(fd.map_or(-1, |f| f.as_raw_fd())) })
}

/// A call that cannot fail with valid handles returned NULL: the runtime rejected an
/// argument (or ran out of memory). Panics with its message.
#[cold]
#[track_caller]
pub(crate) fn failed(what: &str) -> ! {
    panic!("ripple: {what} failed: {}", Error::last().message())
}

// The README's example is compiled and run with the doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExample;
