//! The OS sources from Rust: lines from a socket, write, accept over TCP, a child's
//! exit, an OS signal, file changes, the errno domain and refused arguments.
mod common;
use common::*;
use ripple::os::{ERRNO_DOMAIN, FILE_CREATED, LINE_TOO_LONG};
use ripple::{Scheduler, Signal, Subject, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;

#[test]
fn read_lines_from_a_socket() {
    let (a, mut b) = UnixStream::pair().unwrap();
    b.write_all(b"one\ntwo\r\nlast").unwrap();
    drop(b);
    let got = Signal::read_lines(&a, 100, &Scheduler::background()).to_vec(SECOND).unwrap();
    assert_eq!(got, vec![Value::Str("one".into()), Value::Str("two".into()), Value::Str("last".into())]);
}

#[test]
fn a_long_line_fails_with_its_code() {
    let (a, mut b) = UnixStream::pair().unwrap();
    b.write_all(b"0123456789").unwrap();
    let e = Signal::read_lines(&a, 4, &Scheduler::background()).first(SECOND).unwrap_err();
    assert_eq!(e.code(), LINE_TOO_LONG);
}

#[test]
fn write_sends_byte_counts_and_accept_gives_descriptors() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = mpsc::channel();
    let accepting = Signal::accept(&listener, &Scheduler::background()).subscribe_next(move |v| {
        let _ = tx.send(v.as_int().unwrap());
    });
    let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let fd = rx.recv_timeout(SECOND).unwrap() as i32;
    let out = Subject::new();
    let counts = out.signal().write(&fd, &Scheduler::background());
    let (ctx, crx) = mpsc::channel();
    let writing = counts.subscribe_next(move |v| {
        let _ = ctx.send(v.as_int().unwrap());
    });
    out.send_next("hello");
    assert_eq!(crx.recv_timeout(SECOND).unwrap(), 5);
    let mut buf = [0u8; 5];
    client.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"hello");
    writing.dispose();
    accepting.dispose();
    unsafe { drop(<TcpStream as std::os::fd::FromRawFd>::from_raw_fd(fd)) };
}

#[test]
fn child_exit_status_and_echild() {
    let child = std::process::Command::new("/bin/sh").args(["-c", "exit 3"]).spawn().unwrap();
    let status = Signal::child_exit(child.id(), &Scheduler::background()).first(SECOND).unwrap();
    assert_eq!((status.as_int().unwrap() >> 8) & 0xff, 3); // WEXITSTATUS
    let e = Signal::child_exit(1, &Scheduler::background()).first(SECOND).unwrap_err();
    assert_eq!((e.domain(), e.code()), (ERRNO_DOMAIN, 10)); // ECHILD
}

#[test]
fn file_changes_names_a_created_file() {
    let dir = std::env::temp_dir().join(format!("ripple-rs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (tx, rx) = mpsc::channel();
    let d = Signal::file_changes(&dir, &Scheduler::background()).subscribe_next(move |v| {
        let _ = tx.send(v.clone());
    });
    std::fs::write(dir.join("new.txt"), b"").unwrap();
    let got = rx.recv_timeout(SECOND).unwrap();
    assert_eq!(got, Value::Tuple(vec![Value::Str("new.txt".into()), Value::Int(FILE_CREATED)]));
    d.dispose();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[should_panic(expected = "rpl_signal_read_lines")]
fn a_closed_descriptor_is_refused() {
    let _ = Signal::read_lines(&-1, 10, &Scheduler::background());
}

#[test]
#[should_panic(expected = "rpl_signal_os_signal")]
fn sigkill_is_refused() {
    let _ = Signal::os_signal(9, &Scheduler::background());
}
