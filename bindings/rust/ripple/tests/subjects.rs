mod common;
use common::*;
use ripple::{Error, Event, Subject, Value};

#[test]
fn a_plain_subject_sends_only_later_values() {
    let s = Subject::new();
    s.send_next(1);
    let (_sub, r) = record(&s.signal());
    s.send_next(2);
    s.send_next(3);
    s.send_completed();
    s.send_next(4);
    assert_eq!(r.events(), vec![Event::Next(2.into()), Event::Next(3.into()), Event::Completed]);
}

#[test]
fn a_subject_remembers_its_terminal_event() {
    let s = Subject::new();
    let e = Error::new("test", 3, "boom");
    assert!(!s.is_terminated());
    s.send_error(e.clone());
    assert!(s.is_terminated());
    let (_sub, r) = record(&s);
    assert_eq!(r.events(), vec![Event::Error(e)]);
}

#[test]
fn a_behavior_subject_starts_with_its_current_value() {
    let s = Subject::behavior("start");
    assert_eq!(s.value(), Some(Value::from("start")));
    let (_a, first) = record(&s);
    s.send_next("next");
    let (_b, second) = record(&s);
    assert_eq!(first.values(), vec![Value::from("start"), Value::from("next")]);
    assert_eq!(second.values(), vec![Value::from("next")]);
    s.send_completed();
    let (_c, late) = record(&s);
    assert_eq!(late.events(), vec![Event::Completed]);
    assert_eq!(s.value(), Some(Value::from("next")), "readable after the end");
    assert_eq!(Subject::new().value(), None, "not a behavior subject");
}

#[test]
fn a_replay_subject_replays_its_last_values() {
    let s = Subject::replay(2);
    for i in 1..=4 {
        s.send_next(i);
    }
    let (_a, r) = record(&s);
    s.send_next(5);
    assert_eq!(r.ints(), vec![3, 4, 5]);
    let all = Subject::replay_unlimited();
    for i in 0..100 {
        all.send_next(i);
    }
    all.send_completed();
    assert_eq!(ints(&all), (0..100).collect::<Vec<_>>());
}

#[test]
#[should_panic(expected = "rpl_replay_subject_create")]
fn a_replay_subject_of_capacity_zero_is_refused() {
    let _ = Subject::replay(0);
}

#[test]
fn subscriber_count_follows_subscriptions() {
    let s = Subject::new();
    assert_eq!(s.subscriber_count(), 0);
    let a = s.subscribe_next(|_| {});
    let b = s.map(|v| v.clone()).subscribe_next(|_| {});
    assert_eq!(s.subscriber_count(), 2);
    a.dispose();
    assert_eq!(s.subscriber_count(), 1);
    b.dispose();
    assert_eq!(s.subscriber_count(), 0);
}

#[test]
fn a_signal_feeds_a_subject() {
    let s = Subject::replay_unlimited();
    let sub = of(&[1, 2, 3]).subscribe_subject(&s);
    assert!(sub.is_disposed(), "the source completed");
    assert!(s.is_terminated());
    assert_eq!(ints(&s), vec![1, 2, 3]);
}

#[test]
fn a_subject_clone_is_the_same_subject() {
    let s = Subject::new();
    let (_sub, r) = record(&s);
    let t = s.clone();
    drop(s);
    t.send_next(9);
    assert_eq!(r.ints(), vec![9]);
}
