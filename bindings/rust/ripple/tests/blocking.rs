//! The blocking helpers return Result, and a signal can be iterated with a timeout.
mod common;
use common::*;
use ripple::{Error, Scheduler, Signal, Subject, Value, FOREVER};
use ripple::sys::{RPL_ERR_NO_VALUE, RPL_ERR_TIMEOUT};
use std::time::{Duration, Instant};

const SHORT: Duration = Duration::from_millis(50);

#[test]
fn first_wait_and_to_vec_succeed() {
    assert_eq!(of(&[5, 6]).first(SECOND), Ok(Value::Int(5)));
    assert_eq!(of(&[5, 6]).wait(SECOND), Ok(()));
    assert_eq!(ints(&of(&[5, 6])), vec![5, 6]);
    assert_eq!(Signal::empty().to_vec(SECOND), Ok(vec![]));
}

#[test]
fn failures_are_errors_with_distinct_statuses() {
    let none = Signal::empty().first(SECOND).unwrap_err();
    assert_eq!(none.status(), Some(RPL_ERR_NO_VALUE));
    assert!(!none.is_timeout());

    let start = Instant::now();
    let late = Signal::never().first(SHORT).unwrap_err();
    assert_eq!(late.status(), Some(RPL_ERR_TIMEOUT));
    assert!(late.is_timeout());
    assert!(start.elapsed() >= SHORT);
    assert!(Signal::never().wait(SHORT).unwrap_err().is_timeout());

    let e = Error::new("app", 42, "no luck");
    assert_eq!(Signal::error(e.clone()).first(SECOND), Err(e.clone()));
    assert_eq!(of(&[1]).concat(&Signal::error(e.clone())).to_vec(SECOND), Err(e.clone()));
    assert_eq!(Signal::error(e.clone()).wait(SECOND), Err(e));
}

#[test]
fn forever_waits_for_another_thread() {
    let s = Subject::replay_unlimited();
    let sender = {
        let s = s.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            s.send_next("late");
            s.send_completed();
        })
    };
    assert_eq!(s.first(FOREVER), Ok(Value::from("late")));
    sender.join().unwrap();
}

#[test]
fn iterating_a_signal() {
    let got: Vec<_> = of(&[1, 2, 3]).iter(SECOND).collect();
    assert_eq!(got, vec![Ok(1.into()), Ok(2.into()), Ok(3.into())]);

    let e = Error::new("it", 1, "stop");
    let got: Vec<_> = of(&[1]).concat(&Signal::error(e.clone())).iter(SECOND).collect();
    assert_eq!(got, vec![Ok(1.into()), Err(e)]);

    let mut it = Signal::never().iter(SHORT);
    assert!(it.next().unwrap().unwrap_err().is_timeout());
    assert!(it.next().is_none(), "a timeout ends the iteration");
}

#[test]
fn iterating_values_sent_from_another_thread() {
    let s = Subject::new();
    let it = s.deliver_on(&Scheduler::background()).iter(SECOND);
    let sender = {
        let s = s.clone();
        std::thread::spawn(move || {
            for i in 0..100 {
                s.send_next(i);
            }
            s.send_completed();
        })
    };
    let got: Vec<i64> = it.map(|r| int(&r.unwrap())).collect();
    sender.join().unwrap();
    assert_eq!(got, (0..100).collect::<Vec<_>>());
}

#[test]
fn dropping_an_iterator_unsubscribes() {
    let s = Subject::new();
    let mut it = s.iter(SECOND);
    assert_eq!(s.subscriber_count(), 1);
    s.send_next(1);
    assert_eq!(it.next(), Some(Ok(Value::Int(1))));
    drop(it);
    assert_eq!(s.subscriber_count(), 0);
}
