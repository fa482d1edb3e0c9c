//! Schedulers and the time operators; time operators run on a test scheduler's virtual
//! clock, so nothing here sleeps for a due time.
mod common;
use common::*;
use ripple::{Error, RunLoop, Scheduler, Signal, Subject, TestScheduler};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

#[test]
fn immediate_work_runs_before_schedule_returns_and_knows_its_scheduler() {
    let ran = Arc::new(Mutex::new(None));
    let r2 = ran.clone();
    let d = Scheduler::immediate().schedule(move || *r2.lock().unwrap() = Some(Scheduler::current()));
    let current = ran.lock().unwrap().take().expect("ran");
    assert_eq!(current, Some(Scheduler::immediate()));
    assert!(Scheduler::current().is_none(), "outside scheduled work");
    drop(d);
}

#[test]
fn background_and_serial_work_run_on_other_threads() {
    let me = std::thread::current().id();
    for s in [Scheduler::background(), Scheduler::serial("rust-test")] {
        let (tx, rx) = mpsc::channel();
        let expected = s.clone();
        s.schedule(move || tx.send((std::thread::current().id(), Scheduler::current() == Some(expected))).unwrap());
        let (thread, knows) = rx.recv_timeout(SECOND).unwrap();
        assert_ne!(thread, me);
        assert!(knows);
    }
}

#[test]
fn serial_work_runs_in_order() {
    let s = Scheduler::serial("rust-order");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = mpsc::channel();
    for i in 0..100 {
        let seen = seen.clone();
        s.schedule(move || seen.lock().unwrap().push(i));
    }
    s.schedule(move || tx.send(()).unwrap());
    rx.recv_timeout(SECOND).unwrap();
    assert_eq!(*seen.lock().unwrap(), (0..100).collect::<Vec<_>>());
}

#[test]
fn after_and_repeat_on_a_test_scheduler() {
    let ts = TestScheduler::new();
    let ticks = Arc::new(AtomicUsize::new(0));
    let t2 = ticks.clone();
    let rep = ts.repeat(10 * MS, 5 * MS, move || {
        t2.fetch_add(1, Ordering::SeqCst);
    });
    ts.advance_by(9 * MS);
    assert_eq!(ticks.load(Ordering::SeqCst), 0);
    ts.advance_by(MS);
    assert_eq!(ticks.load(Ordering::SeqCst), 1);
    ts.advance_by(10 * MS);
    assert_eq!(ticks.load(Ordering::SeqCst), 3);
    assert_eq!(ts.now(), 20_000_000);
    rep.dispose();
    ts.advance_by(100 * MS);
    assert_eq!(ticks.load(Ordering::SeqCst), 3);

    let at = Arc::new(Mutex::new(0));
    let (a2, ts2) = (at.clone(), ts.clone());
    ts.after(7 * MS, move || *a2.lock().unwrap() = ts2.now());
    ts.run();
    assert_eq!(*at.lock().unwrap(), 127_000_000);
}

#[test]
fn real_time_after_and_repeat_on_the_background_scheduler() {
    let (tx, rx) = mpsc::channel();
    let start = std::time::Instant::now();
    Scheduler::background().after(20 * MS, move || tx.send(()).unwrap());
    rx.recv_timeout(SECOND).unwrap();
    assert!(start.elapsed() >= 20 * MS);
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let rep = Scheduler::background().repeat(MS, MS, move || {
        let _ = tx.lock().unwrap().send(());
    });
    for _ in 0..3 {
        rx.recv_timeout(SECOND).unwrap();
    }
    rep.dispose();
}

