use crate::disposable::Disposable;
use crate::handle::Handle;
use crate::signal::Signal;
use ripple_sys as sys;
use std::fmt;

/// A multicast connection: one subscription of a source, shared through a subject
/// (from [`Signal::publish`] or [`Signal::multicast`]).
#[derive(Clone)]
pub struct Connection(Handle<sys::rpl_connection_t>);

impl Connection {
    pub(crate) unsafe fn from_owned(p: *mut sys::rpl_connection_t, what: &str) -> Connection {
        Connection(Handle::from_owned(p).unwrap_or_else(|| crate::failed(what)))
    }

    /// The signal subscribers subscribe to (the connection's subject).
    pub fn signal(&self) -> Signal {
        unsafe { Signal::from_borrowed(sys::rpl_connection_signal(self.0.as_ptr())) }
            .unwrap_or_else(|| crate::failed("rpl_connection_signal"))
    }

    /// Subscribes the subject to the source, once; later calls return the same
    /// connection until it is disposed.
    pub fn connect(&self) -> Disposable {
        unsafe { Disposable::from_owned(sys::rpl_connection_connect(self.0.as_ptr()), "rpl_connection_connect") }
    }

    /// A signal that connects on its first subscriber and disconnects after its last
    /// (a later subscriber connects again).
    pub fn autoconnect(&self) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_connection_autoconnect(self.0.as_ptr()), "rpl_connection_autoconnect") }
    }
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Connection({:p})", self.0.as_ptr())
    }
}
