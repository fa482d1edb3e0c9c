//! Multicast connections: one subscription of the source, shared.
mod common;
use common::*;
use ripple::{Signal, Subject};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A signal counting its subscriptions, sending into a subject it keeps for the test.
fn counted() -> (Signal, Arc<AtomicUsize>, Subject) {
    let count = Arc::new(AtomicUsize::new(0));
    let feed = Subject::new();
    let (c, f) = (count.clone(), feed.clone());
    let sig = Signal::create(move |s| {
        c.fetch_add(1, Ordering::SeqCst);
        let s2 = s.clone();
        let sub = f.subscribe(move |v| s2.send_next(v.clone()), |_| {}, {
            let s3 = s.clone();
            move || s3.send_completed()
        });
        Some(sub)
    });
    (sig, count, feed)
}

#[test]
fn publish_subscribes_the_source_once() {
    let (sig, count, feed) = counted();
    let conn = sig.publish();
    let (_a, ra) = record(&conn.signal());
    let (_b, rb) = record(&conn.signal());
    assert_eq!(count.load(Ordering::SeqCst), 0, "not connected yet");
    let d1 = conn.connect();
    let d2 = conn.connect();
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(d1.as_ptr(), d2.as_ptr(), "the same connection");
    feed.send_next(1);
    assert_eq!((ra.ints(), rb.ints()), (vec![1], vec![1]));
    d1.dispose();
    feed.send_next(2);
    assert_eq!(ra.ints(), vec![1]);
    let _d3 = conn.connect();
    assert_eq!(count.load(Ordering::SeqCst), 2, "connects again after a dispose");
    // The source's closure holds `feed`, whose subscriber holds the source's subscriber:
    // a cycle through user closures, which only a terminal event breaks.
    feed.send_completed();
    assert!(ra.completed() && rb.completed());
}

#[test]
fn multicast_through_a_replay_subject() {
    let conn = of(&[1, 2, 3]).multicast(&Subject::replay(2));
    conn.connect();
    assert_eq!(ints(&conn.signal()), vec![2, 3]);
}

#[test]
fn autoconnect_connects_on_the_first_and_disconnects_after_the_last() {
    let (sig, count, feed) = counted();
    let auto = sig.publish().autoconnect();
    assert_eq!(count.load(Ordering::SeqCst), 0);
    let (a, ra) = record(&auto);
    let (b, _rb) = record(&auto);
    assert_eq!(count.load(Ordering::SeqCst), 1);
    feed.send_next(1);
    a.dispose();
    assert_eq!(feed.subscriber_count(), 1, "still connected");
    b.dispose();
    assert_eq!(feed.subscriber_count(), 0, "disconnected at zero");
    let (_c, rc) = record(&auto);
    assert_eq!(count.load(Ordering::SeqCst), 2, "a later subscriber connects again");
    feed.send_next(2);
    assert_eq!((ra.ints(), rc.ints()), (vec![1], vec![2]));
    feed.send_completed(); // ends the cycle through the closures (see above)
    assert!(rc.completed());
}

#[test]
fn replay_replay_last_and_replay_lazily() {
    let (sig, count, feed) = counted();
    let replayed = sig.replay();
    assert_eq!(count.load(Ordering::SeqCst), 1, "connected at once");
    feed.send_next(1);
    feed.send_next(2);
    let last = sig.replay_last();
    assert_eq!(count.load(Ordering::SeqCst), 2);
    feed.send_next(3);
    let lazy = sig.replay_lazily();
    assert_eq!(count.load(Ordering::SeqCst), 2, "lazily: not yet");
    let (_l, rl) = record(&lazy);
    assert_eq!(count.load(Ordering::SeqCst), 3);
    feed.send_next(4);
    feed.send_completed();
    assert_eq!(ints(&replayed), vec![1, 2, 3, 4]);
    assert_eq!(ints(&last), vec![4]);
    assert_eq!(ints(&lazy), vec![4]);
    assert_eq!(rl.ints(), vec![4]);
}
