//! ripple::nats against real nats-servers, which Tests/nats/run.py (case rust, in
//! `make check-nats`) starts and stops: NATS_URL (with JetStream), NATS_TOKEN_URL
//! (token "s3cret") and NATS_CREDS_URL (operator mode, with NATS_CREDS_FILE,
//! NATS_FOREIGN_CREDS_FILE and NATS_MISSING_CREDS_FILE). Built with `--features nats`; without the servers' URLs the
//! tests fail rather than pass vacuously.
#![cfg(feature = "nats")]

use ripple::nats::{self, Codec, Connection, Options};
use ripple::{sys, Error, Signal, Subject, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run through Tests/nats/run.py rust"))
}

fn connect() -> Connection {
    let o = Options { name: Some("ripple-rust-test".into()), ..Options::default() };
    Connection::connect(&env("NATS_URL"), &o).expect("connect")
}

fn unique(prefix: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!("{prefix}.{}_{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// Values one subscription received, waited on from the test.
#[derive(Clone, Default)]
struct Rec(Arc<(Mutex<(Vec<Value>, bool)>, Condvar)>);

impl Rec {
    fn sub(&self, s: &Signal) -> ripple::Subscription {
        let (a, b) = (self.clone(), self.clone());
        s.subscribe(
            move |v| {
                a.0 .0.lock().unwrap().0.push(v.clone());
                a.0 .1.notify_all();
            },
            |_e| {},
            move || {
                b.0 .0.lock().unwrap().1 = true;
                b.0 .1.notify_all();
            },
        )
    }
    fn wait(&self, p: impl Fn(&(Vec<Value>, bool)) -> bool) -> (Vec<Value>, bool) {
        let g = self.0 .0.lock().unwrap();
        let (g, _) = self.0 .1.wait_timeout_while(g, Duration::from_secs(10), |x| !p(x)).unwrap();
        g.clone()
    }
}

/// Publishes values through a subject; the publish ends with the subject.
fn publish_all(nc: &Connection, subject: &str, values: Vec<Value>) {
    let src = Subject::new();
    let d = nc.publish(&src.signal(), subject).unwrap();
    for v in values {
        src.send_next(v);
    }
    src.send_completed();
    assert!(d.is_disposed());
}

fn status_of(e: &Error) -> Option<i32> {
    e.status()
}

#[test]
fn publish_subscribe_wildcards_queue_groups() {
    let nc = connect();
    let subject = unique("rs.values");
    let (r, star, msgs, g0, g1) = (Rec::default(), Rec::default(), Rec::default(), Rec::default(), Rec::default());
    let _d = r.sub(&nc.subscribe(&subject, None).unwrap());
    let _s = star.sub(&nc.subscribe(&format!("{subject}.*"), None).unwrap());
    let _m = msgs.sub(&nc.subscribe_messages(&format!("{subject}.>"), None).unwrap());
    let _q0 = g0.sub(&nc.subscribe(&format!("{subject}.q"), Some("workers")).unwrap());
    let _q1 = g1.sub(&nc.subscribe(&format!("{subject}.q"), Some("workers")).unwrap());
    let values = vec![
        Value::Int(1),
        Value::Str("two".into()),
        Value::Double(2.5),
        Value::Bool(true),
        Value::Nil,
        Value::Bytes(vec![0, 1]),
        Value::Tuple(vec![Value::Int(3), Value::Str("x".into())]),
    ];
    publish_all(&nc, &subject, values.clone());
    let (got, _) = r.wait(|x| x.0.len() == values.len());
    assert_eq!(got, values);
    publish_all(&nc, &format!("{subject}.a"), vec![Value::Str("x".into())]);
    publish_all(&nc, &format!("{subject}.q"), (0..20).map(Value::Int).collect());
    assert_eq!(star.wait(|x| x.0.len() == 21).0.len(), 21);
    let (m, _) = msgs.wait(|x| x.0.len() == 21);
    assert_eq!(
        m[0],
        Value::Tuple(vec![Value::Str(format!("{subject}.a")), Value::Str("x".into()), Value::Nil])
    );
    std::thread::sleep(Duration::from_millis(300));
    let (a, b) = (g0.wait(|_| true).0, g1.wait(|_| true).0);
    let mut all: Vec<i64> = a.iter().chain(b.iter()).map(|v| v.as_int().unwrap()).collect();
    all.sort();
    assert_eq!(all, (0..20).collect::<Vec<_>>()); // each message to one member
}

#[test]
fn request_and_serve() {
    let nc = connect();
    let subject = unique("rs.svc");
    let svc = nc
        .serve(&subject, None, |v| match v.as_int() {
            Some(x) => Signal::return_(x * 2),
            None => Signal::error(Error::new("rs.test", 7, "not an int")),
        })
        .unwrap();
    assert_eq!(nc.request(&subject, 21.into(), WAIT).unwrap().first(WAIT).unwrap(), Value::Int(42));
    let e = nc.request(&subject, "x".into(), WAIT).unwrap().first(WAIT).unwrap_err();
    assert_eq!((e.domain(), e.code(), e.message()), ("rs.test", 7, "not an int"));
    let e = nc.request(&unique("rs.nobody"), 1.into(), WAIT).unwrap().first(WAIT).unwrap_err();
    assert_eq!((e.domain(), e.code()), (nats::ERROR_DOMAIN, nats::ERR_NO_RESPONDERS));
    let silent = unique("rs.silent");
    let _hold = nc.subscribe(&silent, None).unwrap().subscribe_next(|_| {});
    let e = nc.request(&silent, 1.into(), Duration::from_millis(200)).unwrap().first(WAIT).unwrap_err();
    assert!(e.is_timeout() && e.domain() == "ripple", "{e}");
    svc.dispose();
}

#[test]
fn status_and_close() {
    let nc = connect();
    let r = Rec::default();
    let _d = r.sub(&nc.status().unwrap());
    assert_eq!(r.wait(|x| !x.0.is_empty()).0, vec![Value::Int(nats::CONNECTED)]);
    nc.clone().close();
    let (v, done) = r.wait(|x| x.1);
    assert!(done);
    assert_eq!(v, vec![Value::Int(nats::CONNECTED), Value::Int(nats::CLOSED)]);
    let e = nc.subscribe("a", None).unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_KIND), "{e}");
}

