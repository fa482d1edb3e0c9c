mod common;
use common::*;
use ripple::{Error, RunLoop, Signal};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn the_loaded_library_matches_the_header() {
    assert_eq!(i64::from(ripple::version()), i64::from(ripple::sys::RPL_VERSION_NUMBER));
    let expected = format!(
        "{}.{}.{}",
        ripple::sys::RPL_VERSION_MAJOR,
        ripple::sys::RPL_VERSION_MINOR,
        ripple::sys::RPL_VERSION_PATCH
    );
    assert_eq!(ripple::version_string(), expected);
}

#[test]
fn errors_display_their_parts() {
    let e = Error::new("net", 7, "unreachable");
    assert_eq!(e.to_string(), "net error 7: unreachable");
    assert_eq!(e.status(), None);
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("unreachable"));
}

#[test]
fn a_subscriber_can_end_its_own_subscription() {
    let sent = Arc::new(AtomicUsize::new(0));
    let s2 = sent.clone();
    let sig = Signal::create(move |s| {
        s.send_next(1);
        s.dispose();
        assert!(s.is_disposed());
        s.send_next(2);
        s2.fetch_add(1, Ordering::SeqCst);
        None
    });
    let (sub, r) = record(&sig);
    assert_eq!(r.ints(), vec![1]);
    assert!(!r.terminated(), "disposed, not terminated");
    assert!(sub.is_disposed());
    assert_eq!(sent.load(Ordering::SeqCst), 1);
}

#[test]
fn a_run_loop_is_its_scheduler() {
    let rl = RunLoop::new().unwrap();
    let sched = rl.scheduler();
    assert_eq!(sched.as_ptr(), rl.as_ptr());
    let n = Arc::new(AtomicUsize::new(0));
    let n2 = n.clone();
    sched.schedule(move || {
        n2.fetch_add(1, Ordering::SeqCst);
    });
    drop(sched);
    assert_eq!(rl.run_until_idle().unwrap(), 1);
    assert_eq!(n.load(Ordering::SeqCst), 1);
}
