//! Handles are Send + Sync, callbacks of one subscriber never overlap, and events from
//! several threads all arrive.
mod common;
use common::*;
use ripple::{Connection, Disposable, Error, Scheduler, Signal, Subject, Subscriber, Value};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

fn send_sync<T: Send + Sync>() {}

#[test]
fn handle_types_are_send_and_sync() {
    send_sync::<Signal>();
    send_sync::<Subject>();
    send_sync::<Disposable>();
    send_sync::<Subscriber>();
    send_sync::<Connection>();
    send_sync::<Scheduler>();
    send_sync::<Value>();
    send_sync::<Error>();
}

#[test]
fn concurrent_senders_reach_a_subscriber_one_event_at_a_time() {
    let s = Subject::new();
    let busy = Arc::new(AtomicBool::new(false));
    let overlaps = Arc::new(AtomicUsize::new(0));
    let sum = Arc::new(AtomicUsize::new(0));
    let (b, o, su) = (busy.clone(), overlaps.clone(), sum.clone());
    let sub = s.map(|v| v.clone()).subscribe_next(move |v| {
        if b.swap(true, Ordering::SeqCst) {
            o.fetch_add(1, Ordering::SeqCst);
        }
        su.fetch_add(int(v) as usize, Ordering::SeqCst);
        std::hint::spin_loop();
        b.store(false, Ordering::SeqCst);
    });
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                for i in 1..=2000 {
                    s.send_next(i);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(sum.load(Ordering::SeqCst), 4 * 2000 * 2001 / 2, "every value arrived");
    assert_eq!(overlaps.load(Ordering::SeqCst), 0, "callbacks overlapped");
    sub.dispose();
}

#[test]
fn events_from_one_thread_keep_their_order() {
    let s = Subject::replay_unlimited();
    let sender = {
        let s = s.clone();
        std::thread::spawn(move || {
            for i in 0..1000 {
                s.send_next(i);
            }
            s.send_completed();
        })
    };
    let (_sub, r) = record(&s.deliver_on(&Scheduler::background()));
    sender.join().unwrap();
    assert!(eventually(|| r.completed()));
    assert_eq!(r.ints(), (0..1000).collect::<Vec<_>>());
}

#[test]
fn a_producer_sends_from_its_own_thread() {
    let sig = Signal::create(|s| {
        std::thread::spawn(move || {
            for i in 0..3 {
                s.send_next(i);
            }
            s.send_completed();
        });
        None
    });
    assert_eq!(ints(&sig), vec![0, 1, 2]);
}

#[test]
fn signals_subjects_and_subscriptions_move_between_threads() {
    let s = Subject::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let sig = s.map(|v| Value::Int(int(v) + 1));
    let sub = std::thread::spawn(move || sig.subscribe_next(move |v| seen2.lock().unwrap().push(int(v))))
        .join()
        .unwrap();
    let s2 = s.clone();
    std::thread::spawn(move || s2.send_next(1)).join().unwrap();
    std::thread::spawn(move || sub.dispose()).join().unwrap();
    s.send_next(2);
    assert_eq!(*seen.lock().unwrap(), vec![2]);
}

#[test]
fn subjects_on_two_threads_sending_into_each_other_do_not_deadlock() {
    let (a, b) = (Subject::new(), Subject::new());
    let count = Arc::new(AtomicUsize::new(0));
    let (b2, c1) = (b.clone(), count.clone());
    let _x = a.subscribe_next(move |v| {
        c1.fetch_add(1, Ordering::SeqCst);
        if int(v) % 2 == 0 {
            b2.send_next(int(v) + 1);
        }
    });
    let (a2, c2) = (a.clone(), count.clone());
    let _y = b.subscribe_next(move |v| {
        c2.fetch_add(1, Ordering::SeqCst);
        if int(v) % 2 == 0 {
            a2.send_next(int(v) + 1);
        }
    });
    let ta = {
        let a = a.clone();
        std::thread::spawn(move || (0..500).for_each(|i| a.send_next(i * 2)))
    };
    let tb = {
        let b = b.clone();
        std::thread::spawn(move || (0..500).for_each(|i| b.send_next(i * 2)))
    };
    ta.join().unwrap();
    tb.join().unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 2000);
    // Each subject's subscriber holds the other subject: a cycle through the closures,
    // broken by disposing.
    _x.dispose();
    _y.dispose();
}
