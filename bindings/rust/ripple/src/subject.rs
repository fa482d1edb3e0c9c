use crate::error::Error;
use crate::handle::Handle;
use crate::signal::Signal;
use crate::value::Value;
use core::ops::Deref;
use ripple_sys as sys;
use std::fmt;

/// A subject: a hot signal you send into. It dereferences to its [`Signal`], so every
/// operator and `subscribe` work on it directly. Sends are synchronous and thread-safe.
#[derive(Clone)]
pub struct Subject {
    subject: Handle<sys::rpl_subject_t>,
    // The same object seen as a signal (its own reference).
    signal: Signal,
}

impl Subject {
    pub(crate) unsafe fn from_owned(p: *mut sys::rpl_subject_t, what: &str) -> Subject {
        let subject = Handle::from_owned(p).unwrap_or_else(|| crate::failed(what));
        let signal = Signal::from_borrowed(sys::rpl_subject_as_signal(subject.as_ptr()))
            .unwrap_or_else(|| crate::failed("rpl_subject_as_signal"));
        Subject { subject, signal }
    }

    /// A plain subject: subscribers get what is sent after they subscribed.
    pub fn new() -> Subject {
        unsafe { Subject::from_owned(sys::rpl_subject_create(), "rpl_subject_create") }
    }

    /// A behavior subject: subscribers first get the current value.
    pub fn behavior(initial: impl Into<Value>) -> Subject {
        unsafe { Subject::from_owned(sys::rpl_behavior_subject_create(initial.into().into_raw()), "rpl_behavior_subject_create") }
    }

    /// A replay subject keeping the last `capacity` values.
    ///
    /// # Panics
    /// If `capacity` is 0.
    pub fn replay(capacity: usize) -> Subject {
        unsafe { Subject::from_owned(sys::rpl_replay_subject_create(capacity), "rpl_replay_subject_create") }
    }

    /// A replay subject keeping every value.
    pub fn replay_unlimited() -> Subject {
        Subject::replay(sys::RPL_REPLAY_UNLIMITED)
    }

    /// This subject as a signal (the same object).
    pub fn signal(&self) -> Signal {
        self.signal.clone()
    }

    pub fn send_next(&self, v: impl Into<Value>) {
        unsafe { sys::rpl_subject_send_next(self.as_subject_ptr(), v.into().into_raw()) };
    }

    pub fn send_error(&self, e: Error) {
        unsafe { sys::rpl_subject_send_error(self.as_subject_ptr(), e.to_handle().as_ptr()) };
    }

    pub fn send_completed(&self) {
        unsafe { sys::rpl_subject_send_completed(self.as_subject_ptr()) };
    }

    /// Live subscriptions right now.
    pub fn subscriber_count(&self) -> usize {
        unsafe { sys::rpl_subject_subscriber_count(self.as_subject_ptr()) }
    }

    /// True once a terminal event was sent.
    pub fn is_terminated(&self) -> bool {
        unsafe { sys::rpl_subject_is_terminated(self.as_subject_ptr()) }
    }

    /// The current value of a behavior subject; None for other subjects.
    pub fn value(&self) -> Option<Value> {
        let mut out = unsafe { sys::rpl_nil() };
        let status = unsafe { sys::rpl_behavior_subject_value(self.as_subject_ptr(), &mut out) };
        let v = unsafe { Value::from_owned_raw(out) };
        (status == sys::RPL_OK).then_some(v)
    }

    pub fn as_subject_ptr(&self) -> *mut sys::rpl_subject_t {
        self.subject.as_ptr()
    }
}

impl Default for Subject {
    fn default() -> Self {
        Subject::new()
    }
}

impl Deref for Subject {
    type Target = Signal;
    fn deref(&self) -> &Signal {
        &self.signal
    }
}

impl fmt::Debug for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Subject({:p})", self.as_subject_ptr())
    }
}
