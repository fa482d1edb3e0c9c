//! The operating system's event sources (`rpl_signal_fd_readable` ... `file_changes`):
//! descriptors, sockets, OS signals, child processes and file changes as signals.
//!
//! Events are delivered as work on the scheduler given: a run loop's, a serial or the
//! background scheduler (the immediate scheduler is refused). A descriptor argument is
//! anything with a raw descriptor (`&file`, `&socket`, `&fd`); it must stay open while a
//! subscription watches it (Ripple never closes it) and `read`, `read_lines`, `write` and
//! `accept` make it non-blocking. A failing system call is an error with domain
//! [`ERRNO_DOMAIN`] and code errno.
//!
//! # Panics
//! Each constructor panics on what the C call refuses (a negative or closed descriptor,
//! a zero `max_line` / `max_chunk`, `SIGKILL`, `SIGSTOP` or an out-of-range signal, a
//! pid <= 0, the immediate scheduler), like the other constructors.
use crate::scheduler::Scheduler;
use crate::signal::Signal;
use ripple_sys as sys;
use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The error domain of failing system calls (`RPL_ERROR_DOMAIN_ERRNO`).
pub const ERRNO_DOMAIN: &str = "errno";
/// `RPL_ERROR_LINE_TOO_LONG` (domain "ripple"): a line longer than `max_line`.
pub const LINE_TOO_LONG: i64 = sys::RPL_ERROR_LINE_TOO_LONG as i64;
/// Flags of [`Signal::file_changes`] (`RPL_FILE_*`).
pub const FILE_CREATED: i64 = sys::RPL_FILE_CREATED as i64;
pub const FILE_MODIFIED: i64 = sys::RPL_FILE_MODIFIED as i64;
pub const FILE_DELETED: i64 = sys::RPL_FILE_DELETED as i64;
pub const FILE_MOVED: i64 = sys::RPL_FILE_MOVED as i64;

impl Signal {
    /// The descriptor (an int) each time it is readable (level-triggered); never completes.
    pub fn fd_readable(fd: &impl AsRawFd, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_fd_readable(fd.as_raw_fd(), s.as_ptr()), "rpl_signal_fd_readable") }
    }

    /// The descriptor (an int) each time it is writable (level-triggered); never completes.
    pub fn fd_writable(fd: &impl AsRawFd, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_fd_writable(fd.as_raw_fd(), s.as_ptr()), "rpl_signal_fd_writable") }
    }

    /// The bytes read from `fd` in chunks of at most `max_chunk`; completes at end of input.
    pub fn read(fd: &impl AsRawFd, max_chunk: usize, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_read(fd.as_raw_fd(), max_chunk, s.as_ptr()), "rpl_signal_read") }
    }

    /// The lines read from `fd` (strings without `"\n"` / `"\r\n"`); an unterminated last
    /// line at end of input, then completes; a line longer than `max_line` bytes fails it
    /// ([`LINE_TOO_LONG`]).
    pub fn read_lines(fd: &impl AsRawFd, max_line: usize, s: &Scheduler) -> Signal {
        unsafe {
            Signal::from_owned(sys::rpl_signal_read_lines(fd.as_raw_fd(), max_line, s.as_ptr()), "rpl_signal_read_lines")
        }
    }

    /// Writes each string or bytes value of this signal to `fd` in order, sending each
    /// value's byte count once written; completes once this signal completed and
    /// everything is written.
    pub fn write(&self, fd: &impl AsRawFd, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_write(self.as_ptr(), fd.as_raw_fd(), s.as_ptr()), "rpl_signal_write") }
    }

    /// Each connection accepted on the listening socket, as its descriptor (an int,
    /// non-blocking, close-on-exec), owned by the receiver (`TcpStream::from_raw_fd`).
    pub fn accept(listener: &impl AsRawFd, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_accept(listener.as_raw_fd(), s.as_ptr()), "rpl_signal_accept") }
    }

    /// `signo` each time the process gets that signal while subscribed; the previous
    /// disposition is restored after the last subscription.
    pub fn os_signal(signo: i32, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_os_signal(signo, s.as_ptr()), "rpl_signal_os_signal") }
    }

    /// The child's raw wait status once it ends (it is reaped), then completes; `ECHILD`
    /// for a pid that is not a child of this process.
    pub fn child_exit(pid: u32, s: &Scheduler) -> Signal {
        unsafe { Signal::from_owned(sys::rpl_signal_child_exit(i64::from(pid), s.as_ptr()), "rpl_signal_child_exit") }
    }

    /// Changes under `path` as tuples (name, `FILE_*` flags); completes when `path`
    /// itself goes away.
    ///
    /// # Panics
    /// Also on a path holding a NUL byte.
    pub fn file_changes(path: impl AsRef<Path>, s: &Scheduler) -> Signal {
        let c = CString::new(path.as_ref().as_os_str().as_bytes()).expect("a path without NUL bytes");
        unsafe { Signal::from_owned(sys::rpl_signal_file_changes(c.as_ptr(), s.as_ptr()), "rpl_signal_file_changes") }
    }
}