#[test]
fn raw_codec() {
    let o = Options { codec: Codec::Raw, ..Options::default() };
    let raw = Connection::connect(&env("NATS_URL"), &o).unwrap();
    let subject = unique("rs.raw");
    let r = Rec::default();
    let _d = r.sub(&raw.subscribe(&subject, None).unwrap());
    publish_all(&raw, &subject, vec![Value::Str("text".into())]);
    assert_eq!(r.wait(|x| !x.0.is_empty()).0, vec![Value::Bytes(b"text".to_vec())]);
}

#[test]
fn jetstream() {
    let nc = connect();
    let stream = format!("RS{}", std::process::id());
    let subject = format!("rs{}.events", std::process::id());
    nc.stream_ensure(&stream, &subject, 1).unwrap();
    let src = Subject::replay_unlimited();
    for i in 0..10 {
        src.send_next(i);
    }
    src.send_completed();
    let seqs = nc.stream_publish(&src.signal(), &subject).unwrap().to_vec(WAIT).unwrap();
    assert_eq!(seqs, (1..=10).map(Value::Int).collect::<Vec<_>>());
    let ints = |s: Signal, n: usize| -> Vec<i64> {
        s.take(n).to_vec(WAIT).unwrap().iter().map(|v| v.as_int().unwrap()).collect()
    };
    assert_eq!(ints(nc.stream_subscribe(&stream, Some("rs-durable"), 0).unwrap(), 4), vec![0, 1, 2, 3]);
    assert_eq!(ints(nc.stream_subscribe(&stream, Some("rs-durable"), 0).unwrap(), 6), vec![4, 5, 6, 7, 8, 9]);
    assert_eq!(ints(nc.stream_subscribe(&stream, None, 8).unwrap(), 3), vec![7, 8, 9]);
    let e = nc.stream_subscribe(&format!("NOSUCH{stream}"), Some("x"), 0).unwrap().first(WAIT).unwrap_err();
    assert_eq!((e.domain(), e.code()), (nats::ERROR_DOMAIN, nats::ERR_NOT_FOUND));
}

