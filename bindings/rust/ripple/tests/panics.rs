//! A panic inside a callback never unwinds into C: it is caught and counted. Inside an
//! operator callback it becomes that operator's error (rpl_callback_fail); elsewhere
//! it is swallowed and the stream goes on.
mod common;
use common::*;
use ripple::{callback_panics, Disposable, Error, Scheduler, Signal, Subject, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

// callback_panics() is process-wide: run these tests one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn is_panic_error(e: &Error, text: &str) -> bool {
    e.domain() == Error::PANIC_DOMAIN && e.code() == i64::from(ripple::sys::RPL_ERROR_CALLBACK) && e.message().contains(text)
}

#[test]
fn a_panicking_map_fails_the_signal() {
    let _g = lock();
    let before = callback_panics();
    let sig = of(&[1, 2, 3]).map(|v| if int(v) == 2 { panic!("map boom") } else { v.clone() });
    let (_sub, r) = record(&sig);
    assert_eq!(r.ints(), vec![1]);
    let e = r.error().expect("an error");
    assert!(is_panic_error(&e, "map boom"), "{e}");
    assert_eq!(callback_panics(), before + 1);
}

#[test]
fn a_panicking_predicate_fails_the_signal() {
    let _g = lock();
    let before = callback_panics();
    for sig in [
        of(&[1, 2, 3]).filter(|v| if int(v) == 2 { panic!("filter boom") } else { true }),
        of(&[1, 2, 3]).take_while(|v| if int(v) == 2 { panic!("filter boom") } else { true }),
    ] {
        let (_sub, r) = record(&sig);
        assert_eq!(r.ints(), vec![1]);
        assert!(is_panic_error(&r.error().expect("an error"), "filter boom"));
    }
    assert_eq!(callback_panics(), before + 2);
}

#[test]
fn a_panicking_reducer_fails_the_signal() {
    let _g = lock();
    let sig = of(&[1, 2, 3]).scan(0, |a, v| if int(v) == 2 { panic!("scan boom") } else { Value::Int(int(a) + int(v)) });
    let (_sub, r) = record(&sig);
    assert_eq!(r.ints(), vec![1]);
    assert!(is_panic_error(&r.error().expect("an error"), "scan boom"));
}

#[test]
fn a_panicking_subscriber_keeps_receiving() {
    let _g = lock();
    let before = callback_panics();
    let s = Subject::new();
    let seen = Arc::new(AtomicUsize::new(0));
    let s2 = seen.clone();
    let sub = s.subscribe_next(move |v| {
        s2.fetch_add(1, Ordering::SeqCst);
        if int(v) == 1 {
            panic!("subscriber boom");
        }
    });
    s.send_next(1);
    s.send_next(2);
    assert_eq!(seen.load(Ordering::SeqCst), 2);
    assert_eq!(callback_panics(), before + 1);
    sub.dispose();
}

#[test]
fn a_panicking_create_callback_fails_its_subscriber() {
    let _g = lock();
    let sig = Signal::create(|s| {
        s.send_next(1);
        panic!("create boom");
    });
    let (_sub, r) = record(&sig);
    assert_eq!(r.ints(), vec![1]);
    let e = r.error().expect("an error");
    assert_eq!(e.domain(), Error::PANIC_DOMAIN);
    assert!(e.message().contains("create boom"), "{e}");
}

#[test]
fn panics_in_flatten_map_and_catch_fail_the_signal_and_defer_fails_its_subscriber() {
    let _g = lock();
    let err = of(&[1, 2]).flatten_map(|v| if int(v) == 1 { panic!("fm") } else { of(&[20]) }).wait(SECOND).unwrap_err();
    assert!(is_panic_error(&err, "fm"), "{err}");
    let e = Error::new("orig", 1, "x");
    let err = Signal::error(e).catch(|_| panic!("catch boom")).wait(SECOND).unwrap_err();
    assert!(is_panic_error(&err, "catch boom"), "{err}");
    // defer's factory is not an operator callback: the binding's fallback (no signal)
    // gives the runtime's callback error.
    let err = Signal::defer(|| panic!("defer boom")).wait(SECOND).unwrap_err();
    assert_eq!((err.domain(), err.code()), (Error::DOMAIN, i64::from(ripple::sys::RPL_ERROR_CALLBACK)));
}

#[test]
fn panics_in_scheduled_work_disposables_and_destructors_are_swallowed() {
    let _g = lock();
    let before = callback_panics();
    Scheduler::immediate().schedule(|| panic!("work boom"));
    Disposable::new(|| panic!("dispose boom")).dispose();
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("drop boom");
        }
    }
    let bomb = Bomb;
    drop(Signal::never().map(move |v| {
        let _ = &bomb;
        v.clone()
    }));
    assert_eq!(callback_panics(), before + 3);
}
