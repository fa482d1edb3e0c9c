//! One or more tests per operator family, with the results ripple.h documents.
mod common;
use common::*;
use ripple::{Error, Event, Signal, Subject, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn add(a: &Value, b: &Value) -> Value {
    Value::Int(int(a) + int(b))
}

#[test]
fn map_filter_scan_aggregate() {
    assert_eq!(ints(&of(&[1, 2, 3]).map(|v| Value::Int(int(v) * 2))), vec![2, 4, 6]);
    assert_eq!(ints(&of(&[1, 2, 3, 4]).filter(|v| int(v) % 2 == 0)), vec![2, 4]);
    assert_eq!(ints(&of(&[1, 2, 3]).scan(0, add)), vec![1, 3, 6]);
    assert_eq!(ints(&of(&[1, 2, 3]).aggregate(10, add)), vec![16]);
    assert_eq!(ints(&Signal::empty().aggregate(10, add)), vec![10]);
}

#[test]
fn scan_starts_again_for_each_subscription() {
    let sig = of(&[1, 1]).scan(0, add);
    assert_eq!(ints(&sig), vec![1, 2]);
    assert_eq!(ints(&sig), vec![1, 2]);
}

#[test]
fn distinct_until_changed_collect_take_last() {
    assert_eq!(ints(&of(&[1, 2, 2, 1, 1]).distinct_until_changed()), vec![1, 2, 1]);
    let all = of(&[1, 2, 3]).collect().to_vec(SECOND).unwrap();
    assert_eq!(all, vec![Value::Tuple(vec![1.into(), 2.into(), 3.into()])]);
    assert_eq!(ints(&of(&[1, 2, 3, 4]).take_last(2)), vec![3, 4]);
}

#[test]
fn materialize_and_dematerialize() {
    let e = Error::new("d", 1, "m");
    let events = of(&[1]).concat(&Signal::error(e.clone())).materialize().to_vec(SECOND).unwrap();
    assert_eq!(events, vec![Value::from(Event::Next(1.into())), Value::from(Event::Error(e.clone()))]);
    let back = of(&[1, 2]).materialize().dematerialize();
    assert_eq!(ints(&back), vec![1, 2]);
    let (_s, r) = record(&Signal::return_(Value::from(Event::Error(e.clone()))).dematerialize());
    assert_eq!(r.error(), Some(e));
    let (_s, r) = record(&Signal::return_(5).dematerialize());
    let err = r.error().expect("a type error");
    assert_eq!((err.domain(), err.code()), (Error::DOMAIN, i64::from(ripple::sys::RPL_ERROR_TYPE)));
}

#[test]
fn take_skip_take_while_skip_while() {
    assert_eq!(ints(&of(&[1, 2, 3, 4]).take(2)), vec![1, 2]);
    assert_eq!(ints(&of(&[1, 2, 3, 4]).skip(3)), vec![4]);
    assert_eq!(ints(&of(&[1, 2, 3, 1]).take_while(|v| int(v) < 3)), vec![1, 2]);
    assert_eq!(ints(&of(&[1, 2, 3, 1]).skip_while(|v| int(v) < 3)), vec![3, 1]);
    assert_eq!(ints(&Signal::never().take(0)), Vec::<i64>::new());
}

#[test]
fn take_counts_values_sent_back_from_a_callback() {
    // Rule 4, RAC's recursive take: the subscriber sends v + 1 back.
    let s = Subject::new();
    let r = Recorder::default();
    let (r1, r2, back) = (r.clone(), r.clone(), s.clone());
    let _sub = s.take(3).subscribe(
        move |v| {
            r1.0.lock().unwrap().push(Event::Next(v.clone()));
            back.send_next(int(v) + 1)
        },
        |_| {},
        move || r2.0.lock().unwrap().push(Event::Completed),
    );
    s.send_next(0);
    assert_eq!(r.ints(), vec![0, 1, 2]);
    assert!(r.completed());
}

#[test]
fn side_effects_run_before_forwarding() {
    let log = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let (l1, l2, l3) = (log.clone(), log.clone(), log.clone());
    let sig = of(&[1, 2])
        .do_next(move |v| l1.lock().unwrap().push(format!("next {}", int(v))))
        .do_completed(move || l2.lock().unwrap().push("completed".into()));
    assert_eq!(ints(&sig), vec![1, 2]);
    let failing = Signal::error(Error::new("x", 9, "e")).do_error(move |e| l3.lock().unwrap().push(format!("error {}", e.code())));
    assert!(failing.wait(SECOND).is_err());
    assert_eq!(*log.lock().unwrap(), vec!["next 1", "next 2", "completed", "error 9"]);
}

#[test]
fn bind_follows_racs_rules() {
    let sig = of(&[1, 2, 3]).bind(|v, stop| {
        if int(v) == 2 {
            *stop = true;
        }
        Some(of(&[int(v) * 10, int(v) * 100]))
    });
    let (_s, r) = record(&sig);
    assert_eq!(r.ints(), vec![10, 100, 20, 200]);
    assert!(r.completed());
    let none = of(&[1, 2]).bind(|_, _| None);
    assert_eq!(ints(&none), Vec::<i64>::new());
}

#[test]
fn flatten_map_flatten_switch_to_latest() {
    assert_eq!(ints(&of(&[1, 2]).flatten_map(|v| of(&[int(v), int(v) * 10]))), vec![1, 10, 2, 20]);
    let outer = Signal::merge(&[Signal::return_(Value::Signal(of(&[1, 2]))), Signal::return_(Value::Nil), Signal::return_(Value::Signal(of(&[3])))]);
    assert_eq!(ints(&outer.flatten()), vec![1, 2, 3]);

    let (outer, a, b) = (Subject::new(), Subject::new(), Subject::new());
    let (_s, r) = record(&outer.switch_to_latest());
    outer.send_next(a.signal());
    a.send_next(1);
    outer.send_next(b.signal());
    a.send_next(2);
    b.send_next(3);
    outer.send_completed();
    assert!(!r.completed(), "the latest inner has not completed");
    b.send_completed();
    assert_eq!(r.ints(), vec![1, 3]);
    assert!(r.completed());
}

#[test]
fn concat_merge_zip_combine_latest() {
    assert_eq!(ints(&of(&[1]).concat(&of(&[2, 3]))), vec![1, 2, 3]);
    assert_eq!(ints(&Signal::merge(&[of(&[1, 2]), of(&[3])])), vec![1, 2, 3]);
    assert_eq!(ints(&Signal::merge(&[])), Vec::<i64>::new());
    let zipped = Signal::zip(&[of(&[1, 2, 3]), of(&[10, 20])]).to_vec(SECOND).unwrap();
    assert_eq!(zipped, vec![Value::from(vec![1.into(), 10.into()]), Value::from(vec![2.into(), 20.into()])]);

    let (a, b) = (Subject::new(), Subject::new());
    let (_s, r) = record(&Signal::combine_latest(&[a.signal(), b.signal()]));
    a.send_next(1);
    b.send_next("x");
    a.send_next(2);
    a.send_completed();
    b.send_completed();
    assert_eq!(r.values(), vec![Value::from(vec![1.into(), "x".into()]), Value::from(vec![2.into(), "x".into()])]);
    assert!(r.completed());
}

#[test]
fn start_with_then_take_until() {
    assert_eq!(ints(&of(&[2]).start_with(1)), vec![1, 2]);
    assert_eq!(ints(&of(&[1, 2]).then(&of(&[3]))), vec![3]);
    let (src, trigger) = (Subject::new(), Subject::new());
    let (_s, r) = record(&src.take_until(&trigger));
    src.send_next(1);
    trigger.send_next(());
    src.send_next(2);
    assert_eq!(r.ints(), vec![1]);
    assert!(r.completed());
    assert_eq!(src.subscriber_count(), 0, "the source was disposed");
}

#[test]
fn catch_catch_to_retry_repeat() {
    let e = Error::new("net", 5, "down");
    let failing = of(&[1]).concat(&Signal::error(e.clone()));
    let seen = Arc::new(std::sync::Mutex::new(None));
    let s2 = seen.clone();
    let caught = failing.catch(move |err| {
        *s2.lock().unwrap() = Some(err.clone());
        of(&[99])
    });
    assert_eq!(ints(&caught), vec![1, 99]);
    assert_eq!(seen.lock().unwrap().clone(), Some(e.clone()));
    assert_eq!(ints(&failing.catch_to(&of(&[7]))), vec![1, 7]);
    assert_eq!(failing.catch(|err| Signal::error(err.clone())).to_vec(SECOND), Err(e.clone()));

    let attempts = Arc::new(AtomicUsize::new(0));
    let a2 = attempts.clone();
    let flaky = Signal::create(move |s| {
        if a2.fetch_add(1, Ordering::SeqCst) < 2 {
            s.send_error(Error::new("flaky", 1, "again"));
        } else {
            s.send_next(42);
            s.send_completed();
        }
        None
    });
    assert_eq!(ints(&flaky.retry(5)), vec![42]);
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
    attempts.store(0, Ordering::SeqCst);
    assert_eq!(flaky.retry(1).to_vec(SECOND).unwrap_err().domain(), "flaky", "2 attempts are not enough");

    assert_eq!(ints(&of(&[1, 2]).repeat(3)), vec![1, 2, 1, 2, 1, 2]);
    assert_eq!(ints(&of(&[1]).repeat(0)), Vec::<i64>::new());
}

#[test]
fn errors_pass_through_operators_unchanged() {
    let e = Error::new("my.domain", -17, "it broke");
    let sig = Signal::error(e.clone()).map(|v| v.clone()).filter(|_| true).take(5).skip(0);
    let (_s, r) = record(&sig);
    assert_eq!(r.events(), vec![Event::Error(e)]);
}

#[test]
fn create_and_defer_are_cold() {
    let calls = Arc::new(AtomicUsize::new(0));
    let c2 = calls.clone();
    let deferred = Signal::defer(move || Signal::return_(c2.fetch_add(1, Ordering::SeqCst) as i64));
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(ints(&deferred), vec![0]);
    assert_eq!(ints(&deferred), vec![1]);
    let (_s, r) = record(&Signal::never());
    assert!(r.events().is_empty());
}

#[test]
fn a_producer_stops_when_its_subscription_is_disposed() {
    // rule 3: the disposable exists before the subscribe callback runs.
    let sent = Arc::new(AtomicUsize::new(0));
    let s2 = sent.clone();
    let endless = Signal::create(move |s| {
        while !s.is_disposed() {
            s.send_next(1);
            s2.fetch_add(1, Ordering::SeqCst);
        }
        None
    });
    assert_eq!(ints(&endless.take(3)), vec![1, 1, 1]);
    assert_eq!(sent.load(Ordering::SeqCst), 3);
}

#[test]
fn the_create_callback_can_return_a_disposable() {
    let disposed = Arc::new(AtomicUsize::new(0));
    let d2 = disposed.clone();
    let sig = Signal::create(move |_| {
        let d3 = d2.clone();
        Some(ripple::Disposable::new(move || {
            d3.fetch_add(1, Ordering::SeqCst);
        }))
    });
    let sub = sig.subscribe_next(|_| {});
    assert_eq!(disposed.load(Ordering::SeqCst), 0);
    sub.dispose();
    sub.dispose();
    assert_eq!(disposed.load(Ordering::SeqCst), 1);
}