#[test]
fn errors() {
    let nc = connect();
    let e = nc.subscribe("a b", None).unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_INVALID));
    assert_eq!(e.message(), "rpl_nats_subscribe: subject \"a b\" contains white space or a control character");
    let e = nc.publish(&Signal::never(), "a.>").unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_INVALID));
    assert!(e.message().starts_with("rpl_nats_publish: "), "{e}");
    let e = nc.request("a", 1.into(), Duration::ZERO).unwrap_err();
    assert_eq!((status_of(&e), e.message()), (Some(sys::RPL_ERR_INVALID), "rpl_nats_request: timeout_ns is 0"));
    let e = nc.stream_ensure("a.b", "x", 0).unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_INVALID));
    let e = nc.stream_subscribe("S", Some("bad.durable"), 0).unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_INVALID));
    let e = nc.subscribe("a\0b", None).unwrap_err();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_INVALID));
    let e = Connection::connect("", &Options::default()).err().unwrap();
    assert_eq!((status_of(&e), e.message()), (Some(sys::RPL_ERR_INVALID), "rpl_nats_connect: urls is empty"));
    let guess = Options { token: Some("guess".into()), max_reconnects: 0, ..Options::default() };
    let e = Connection::connect(&env("NATS_TOKEN_URL"), &guess).err().unwrap();
    assert_eq!((status_of(&e), e.message()), (Some(sys::RPL_ERR_FAILED), "rpl_nats_connect: Authorization Violation"));
    let right = Options { token: Some("s3cret".into()), ..Options::default() };
    let ok = Connection::connect(&env("NATS_TOKEN_URL"), &right).unwrap();
    assert_eq!(ok.status().unwrap().first(WAIT).unwrap(), Value::Int(nats::CONNECTED));
}

/// creds_file against a server in operator (JWT) mode.
#[test]
fn creds_file() {
    let url = env("NATS_CREDS_URL");
    let good = Options { creds_file: Some(env("NATS_CREDS_FILE")), max_reconnects: 0, ..Options::default() };
    let nc = Connection::connect(&url, &good).expect("connect with the creds file");
    let subject = unique("rs.creds");
    let r = Rec::default();
    let d = r.sub(&nc.subscribe(&subject, None).unwrap());
    publish_all(&nc, &subject, vec![1.into(), "two".into()]);
    let (got, _) = r.wait(|x| x.0.len() == 2);
    assert_eq!(got, vec![Value::Int(1), Value::from("two")]);
    d.dispose();
    // A user signed by an account the server does not trust: refused.
    let foreign = Options { creds_file: Some(env("NATS_FOREIGN_CREDS_FILE")), max_reconnects: 0, ..Options::default() };
    let e = Connection::connect(&url, &foreign).err().unwrap();
    assert_eq!((status_of(&e), e.message()), (Some(sys::RPL_ERR_FAILED), "rpl_nats_connect: Authorization Violation"));
    assert_eq!(unsafe { sys::rpl_error_code(sys::rpl_last_signal_error()) }, nats::ERR_AUTH_FAILED);
    let missing = env("NATS_MISSING_CREDS_FILE");
    let absent = Options { creds_file: Some(missing.clone()), max_reconnects: 0, ..Options::default() };
    let e = Connection::connect(&url, &absent).err().unwrap();
    assert_eq!(status_of(&e), Some(sys::RPL_ERR_FAILED));
    assert_eq!(e.message(), format!("rpl_nats_connect: creds_file \"{missing}\" cannot be read: No such file or directory"));
}
