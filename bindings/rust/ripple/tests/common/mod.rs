#![allow(dead_code)]
use ripple::{Error, Event, Signal, Subscription, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Every event a subscription received, in order.
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<Event>>>);

impl Recorder {
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }
    pub fn values(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter_map(|e| if let Event::Next(v) = e { Some(v) } else { None })
            .collect()
    }
    pub fn ints(&self) -> Vec<i64> {
        self.values().iter().map(|v| v.as_int().expect("an int")).collect()
    }
    pub fn completed(&self) -> bool {
        matches!(self.events().last(), Some(Event::Completed))
    }
    pub fn error(&self) -> Option<Error> {
        match self.events().last() {
            Some(Event::Error(e)) => Some(e.clone()),
            _ => None,
        }
    }
    pub fn terminated(&self) -> bool {
        self.completed() || self.error().is_some()
    }
}

pub fn record(sig: &Signal) -> (Subscription, Recorder) {
    let r = Recorder::default();
    let (a, b, c) = (r.clone(), r.clone(), r.clone());
    let sub = sig.subscribe(
        move |v| a.0.lock().unwrap().push(Event::Next(v.clone())),
        move |e| b.0.lock().unwrap().push(Event::Error(e.clone())),
        move || c.0.lock().unwrap().push(Event::Completed),
    );
    (sub, r)
}

pub fn ints(sig: &Signal) -> Vec<i64> {
    sig.to_vec(SECOND).expect("signal completes").iter().map(|v| v.as_int().expect("an int")).collect()
}

pub fn int(v: &Value) -> i64 {
    v.as_int().expect("an int")
}

pub fn of(values: &[i64]) -> Signal {
    let values = values.to_vec();
    Signal::create(move |s| {
        for &v in &values {
            s.send_next(v);
        }
        s.send_completed();
        None
    })
}

pub const SECOND: Duration = Duration::from_secs(5);

/// Polls `cond` until it holds or 5 s pass.
pub fn eventually(cond: impl Fn() -> bool) -> bool {
    let end = std::time::Instant::now() + Duration::from_secs(5);
    while std::time::Instant::now() < end {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    cond()
}
