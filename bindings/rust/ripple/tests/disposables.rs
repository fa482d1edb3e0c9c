use ripple::{CompoundDisposable, Disposable, SerialDisposable};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn counting(n: &Arc<AtomicUsize>) -> Disposable {
    let n = n.clone();
    Disposable::new(move || {
        n.fetch_add(1, Ordering::SeqCst);
    })
}

#[test]
fn an_empty_disposable_records_being_disposed() {
    let d = Disposable::empty();
    assert!(!d.is_disposed());
    d.dispose();
    assert!(d.is_disposed());
}

#[test]
fn a_compound_disposable_disposes_what_it_holds() {
    let n = Arc::new(AtomicUsize::new(0));
    let c = CompoundDisposable::new();
    let (a, b, kept) = (counting(&n), counting(&n), counting(&n));
    c.add(&a).unwrap();
    c.add(&b).unwrap();
    c.add(&kept).unwrap();
    c.remove(&kept).unwrap();
    c.dispose();
    assert!(a.is_disposed() && b.is_disposed() && !kept.is_disposed());
    assert_eq!(n.load(Ordering::SeqCst), 2);
    let late = counting(&n);
    c.add(&late).unwrap();
    assert!(late.is_disposed(), "added to a disposed compound");
    assert_eq!(n.load(Ordering::SeqCst), 3);
}

#[test]
fn a_serial_disposable_swaps() {
    let n = Arc::new(AtomicUsize::new(0));
    let s = SerialDisposable::new();
    let (a, b) = (counting(&n), counting(&n));
    assert!(s.swap(Some(&a)).is_none());
    let old = s.swap(Some(&b)).expect("a");
    assert_eq!(old.as_ptr(), a.as_ptr());
    assert!(!a.is_disposed(), "the previous one is not disposed");
    s.dispose();
    assert!(b.is_disposed());
    let c = counting(&n);
    assert!(s.swap(Some(&c)).is_none());
    assert!(c.is_disposed(), "set into a disposed serial");
    let fresh = SerialDisposable::new();
    let d = counting(&n);
    fresh.swap(Some(&d));
    let out = fresh.swap(None).expect("d");
    assert_eq!(out.as_ptr(), d.as_ptr());
    fresh.dispose();
    assert!(!d.is_disposed(), "cleared before the dispose");
    assert_eq!(n.load(Ordering::SeqCst), 2);
}
