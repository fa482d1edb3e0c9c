//! Values cross the C boundary and come back equal.
mod common;
use common::*;
use ripple::{Error, Event, Signal, Value};
use std::sync::Arc;

fn round_trip(v: Value) -> Value {
    Signal::return_(v).first(SECOND).expect("a value")
}

#[test]
fn every_kind_round_trips_through_the_runtime() {
    let samples = vec![
        Value::Nil,
        Value::Bool(true),
        Value::Bool(false),
        Value::Int(i64::MIN),
        Value::Int(42),
        Value::Double(-2.5),
        Value::Str(String::new()),
        Value::Str("héllo, wörld ✓".into()),
        Value::Str("nul\0inside".into()),
        Value::Bytes(vec![]),
        Value::Bytes(vec![0, 1, 2, 255, 0]),
        Value::Tuple(vec![]),
        Value::Tuple(vec![Value::Int(1), Value::Str("two".into()), Value::Tuple(vec![Value::Nil, Value::Double(3.0)])]),
        Value::from(Event::Next(Value::Int(7))),
        Value::from(Event::Error(Error::new("my.domain", 12, "bad"))),
        Value::from(Event::Completed),
    ];
    for v in samples {
        assert_eq!(round_trip(v.clone()), v);
    }
}

#[test]
fn a_signal_value_carries_the_same_signal() {
    let inner = Signal::return_(5);
    let back = round_trip(Value::Signal(inner.clone()));
    let s = back.as_signal().expect("a signal value");
    assert_eq!(s.as_ptr(), inner.as_ptr());
    assert_eq!(s.first(SECOND).unwrap(), Value::Int(5));
}

#[test]
fn a_pointer_gives_back_its_arc_and_drops_it_with_the_last_reference() {
    let payload = Arc::new(String::from("payload"));
    let v = Value::pointer(payload.clone());
    assert_eq!(Arc::strong_count(&payload), 2);
    let back = round_trip(v.clone());
    assert_eq!(back, v, "pointers compare by address");
    let Value::Pointer(p) = &back else { panic!("not a pointer: {back:?}") };
    let got: Arc<String> = p.downcast().expect("our pointer");
    assert!(Arc::ptr_eq(&got, &payload));
    assert!(p.downcast::<i32>().is_none(), "wrong type");
    drop(got);
    drop(back);
    drop(v);
    assert_eq!(Arc::strong_count(&payload), 1, "the runtime's destructor dropped the Arc");
}

#[test]
fn equality_follows_the_runtime() {
    assert_eq!(Value::Int(1), Value::from(1));
    assert_ne!(Value::Int(1), Value::Double(1.0));
    assert_ne!(Value::Str("a".into()), Value::Bytes(b"a".to_vec()));
    assert_ne!(Value::Double(f64::NAN), Value::Double(f64::NAN));
    assert_ne!(Value::Signal(Signal::never()), Value::Signal(Signal::never()));
    assert_eq!(Value::from(vec![Value::from("x"), Value::from(true)]), Value::Tuple(vec!["x".into(), true.into()]));
}

#[test]
fn conversions_and_accessors() {
    assert!(Value::from(()).is_nil());
    assert_eq!(Value::from(3u32).as_int(), Some(3));
    assert_eq!(Value::from(2.5).as_f64(), Some(2.5));
    assert_eq!(Value::from("s").as_str(), Some("s"));
    assert_eq!(Value::from(&b"\x00b"[..]).as_bytes(), Some(&b"\x00b"[..]));
    assert_eq!(Value::from(false).as_bool(), Some(false));
    assert_eq!(Value::from(vec![Value::Nil]).as_tuple().map(<[Value]>::len), Some(1));
    assert_eq!(Value::Int(1).as_str(), None);
    assert!(matches!(Value::from(Event::Completed).as_event(), Some(Event::Completed)));
}

#[test]
fn a_boxed_value_survives_many_copies_across_threads() {
    let v = Value::Tuple((0..100).map(|i| Value::Str(format!("item {i}"))).collect());
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let v = v.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    assert_eq!(round_trip(v.clone()), v);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
