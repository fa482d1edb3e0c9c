//! Ripple signals across processes and machines through a NATS server:
//! libripple-nats (`ripple_nats.h`), with the crate feature `nats`.
//!
//! ```no_run
//! use ripple::nats::{Connection, Options};
//! use ripple::{Signal, FOREVER};
//! let nc = Connection::connect("nats://127.0.0.1:4222", &Options::default()).unwrap();
//! let _sub = nc.subscribe("sensors.>", None).unwrap().subscribe_next(|v| println!("{v:?}"));
//! nc.publish(&Signal::return_(42), "sensors.a").unwrap();
//! let _svc = nc.serve("math.double", None, |v| Signal::return_(v.as_int().unwrap_or(0) * 2)).unwrap();
//! assert_eq!(nc.request("math.double", 21.into(), FOREVER).unwrap().first(FOREVER).unwrap().as_int(), Some(42));
//! ```
//!
//! The library is linked as `libripple-nats` from the directory where libripple is
//! found (`RIPPLE_LIB_DIR`, pkg-config, or the linker's path). A failed call returns an
//! [`Error`] of domain [`Error::STATUS_DOMAIN`] whose code is the C status
//! (`RPL_ERR_INVALID` for an invalid subject, `RPL_ERR_FAILED` when the server refused)
//! and whose message is the library's (`"rpl_nats_connect: Authorization Violation"`).
//! Errors in signals have the domain [`ERROR_DOMAIN`] and a NATS client status as code
//! (`ERR_*`), or the domain `"ripple"` (a request's timeout). Events arrive on a thread
//! of the NATS client.
use crate::callback::{ctx_ref, guard, into_ctx, release_ctx};
use crate::error::{check, Error};
use crate::handle::Handle;
use crate::{Disposable, Signal, Subscription, Value};
use core::ffi::{c_char, c_void};
use ripple_sys as sys;
use std::ffi::CString;
use std::ptr::null;
use std::time::Duration;

/// `rpl_nats_t`: a connection (a Ripple handle).
#[repr(C)]
pub struct rpl_nats_t {
    _opaque: [u8; 0],
}

#[repr(C)]
#[allow(non_camel_case_types)]
struct rpl_nats_options {
    version: u32,
    name: *const c_char,
    token: *const c_char,
    user: *const c_char,
    password: *const c_char,
    creds_file: *const c_char,
    tls_ca: *const c_char,
    tls_cert: *const c_char,
    tls_key: *const c_char,
    reconnect_wait_ns: u64,
    max_reconnects: i32,
    codec: i32,
}

type ServeFn = Option<unsafe extern "C" fn(*mut c_void, *const sys::rpl_value) -> *mut sys::rpl_signal_t>;

#[link(name = "ripple-nats")]
extern "C" {
    fn rpl_nats_connect(urls: *const c_char, opts: *const rpl_nats_options) -> *mut rpl_nats_t;
    fn rpl_nats_status(nc: *mut rpl_nats_t) -> *mut sys::rpl_signal_t;
    fn rpl_nats_subscribe(nc: *mut rpl_nats_t, subject: *const c_char, queue: *const c_char) -> *mut sys::rpl_signal_t;
    fn rpl_nats_subscribe_messages(
        nc: *mut rpl_nats_t,
        subject: *const c_char,
        queue: *const c_char,
    ) -> *mut sys::rpl_signal_t;
    fn rpl_nats_publish(nc: *mut rpl_nats_t, sig: *mut sys::rpl_signal_t, subject: *const c_char)
        -> *mut sys::rpl_disposable_t;
    fn rpl_nats_request(
        nc: *mut rpl_nats_t,
        subject: *const c_char,
        request: sys::rpl_value,
        timeout_ns: u64,
    ) -> *mut sys::rpl_signal_t;
    fn rpl_nats_serve(
        nc: *mut rpl_nats_t,
        subject: *const c_char,
        queue: *const c_char,
        fn_: ServeFn,
        ctx: *mut c_void,
        release: sys::rpl_release_fn,
    ) -> *mut sys::rpl_disposable_t;
    fn rpl_nats_stream_ensure(nc: *mut rpl_nats_t, stream: *const c_char, subjects: *const c_char, replicas: i32)
        -> sys::rpl_status;
    fn rpl_nats_stream_publish(nc: *mut rpl_nats_t, sig: *mut sys::rpl_signal_t, subject: *const c_char)
        -> *mut sys::rpl_signal_t;
    fn rpl_nats_stream_subscribe(
        nc: *mut rpl_nats_t,
        stream: *const c_char,
        durable: *const c_char,
        start_sequence: u64,
    ) -> *mut sys::rpl_signal_t;
}

