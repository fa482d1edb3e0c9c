//! ripple::testing: marble tests from `#[test]`s.
use ripple::testing::Marbles;
use ripple::Value;
use std::time::Duration;

#[test]
fn expect_record_and_subscriptions() {
    let m = Marbles::new();
    let clicks = m.hot("-a--b-c---d|", &[]);
    m.expect(&clicks.throttle(Duration::from_millis(2), &m.scheduler()), "---a----c--(d|)", &[]);
    assert_eq!(m.subscriptions(&clicks).unwrap(), ["^----------!"]);
    let source = m.cold("-x-y|", &[('x', Value::Tuple(vec![Value::Int(1), "one".into()])), ('y', Value::Nil)]);
    m.expect(&source, "-p-q|", &[('p', Value::Tuple(vec![Value::Int(1), "one".into()])), ('q', Value::Nil)]);
    assert_eq!(m.record(&source.take(1), None, &[('x', Value::Tuple(vec![Value::Int(1), "one".into()]))]).unwrap(), "-(x|)");
    assert_eq!(m.record(&m.cold("a-b-c|", &[]), Some("-^--!"), &[]).unwrap(), "-a-b");
    assert_eq!(m.subscriptions(&source).unwrap(), ["^---!", "----^!"]);
    m.expect_subscribed(&m.hot("a-b-c-d-|", &[]), Some("--^---!"), "--b-c-", &[]);
}

#[test]
fn a_difference_is_an_error_or_a_panic() {
    let m = Marbles::new();
    let e = m.check(&m.cold("--a-c-|", &[]), None, "--a-b-|", &[]).unwrap_err();
    assert_eq!(e.status(), Some(ripple::sys::RPL_ERR_FAILED));
    assert_eq!(e.message(), "at frame 4 expected value 'b', got value 'c'\nexpected: --a-b-|\nactual:   --a-c-|\n              ^");
    let panicked = std::panic::catch_unwind(|| {
        let m = Marbles::new();
        m.expect(&m.cold("-a|", &[]), "-b|", &[]);
    });
    assert!(panicked.is_err());
}

#[test]
fn bad_diagrams() {
    let m = Marbles::new();
    let e = m.try_cold("a|b", &[]).unwrap_err();
    assert_eq!(e.status(), Some(ripple::sys::RPL_ERR_INVALID));
    assert!(e.message().contains("column 3"), "{}", e.message());
    assert!(m.try_hot("^^", &[]).is_err());
    assert!(m.try_cold("a", &[('é', Value::Int(1))]).is_err());
    assert_eq!(m.check(&m.cold("a", &[]), None, "((a))", &[]).unwrap_err().status(), Some(ripple::sys::RPL_ERR_INVALID));
    assert!(m.subscriptions(&ripple::Signal::never()).is_err());
    assert!(m.record(&m.cold("a", &[]), Some("^^"), &[]).is_err());
}
