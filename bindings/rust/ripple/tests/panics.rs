//! A panic inside a callback never unwinds into C: it is caught, counted and swallowed
//! (ripple.h 0.1 has no rpl_callback_fail), and the stream goes on.
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

#[test]
fn a_panicking_map_sends_nil_and_goes_on() {
    let _g = lock();
    let before = callback_panics();
    let sig = of(&[1, 2, 3]).map(|v| if int(v) == 2 { panic!("map boom") } else { v.clone() });
    assert_eq!(sig.to_vec(SECOND).unwrap(), vec![Value::Int(1), Value::Nil, Value::Int(3)]);
    assert_eq!(callback_panics(), before + 1);
}

#[test]
fn a_panicking_predicate_counts_as_false() {
    let _g = lock();
    let before = callback_panics();
    assert_eq!(ints(&of(&[1, 2, 3]).filter(|v| if int(v) == 2 { panic!("filter boom") } else { true })), vec![1, 3]);
    assert_eq!(ints(&of(&[1, 2, 3]).take_while(|v| if int(v) == 3 { panic!("boom") } else { true })), vec![1, 2]);
    assert_eq!(callback_panics(), before + 2);
}

#[test]
fn a_panicking_reducer_keeps_the_accumulator() {
    let _g = lock();
    let sig = of(&[1, 2, 3]).scan(0, |a, v| if int(v) == 2 { panic!("scan boom") } else { Value::Int(int(a) + int(v)) });
    assert_eq!(ints(&sig), vec![1, 1, 4]);
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
fn panics_in_flatten_map_catch_and_defer_fall_back() {
    let _g = lock();
    // flatten_map: an empty inner; catch: the original error; defer: a callback error.
    assert_eq!(ints(&of(&[1, 2]).flatten_map(|v| if int(v) == 1 { panic!("fm") } else { of(&[20]) })), vec![20]);
    let e = Error::new("orig", 1, "x");
    assert_eq!(Signal::error(e.clone()).catch(|_| panic!("catch boom")).wait(SECOND), Err(e));
    let err = Signal::defer(|| panic!("defer boom")).wait(SECOND).unwrap_err();
    assert_eq!((err.domain(), err.code()), (Error::DOMAIN, ripple::sys::RPL_ERROR_CALLBACK));
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
