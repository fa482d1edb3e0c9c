//! The cost of an event through the Rust binding, next to a plain Rust closure loop
//! doing the same work. Build with --release:
//!     RIPPLE_LIB_DIR=<prefix>/lib LD_LIBRARY_PATH=<prefix>/lib cargo run --offline --release --example bench [N]
//! Rows are ns per source event, best of 5 runs, measured as the thread's CPU time
//! (CLOCK_THREAD_CPUTIME_ID) so that time the thread spends descheduled on a busy
//! machine does not count.
use ripple::{Subject, Value};
use std::hint::black_box;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

const RUNS: usize = 5;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}
const CLOCK_THREAD_CPUTIME_ID: i32 = 3; // Linux

fn cpu_ns() -> u64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    assert_eq!(unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) }, 0);
    ts.sec as u64 * 1_000_000_000 + ts.nsec as u64
}

fn best(n: i64, mut run: impl FnMut()) -> f64 {
    (0..RUNS)
        .map(|_| {
            let t = cpu_ns();
            run();
            (cpu_ns() - t) as f64 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn int(v: &Value) -> i64 {
    v.as_int().unwrap_or(0)
}

fn main() {
    let n: i64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let sink = Arc::new(AtomicI64::new(0));

    // Floor 1: a plain loop calling the subscriber closure directly.
    let s = sink.clone();
    let on_next = move |v: &Value| {
        s.fetch_add(int(v), Ordering::Relaxed);
    };
    let f: &dyn Fn(&Value) = &on_next;
    let plain_one = best(n, || {
        for i in 0..n {
            f(black_box(&Value::Int(i)));
        }
    });

    // Subject -> 1 subscriber.
    let subject = Subject::new();
    let s = sink.clone();
    let sub = subject.subscribe_next(move |v| {
        s.fetch_add(int(v), Ordering::Relaxed);
    });
    let ripple_one = best(n, || {
        for i in 0..n {
            subject.send_next(black_box(i));
        }
    });
    sub.dispose();

    // Floor 2: the same map / filter / scan closures, called in a plain loop.
    let map = |v: &Value| Value::Int(int(v) * 3);
    let filter = |v: &Value| int(v) % 2 == 0;
    let scan = |acc: &Value, v: &Value| Value::Int(int(acc) + int(v));
    let s = sink.clone();
    let plain_chain = best(n, || {
        let mut acc = Value::Int(0);
        for i in 0..n {
            let m = map(black_box(&Value::Int(i)));
            if filter(&m) {
                acc = scan(&acc, &m);
                s.fetch_add(int(&acc), Ordering::Relaxed);
            }
        }
    });

    // Subject -> map -> filter -> scan -> subscriber.
    let s = sink.clone();
    let sub = subject.map(map).filter(filter).scan(0, scan).subscribe_next(move |v| {
        s.fetch_add(int(v), Ordering::Relaxed);
    });
    let ripple_chain = best(n, || {
        for i in 0..n {
            subject.send_next(black_box(i));
        }
    });
    sub.dispose();
    black_box(sink.load(Ordering::Relaxed));

    println!("ripple Rust binding, {n} events, best of {RUNS}, thread CPU ns per source event");
    println!("| path | plain Rust loop | ripple | ratio |");
    println!("|---|---|---|---|");
    println!("| subject -> 1 subscriber | {plain_one:.1} | {ripple_one:.1} | {:.1}x |", ripple_one / plain_one);
    println!("| subject -> map, filter, scan -> subscriber | {plain_chain:.1} | {ripple_chain:.1} | {:.1}x |", ripple_chain / plain_chain);
}