#[test]
fn delay_throttle_timeout_interval_on_virtual_time() {
    let ts = TestScheduler::new();
    let s = Subject::new();
    let (_a, delayed) = record(&s.delay(10 * MS, &ts));
    let (_b, throttled) = record(&s.throttle(10 * MS, &ts));
    s.send_next(1);
    ts.advance_by(5 * MS);
    s.send_next(2);
    assert!(delayed.ints().is_empty() && throttled.ints().is_empty());
    ts.advance_by(5 * MS);
    assert_eq!(delayed.ints(), vec![1]);
    assert!(throttled.ints().is_empty(), "2 restarted the wait");
    ts.advance_by(5 * MS);
    assert_eq!(delayed.ints(), vec![1, 2]);
    assert_eq!(throttled.ints(), vec![2]);

    let (_c, timed) = record(&Signal::never().timeout(30 * MS, &ts));
    ts.advance_by(29 * MS);
    assert!(timed.events().is_empty());
    ts.advance_by(MS);
    let e: Error = timed.error().expect("timed out");
    assert!(e.is_timeout(), "{e}");

    let (_d, ticks) = record(&Signal::interval(10 * MS, &ts).take(3));
    ts.advance_by(100 * MS);
    assert_eq!(ticks.ints(), vec![0, 1, 2]);
    assert!(ticks.completed());
}

#[test]
#[should_panic(expected = "rpl_signal_throttle")]
fn throttle_refuses_the_immediate_scheduler() {
    let _ = Signal::never().throttle(MS, &Scheduler::immediate());
}

#[test]
#[should_panic(expected = "rpl_signal_interval")]
fn interval_refuses_a_zero_period() {
    let _ = Signal::interval(Duration::ZERO, &TestScheduler::new());
}

#[test]
fn deliver_on_and_subscribe_on_change_threads() {
    let serial = Scheduler::serial("rust-deliver");
    let me = std::thread::current().id();
    let (tx, rx) = mpsc::channel();
    let tx = Mutex::new(tx);
    let _sub = of(&[1]).deliver_on(&serial).subscribe_next(move |v| {
        tx.lock().unwrap().send((int(v), std::thread::current().id())).unwrap();
    });
    let (v, thread) = rx.recv_timeout(SECOND).unwrap();
    assert_eq!(v, 1);
    assert_ne!(thread, me);

    let subscribed_on = Arc::new(Mutex::new(None));
    let so = subscribed_on.clone();
    let sig = Signal::create(move |s| {
        *so.lock().unwrap() = Some(std::thread::current().id());
        s.send_completed();
        None
    });
    sig.subscribe_on(&serial).wait(SECOND).unwrap();
    let t = subscribed_on.lock().unwrap().expect("subscribed");
    assert_ne!(t, me);
}

#[test]
fn a_run_loop_runs_work_only_when_driven() {
    let rl = RunLoop::new().unwrap();
    assert!(rl.fd() >= 0);
    assert_eq!(rl.next_timeout(), None);
    let count = Arc::new(AtomicUsize::new(0));
    for _ in 0..3 {
        let c = count.clone();
        rl.schedule(move || {
            c.fetch_add(1, Ordering::SeqCst);
        });
    }
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(rl.next_timeout(), Some(Duration::ZERO));
    assert!(rl.run_one().unwrap());
    assert_eq!(rl.run_until_idle().unwrap(), 2);
    assert!(!rl.run_one().unwrap());
    assert_eq!(count.load(Ordering::SeqCst), 3);

    // run() sleeps until stopped from another thread; values delivered on the loop
    // arrive on the driving thread.
    let me = std::thread::current().id();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (s2, rl2) = (seen.clone(), rl.clone());
    let _sub = of(&[7, 8]).deliver_on(&rl).subscribe(
        move |v| s2.lock().unwrap().push((int(v), std::thread::current().id())),
        |_| {},
        move || rl2.stop(),
    );
    rl.run().unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![(7, me), (8, me)]);
}

#[test]
fn a_run_loop_driven_from_two_threads_reports_the_state_error() {
    let rl = RunLoop::new().unwrap();
    let (started_tx, started_rx) = mpsc::channel();
    let (rl2, rl3) = (rl.clone(), rl.clone());
    rl.schedule(move || started_tx.send(()).unwrap());
    let driver = std::thread::spawn(move || rl2.run());
    started_rx.recv_timeout(SECOND).unwrap();
    let err = rl.run_until_idle().unwrap_err();
    assert_eq!(err.status(), Some(ripple::sys::RPL_ERR_STATE));
    rl3.stop();
    driver.join().unwrap().unwrap();
}
