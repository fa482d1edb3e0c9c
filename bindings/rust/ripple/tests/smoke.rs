mod common;
use common::*;
use ripple::{Subject, Value};

#[test]
fn subject_map_filter_subscribe_next() {
    let subject = Subject::new();
    let seen = Recorder::default();
    let s2 = seen.clone();
    let sub = subject
        .signal()
        .map(|v| Value::Int(int(v) * 10))
        .filter(|v| int(v) > 10)
        .subscribe_next(move |v| s2.0.lock().unwrap().push(ripple::Event::Next(v.clone())));
    subject.send_next(1);
    subject.send_next(2);
    subject.send_next(Value::Int(3));
    sub.dispose();
    subject.send_next(4);
    assert_eq!(seen.ints(), vec![20, 30]);
}
