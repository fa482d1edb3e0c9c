use crate::handle::Handle;
use core::ffi::{c_char, CStr};
use ripple_sys as sys;
use std::ffi::CString;
use std::fmt;

/// An error: the error a signal terminated with (a domain, a code and a message, as
/// `rpl_error_t`), or a failed call of the runtime, which has the domain
/// [`Error::STATUS_DOMAIN`] and an `RPL_ERR_*` status as its code.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    domain: String,
    code: i64,
    message: String,
}

impl Error {
    /// The domain of errors the runtime makes itself (`RPL_ERROR_DOMAIN`).
    pub const DOMAIN: &'static str = "ripple";
    /// The domain of errors made by this binding from a failed call's `rpl_status`.
    pub const STATUS_DOMAIN: &'static str = "ripple.status";
    /// The domain of the error a subscriber gets when a `Signal::create` callback panics.
    pub const PANIC_DOMAIN: &'static str = "ripple.panic";

    pub fn new(domain: impl Into<String>, code: i64, message: impl Into<String>) -> Self {
        Error { domain: domain.into(), code, message: message.into() }
    }

    pub fn domain(&self) -> &str {
        &self.domain
    }

    pub fn code(&self) -> i64 {
        self.code
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `rpl_status` of a failed call (blocking helpers: timeout, no value).
    pub fn status(&self) -> Option<i32> {
        (self.domain == Self::STATUS_DOMAIN).then_some(self.code as i32)
    }

    /// A blocking call that timed out, or the error of the `timeout` operator.
    pub fn is_timeout(&self) -> bool {
        self.status() == Some(sys::RPL_ERR_TIMEOUT)
            || (self.domain == Self::DOMAIN && self.code == i64::from(sys::RPL_ERROR_TIMEOUT))
    }

    /// An error for a failed call, with the runtime's text for `status`.
    pub(crate) fn from_status(status: sys::rpl_status) -> Self {
        let text = unsafe { cstr(sys::rpl_status_string(status)) };
        Error::new(Self::STATUS_DOMAIN, status as i64, text)
    }

    /// An error for the call that just failed on this thread (`rpl_last_error`).
    pub(crate) fn last() -> Self {
        let (status, message) = unsafe { (sys::rpl_last_error(), cstr(sys::rpl_last_error_message())) };
        Error::new(Self::STATUS_DOMAIN, status as i64, message)
    }

    /// Copies a (borrowed) runtime error.
    pub(crate) unsafe fn from_raw(e: *const sys::rpl_error_t) -> Self {
        Error {
            domain: cstr(sys::rpl_error_domain(e)),
            code: sys::rpl_error_code(e),
            message: cstr(sys::rpl_error_message(e)),
        }
    }

    /// A runtime error with the same contents.
    pub(crate) fn to_handle(&self) -> Handle<sys::rpl_error_t> {
        let domain = CString::new(self.domain.replace('\0', "")).unwrap();
        let message = CString::new(self.message.replace('\0', "")).unwrap();
        unsafe { Handle::from_owned(sys::rpl_error_create(domain.as_ptr(), self.code, message.as_ptr())) }
            .expect("ripple: rpl_error_create failed (out of memory)")
    }
}

pub(crate) unsafe fn cstr(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} error {}: {}", self.domain, self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// Maps a command's status to a Result.
pub(crate) fn check(status: sys::rpl_status) -> Result<(), Error> {
    if status == sys::RPL_OK {
        Ok(())
    } else {
        Err(Error::last())
    }
}