/// `RPL_NATS_OPTIONS_VERSION`.
pub const OPTIONS_VERSION: u32 = 1;
/// The domain of errors the NATS client or server reports (`RPL_NATS_ERROR_DOMAIN`).
pub const ERROR_DOMAIN: &str = "nats";
// The connection's states, as `status()` sends them (int values).
pub const CONNECTED: i64 = 1;
pub const DISCONNECTED: i64 = 2;
pub const RECONNECTED: i64 = 3;
pub const CLOSED: i64 = 4;
// Codes of domain ERROR_DOMAIN (`RPL_NATS_ERR_*`, the NATS client's statuses).
pub const ERR_CONNECTION_CLOSED: i64 = 5;
pub const ERR_NO_SERVER: i64 = 6;
pub const ERR_SECURE_REQUIRED: i64 = 9;
pub const ERR_AUTH_FAILED: i64 = 11;
pub const ERR_NOT_PERMITTED: i64 = 12;
pub const ERR_NOT_FOUND: i64 = 13;
pub const ERR_INVALID_SUBJECT: i64 = 15;
pub const ERR_INVALID_ARG: i64 = 16;
pub const ERR_SLOW_CONSUMER: i64 = 20;
pub const ERR_MAX_PAYLOAD: i64 = 21;
pub const ERR_TIMEOUT: i64 = 26;
pub const ERR_SSL: i64 = 29;
pub const ERR_NO_RESPONDERS: i64 = 34;

/// How payloads travel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Codec {
    /// MessagePack (nil, bool, int, double, string, bytes, tuples).
    #[default]
    MsgPack = 0,
    /// Bytes both ways (a string is sent as its bytes).
    Raw = 1,
}

/// How to connect (`rpl_nats_options`); `None` is not used.
#[derive(Clone, Debug)]
pub struct Options {
    pub name: Option<String>,
    pub token: Option<String>,
    pub user: Option<String>,
    pub password: Option<String>,
    pub creds_file: Option<String>,
    pub tls_ca: Option<String>,
    pub tls_cert: Option<String>,
    pub tls_key: Option<String>,
    pub reconnect_wait: Duration,
    /// -1: for ever; 0: never reconnect.
    pub max_reconnects: i32,
    pub codec: Codec,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            name: None,
            token: None,
            user: None,
            password: None,
            creds_file: None,
            tls_ca: None,
            tls_cert: None,
            tls_key: None,
            reconnect_wait: Duration::from_secs(2),
            max_reconnects: -1,
            codec: Codec::MsgPack,
        }
    }
}

/// A string for C; one with a NUL inside is refused like the library refuses
/// an invalid argument.
fn c_string(s: &str, what: &str) -> Result<CString, Error> {
    CString::new(s).map_err(|_| {
        Error::new(Error::STATUS_DOMAIN, i64::from(sys::RPL_ERR_INVALID), format!("ripple::nats: {what} contains a NUL"))
    })
}

fn c_opt(s: Option<&str>, what: &str) -> Result<Option<CString>, Error> {
    s.map(|s| c_string(s, what)).transpose()
}

fn ptr(s: &Option<CString>) -> *const c_char {
    s.as_ref().map_or(null(), |s| s.as_ptr())
}

fn signal(p: *mut sys::rpl_signal_t) -> Result<Signal, Error> {
    unsafe { Handle::from_owned(p) }.map(Signal).ok_or_else(Error::last)
}

fn disposable(p: *mut sys::rpl_disposable_t) -> Result<Disposable, Error> {
    unsafe { Handle::from_owned(p) }.map(Disposable).ok_or_else(Error::last)
}

unsafe extern "C" fn serve_fn<F: Fn(&Value) -> Signal>(
    ctx: *mut c_void,
    request: *const sys::rpl_value,
) -> *mut sys::rpl_signal_t {
    let f = ctx_ref::<F>(ctx);
    // A panic returns NULL: the requester gets an RPL_ERROR_CALLBACK error reply.
    guard(|| None, || Some(f(&Value::from_raw(request)))).map_or(core::ptr::null_mut(), Signal::into_raw)
}

/// A connection to a NATS server or cluster (`rpl_nats_t`). Clones share it; the last
/// one dropped closes it, as [`Connection::close`] does at once.
#[derive(Clone)]
pub struct Connection(Handle<rpl_nats_t>);

impl Connection {
    /// Connects to `urls` (comma separated `nats://host:port` or `tls://...`); blocks
    /// until connected or refused.
    pub fn connect(urls: &str, o: &Options) -> Result<Connection, Error> {
        let urls = c_string(urls, "urls")?;
        let strings = [
            c_opt(o.name.as_deref(), "name")?,
            c_opt(o.token.as_deref(), "token")?,
            c_opt(o.user.as_deref(), "user")?,
            c_opt(o.password.as_deref(), "password")?,
            c_opt(o.creds_file.as_deref(), "creds_file")?,
            c_opt(o.tls_ca.as_deref(), "tls_ca")?,
            c_opt(o.tls_cert.as_deref(), "tls_cert")?,
            c_opt(o.tls_key.as_deref(), "tls_key")?,
        ];
        let c = rpl_nats_options {
            version: OPTIONS_VERSION,
            name: ptr(&strings[0]),
            token: ptr(&strings[1]),
            user: ptr(&strings[2]),
            password: ptr(&strings[3]),
            creds_file: ptr(&strings[4]),
            tls_ca: ptr(&strings[5]),
            tls_cert: ptr(&strings[6]),
            tls_key: ptr(&strings[7]),
            reconnect_wait_ns: crate::signal::ns(o.reconnect_wait),
            max_reconnects: o.max_reconnects,
            codec: o.codec as i32,
        };
        unsafe { Handle::from_owned(rpl_nats_connect(urls.as_ptr(), &c)) }.map(Connection).ok_or_else(Error::last)
    }

