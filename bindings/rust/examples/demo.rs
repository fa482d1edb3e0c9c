//! A tour of the Rust binding (run by `make demo`):
//!     RIPPLE_LIB_DIR=<prefix>/lib LD_LIBRARY_PATH=<prefix>/lib cargo run --offline --example demo
use ripple::{Error, Scheduler, Signal, Subject, TestScheduler, Value};
use std::time::Duration;

fn main() -> Result<(), Error> {
    println!("ripple {} (Rust binding)", ripple::version_string());

    // 1. A subject, an operator chain and a subscription.
    let prices = Subject::new();
    let sub = prices
        .signal()
        .filter(|v| v.as_f64().is_some_and(|p| p > 0.0))
        .map(|v| Value::Str(format!("{:.2} EUR", v.as_f64().unwrap())))
        .subscribe_next(|v| println!("  price: {}", v.as_str().unwrap()));
    for p in [9.5, -1.0, 12.25] {
        prices.send_next(p);
    }
    sub.dispose();
    prices.send_next(99.0); // nobody listens any more

    // 2. A cold signal whose producer runs on its own thread; collected with a timeout.
    let counter = Signal::create(|s| {
        std::thread::spawn(move || {
            let mut i = 0;
            while !s.is_disposed() {
                s.send_next(i);
                i += 1;
            }
        });
        None
    });
    let firsts = counter.take(5).scan(0, |acc, v| Value::Int(acc.as_int().unwrap() + v.as_int().unwrap()));
    println!("  running sums of 0..5 from a thread: {:?}", firsts.to_vec(Duration::from_secs(5))?);

    // 3. combine_latest of two behavior subjects.
    let (width, height) = (Subject::behavior(2), Subject::behavior(3));
    let area = Signal::combine_latest(&[width.signal(), height.signal()]).map(|t| {
        let t = t.as_tuple().unwrap();
        Value::Int(t[0].as_int().unwrap() * t[1].as_int().unwrap())
    });
    let area_sub = area.subscribe_next(|v| println!("  area = {}", v.as_int().unwrap()));
    width.send_next(4);
    height.send_next(10);
    area_sub.dispose();

    // 4. Errors: retry, then recover.
    let flaky = Signal::error(Error::new("net", 503, "service unavailable"));
    let recovered = flaky.retry(2).catch(|e| Signal::return_(format!("fallback after: {e}")));
    println!("  {}", recovered.first(Duration::from_secs(1))?.as_str().unwrap());

    // 5. Virtual time: throttle (debounce) keystrokes without sleeping.
    let clock = TestScheduler::new();
    let keys = Subject::new();
    let search = keys.throttle(Duration::from_millis(300), &clock).subscribe_next(|v| {
        println!("  search for {:?}", v.as_str().unwrap());
    });
    for (text, gap_ms) in [("r", 100), ("ri", 100), ("rip", 400), ("ripple", 400)] {
        keys.send_next(text);
        clock.advance_by(Duration::from_millis(gap_ms));
    }
    search.dispose();

    // 6. Iterate over values delivered on the background pool.
    let ticks = Subject::new();
    let it = ticks.deliver_on(&Scheduler::background()).iter(Duration::from_secs(5));
    let sender = std::thread::spawn(move || {
        for i in 1..=3 {
            ticks.send_next(i * 100);
        }
        ticks.send_completed();
    });
    let got: Result<Vec<Value>, Error> = it.collect();
    sender.join().unwrap();
    println!("  iterated: {:?}", got?);
    Ok(())
}
