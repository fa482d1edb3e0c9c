//! Handles are RAII and every closure handed to C is dropped exactly once, through the
//! runtime's `release`, whatever way its owner ends. The captured `Arc`'s strong count
//! tells: 2 while the runtime holds the closure, 1 once it dropped it (a double drop
//! would fail the count or crash).
mod common;
use common::*;
use ripple::{Disposable, Scheduler, Signal, Subject, TestScheduler, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn an_operator_closure_lives_as_long_as_its_signal_and_subscriptions() {
    let token = Arc::new(());
    let t = token.clone();
    let subject = Subject::new();
    let mapped = subject.map(move |v| {
        let _ = &t;
        v.clone()
    });
    assert_eq!(Arc::strong_count(&token), 2);
    let sub = mapped.subscribe_next(|_| {});
    drop(mapped);
    assert_eq!(Arc::strong_count(&token), 2, "the subscription keeps the operator");
    sub.dispose();
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn a_subject_nobody_can_send_into_ends_its_subscriptions() {
    // Once the last handle of a subject is gone, nothing can ever arrive: a
    // subscription to an operator over it ends at once and frees its closure.
    let token = Arc::new(());
    let t = token.clone();
    let mapped = Subject::new().map(move |v| {
        let _ = &t;
        v.clone()
    });
    let sub = mapped.subscribe_next(|_| {});
    drop(mapped);
    assert_eq!(Arc::strong_count(&token), 1);
    drop(sub);
}

#[test]
fn every_operator_callback_is_released_once() {
    let token = Arc::new(());
    let tk = || token.clone();
    let src = Subject::new();
    {
        let t = (tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk(), tk());
        let sig = src
            .map(move |v| { let _ = &t.0; v.clone() })
            .filter(move |_| { let _ = &t.1; true })
            .scan(0, move |a, _| { let _ = &t.2; a.clone() })
            .aggregate(0, move |a, _| { let _ = &t.3; a.clone() })
            .take_while(move |_| { let _ = &t.4; true })
            .skip_while(move |_| { let _ = &t.5; false })
            .do_next(move |_| { let _ = &t.6; })
            .do_error(move |_| { let _ = &t.7; })
            .do_completed(move || { let _ = &t.8; })
            .bind(move |_, _| { let _ = &t.9; None })
            .flatten_map(move |_| { let _ = &t.10; Signal::empty() })
            .catch(move |_| { let _ = &t.11; Signal::empty() });
        let deferred = Signal::defer(move || { let _ = &t.12; Signal::empty() });
        assert_eq!(Arc::strong_count(&token), 14);
        let sub = sig.subscribe_next(|_| {});
        let sub2 = deferred.subscribe_next(|_| {});
        src.send_next(1);
        src.send_completed();
        assert!(sub.is_disposed() && sub2.is_disposed());
    }
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn subscription_callbacks_are_released_at_completion_error_or_dispose() {
    for ending in ["complete", "error", "dispose", "subject dropped"] {
        let token = Arc::new(());
        let s = Subject::new();
        let (a, b, c) = (token.clone(), token.clone(), token.clone());
        let sub = s.subscribe(move |_| { let _ = &a; }, move |_| { let _ = &b; }, move || { let _ = &c; });
        assert_eq!(Arc::strong_count(&token), 4, "{ending}");
        match ending {
            "complete" => s.send_completed(),
            "error" => s.send_error(ripple::Error::new("x", 1, "y")),
            "dispose" => sub.dispose(),
            _ => {
                // The subscription's own handle still holds it: it ends once that goes
                // too (ripple.h: "unless something else holds them").
                drop(s);
                drop(sub);
                assert_eq!(Arc::strong_count(&token), 1, "{ending}");
                continue;
            }
        }
        assert_eq!(Arc::strong_count(&token), 1, "{ending}");
        drop(sub);
    }
}

#[test]
fn dropping_a_subscription_handle_does_not_end_it() {
    let s = Subject::new();
    let seen = Arc::new(AtomicUsize::new(0));
    let s2 = seen.clone();
    drop(s.subscribe_next(move |_| {
        s2.fetch_add(1, Ordering::SeqCst);
    }));
    s.send_next(1);
    assert_eq!(seen.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&seen), 2);
    drop(s);
    assert_eq!(Arc::strong_count(&seen), 1, "freed with its source");
}

#[test]
fn dispose_on_drop_ends_the_subscription() {
    let s = Subject::new();
    let (_sub, r) = {
        let (sub, r) = record(&s);
        (sub.dispose_on_drop(), r)
    };
    s.send_next(1);
    drop(_sub);
    s.send_next(2);
    assert_eq!(r.ints(), vec![1]);
}

#[test]
fn a_disposable_action_runs_once_and_is_dropped_either_way() {
    let token = Arc::new(AtomicUsize::new(0));
    let t = token.clone();
    let d = Disposable::new(move || {
        t.fetch_add(1, Ordering::SeqCst);
    });
    let d2 = d.clone();
    assert!(!d.is_disposed());
    d.dispose();
    d2.dispose();
    assert!(d2.is_disposed());
    assert_eq!(token.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&token), 1, "dropped after running");

    let t = token.clone();
    let undisposed = Disposable::new(move || {
        t.fetch_add(1, Ordering::SeqCst);
    });
    assert_eq!(Arc::strong_count(&token), 2);
    drop(undisposed);
    assert_eq!(Arc::strong_count(&token), 1, "dropped without running");
    assert_eq!(token.load(Ordering::SeqCst), 1);
}

#[test]
fn scheduled_work_is_dropped_after_running_or_when_cancelled() {
    let ts = TestScheduler::new();
    let token = Arc::new(AtomicUsize::new(0));
    let (t1, t2) = (token.clone(), token.clone());
    let _ran = ts.after(Duration::from_millis(5), move || {
        t1.fetch_add(1, Ordering::SeqCst);
    });
    let cancelled = ts.after(Duration::from_millis(5), move || {
        t2.fetch_add(10, Ordering::SeqCst);
    });
    assert_eq!(Arc::strong_count(&token), 3);
    cancelled.dispose();
    assert_eq!(Arc::strong_count(&token), 2, "freed at cancellation");
    ts.advance_by(Duration::from_millis(5));
    assert_eq!(token.load(Ordering::SeqCst), 1);
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn a_refused_call_still_releases_its_closure() {
    let token = Arc::new(());
    let t = token.clone();
    let result = catch_unwind(AssertUnwindSafe(|| {
        // The immediate scheduler cannot repeat: the runtime refuses and releases ctx.
        Scheduler::immediate().repeat(Duration::ZERO, Duration::from_millis(1), move || { let _ = &t; })
    }));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("rpl_scheduler_repeat"), "{message}");
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn clones_share_one_runtime_object() {
    let token = Arc::new(());
    let t = token.clone();
    let sig = Signal::create(move |s| {
        let _ = &t;
        s.send_completed();
        None
    });
    let copy = sig.clone();
    assert_eq!(copy.as_ptr(), sig.as_ptr());
    drop(sig);
    assert!(copy.wait(SECOND).is_ok());
    assert_eq!(Arc::strong_count(&token), 2);
    drop(copy);
    assert_eq!(Arc::strong_count(&token), 1, "the signal's release dropped the closure");
}

#[test]
fn many_subscriptions_on_many_threads_release_everything() {
    let token = Arc::new(());
    let s = Subject::new();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let (s, token) = (s.clone(), token.clone());
            std::thread::spawn(move || {
                for i in 0..200 {
                    let t = token.clone();
                    let sub = s.map(move |v| { let _ = &t; v.clone() }).subscribe_next(|_| {});
                    s.send_next(Value::Int(i));
                    sub.dispose();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(Arc::strong_count(&token), 1);
}

#[test]
fn a_callback_that_disposes_its_own_subscription_is_freed_only_after_it_returns() {
    let token = Arc::new(());
    let slot: Arc<std::sync::Mutex<Option<ripple::Subscription>>> = Arc::default();
    let counts = Arc::new(std::sync::Mutex::new(Vec::new()));
    let s = Subject::new();
    let (t, sl, c) = (token.clone(), slot.clone(), counts.clone());
    let sub = s.subscribe_next(move |_| {
        let me = sl.lock().unwrap().clone().expect("subscribed");
        me.dispose();
        // Still running: the runtime must not have released this closure yet.
        c.lock().unwrap().push(Arc::strong_count(&t));
    });
    *slot.lock().unwrap() = Some(sub);
    s.send_next(1);
    s.send_next(2);
    assert_eq!(*counts.lock().unwrap(), vec![2], "one call, made while the closure was alive");
    assert_eq!(Arc::strong_count(&token), 1, "released after it returned");
}

#[test]
fn disposing_from_another_thread_waits_for_nothing_but_frees_after_the_running_callback() {
    use std::sync::mpsc;
    let token = Arc::new(());
    let (entered_tx, entered_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (entered_tx, go_rx) = (std::sync::Mutex::new(entered_tx), std::sync::Mutex::new(go_rx));
    let s = Subject::new();
    let (t, calls) = (token.clone(), Arc::new(AtomicUsize::new(0)));
    let c = calls.clone();
    let sub = s.subscribe_next(move |_| {
        let _ = &t;
        c.fetch_add(1, Ordering::SeqCst);
        let _ = entered_tx.lock().unwrap().send(());
        let _ = go_rx.lock().unwrap().recv();
    });
    let sender = {
        let s = s.clone();
        std::thread::spawn(move || s.send_next(1))
    };
    entered_rx.recv_timeout(SECOND).unwrap();
    sub.dispose(); // returns while the callback is still blocked on the other thread
    assert_eq!(Arc::strong_count(&token), 2, "not freed under a running callback");
    go_tx.send(()).unwrap();
    sender.join().unwrap();
    assert!(eventually(|| Arc::strong_count(&token) == 1));
    drop(go_tx);
    s.send_next(2);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "no callback after dispose");
}