    fn raw(&self) -> *mut rpl_nats_t {
        self.0.as_ptr()
    }

    /// Closes the connection now, for every clone: `status()` sends [`CLOSED`] and
    /// completes, data subscriptions complete, pending requests fail.
    pub fn close(&self) {
        unsafe { sys::rpl_disposable_dispose(self.raw().cast()) };
    }

    /// The connection's states ([`CONNECTED`], ...): the current one, then each change.
    pub fn status(&self) -> Result<Signal, Error> {
        signal(unsafe { rpl_nats_status(self.raw()) })
    }

    /// The payloads of messages on `subject` (wildcards allowed), decoded; with a queue
    /// group each message goes to one member. Interest is registered before the
    /// subscription returns.
    pub fn subscribe(&self, subject: &str, queue_group: Option<&str>) -> Result<Signal, Error> {
        let (s, q) = (c_string(subject, "subject")?, c_opt(queue_group, "queue_group")?);
        signal(unsafe { rpl_nats_subscribe(self.raw(), s.as_ptr(), ptr(&q)) })
    }

    /// As [`Connection::subscribe`], with (subject, payload, reply-to or nil) tuples.
    pub fn subscribe_messages(&self, subject: &str, queue_group: Option<&str>) -> Result<Signal, Error> {
        let (s, q) = (c_string(subject, "subject")?, c_opt(queue_group, "queue_group")?);
        signal(unsafe { rpl_nats_subscribe_messages(self.raw(), s.as_ptr(), ptr(&q)) })
    }

    /// Publishes each value of `sig` on `subject`; dispose to stop.
    pub fn publish(&self, sig: &Signal, subject: &str) -> Result<Subscription, Error> {
        let s = c_string(subject, "subject")?;
        disposable(unsafe { rpl_nats_publish(self.raw(), sig.as_ptr(), s.as_ptr()) })
    }

    /// The reply to `request`, then completion; fails with a `"ripple"` timeout error
    /// past `timeout`, [`ERR_NO_RESPONDERS`] when nobody serves `subject`.
    pub fn request(&self, subject: &str, request: Value, timeout: Duration) -> Result<Signal, Error> {
        let s = c_string(subject, "subject")?;
        signal(unsafe { rpl_nats_request(self.raw(), s.as_ptr(), request.into_raw(), crate::signal::ns(timeout)) })
    }

    /// Answers requests on `subject`: `f(request)`'s first value is the reply; its error
    /// (or a panic) goes back to the requester as an error. Dispose to stop.
    pub fn serve<F>(&self, subject: &str, queue_group: Option<&str>, f: F) -> Result<Disposable, Error>
    where
        F: Fn(&Value) -> Signal + Send + Sync + 'static,
    {
        let (s, q) = (c_string(subject, "subject")?, c_opt(queue_group, "queue_group")?);
        let ctx = into_ctx::<F>(f);
        disposable(unsafe {
            rpl_nats_serve(self.raw(), s.as_ptr(), ptr(&q), Some(serve_fn::<F>), ctx, Some(release_ctx::<F>))
        })
    }

    /// Creates the JetStream stream (`subjects` comma separated; replicas 0 means 1), or
    /// updates it; the server's reason when it refuses.
    pub fn stream_ensure(&self, stream: &str, subjects: &str, replicas: i32) -> Result<(), Error> {
        let (st, su) = (c_string(stream, "stream")?, c_string(subjects, "subjects")?);
        check(unsafe { rpl_nats_stream_ensure(self.raw(), st.as_ptr(), su.as_ptr(), replicas) })
    }

    /// Publishes each value of `sig` to JetStream; sends each acknowledged value's
    /// stream sequence.
    pub fn stream_publish(&self, sig: &Signal, subject: &str) -> Result<Signal, Error> {
        let s = c_string(subject, "subject")?;
        signal(unsafe { rpl_nats_stream_publish(self.raw(), sig.as_ptr(), s.as_ptr()) })
    }

    /// The stream's messages, at least once (acknowledged after `on_next` returned). A
    /// durable outlives the subscription; `start_sequence` 0 resumes it (or starts at
    /// the beginning), n > 0 starts at sequence n.
    pub fn stream_subscribe(&self, stream: &str, durable: Option<&str>, start_sequence: u64) -> Result<Signal, Error> {
        let (s, d) = (c_string(stream, "stream")?, c_opt(durable, "durable")?);
        signal(unsafe { rpl_nats_stream_subscribe(self.raw(), s.as_ptr(), ptr(&d), start_sequence) })
    }
}
