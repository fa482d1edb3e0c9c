// rpl_trace_write through the safe crate (its own test binary: the trace is
// process-wide).
use std::io::{Read, Seek};
use std::os::fd::AsFd;

#[test]
fn trace_write_writes_json_lines_and_reports_errors() {
    let subject = ripple::Subject::new();
    let signal = subject.signal();
    let mut file = tempfile();
    ripple::trace_write(Some(file.as_fd())).unwrap();
    let sub = signal.subscribe_next(|_| {});
    subject.send_next(41);
    sub.dispose();
    ripple::trace_write(None).unwrap();
    let mut text = String::new();
    file.rewind().unwrap();
    file.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("{\"ripple_trace\":1,"), "{text}");
    assert!(text.contains("\"kind\":\"next\","), "{text}");
    assert!(text.contains("\"signal\":\"+subject\",\"value\":\"41\"}"), "{text}");
    assert!(text.contains("\"kind\":\"dispose\""), "{text}");

    // A read-only descriptor is refused, with the runtime's message.
    let read_only = std::fs::File::open("/dev/null").unwrap();
    let err = ripple::trace_write(Some(read_only.as_fd())).unwrap_err();
    assert!(err.message().contains("not open for writing"), "{err}");
}

fn tempfile() -> std::fs::File {
    let path = std::env::temp_dir().join(format!("ripple-rust-trace-{}.jsonl", std::process::id()));
    let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    file
}
