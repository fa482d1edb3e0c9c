use crate::error::Error;
use crate::signal::Signal;
use core::ffi::c_void;
use ripple_sys as sys;
use std::any::Any;
use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};

/// A value carried by a signal (`rpl_value`), copied into Rust.
///
/// Strings that are not valid UTF-8 (possible from C) are converted lossily. Equality
/// follows `rpl_value_equal`: contents for strings, bytes and tuples, `==` for doubles,
/// identity for pointers and signals; events compare by contents.
#[derive(Clone, Debug, Default)]
pub enum Value {
    #[default]
    Nil,
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<Value>),
    /// A user pointer with a destructor (`RPL_TYPE_POINTER`); see [`Value::pointer`].
    Pointer(Pointer),
    /// A signal, for `flatten` and `switch_to_latest`.
    Signal(Signal),
    /// A materialized event (`materialize` / `dematerialize`).
    Event(Box<Event>),
    /// A value of a type this binding does not know yet (the header may add types).
    Other(RawValue),
}

/// An event as a value (`RPL_TYPE_EVENT`).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    Next(Value),
    Error(Error),
    Completed,
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Nil, Nil) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Double(a), Double(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (Tuple(a), Tuple(b)) => a == b,
            (Pointer(a), Pointer(b)) => a.as_ptr() == b.as_ptr(),
            (Signal(a), Signal(b)) => a.as_ptr() == b.as_ptr(),
            (Event(a), Event(b)) => a == b,
            (Other(a), Other(b)) => unsafe { sys::rpl_value_equal(&a.0, &b.0) },
            _ => false,
        }
    }
}

/// One owned reference to a runtime value (`rpl_value_copy` / `rpl_value_release`).
pub struct RawValue(sys::rpl_value);

// Boxed payloads are reference counted atomically and immutable once made.
unsafe impl Send for RawValue {}
unsafe impl Sync for RawValue {}

impl RawValue {
    /// The value's `RPL_TYPE_*`.
    pub fn type_(&self) -> sys::rpl_type {
        self.0.type_
    }
    /// The value itself, borrowed.
    pub fn as_raw(&self) -> &sys::rpl_value {
        &self.0
    }
}

impl Clone for RawValue {
    fn clone(&self) -> Self {
        RawValue(unsafe { sys::rpl_value_copy(&self.0) })
    }
}

impl Drop for RawValue {
    fn drop(&mut self) {
        unsafe { sys::rpl_value_release(&mut self.0) }
    }
}

impl fmt::Debug for RawValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawValue(type {})", self.0.type_)
    }
}

/// A pointer value (`RPL_TYPE_POINTER`). Made from Rust with [`Value::pointer`], it
/// holds an `Arc` that [`Pointer::downcast`] gives back; made by C code, only its
/// address is known.
#[derive(Clone)]
pub struct Pointer(RawValue);

type AnyArc = Arc<dyn Any + Send + Sync>;

/// Addresses of the boxes made by [`Value::pointer`] that are still alive, so that
/// `downcast` never reads a pointer C code made.
static RUST_POINTERS: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

unsafe extern "C" fn drop_pointer(ptr: *mut c_void) {
    RUST_POINTERS.lock().unwrap_or_else(|e| e.into_inner()).remove(&(ptr as usize));
    crate::callback::release_ctx::<AnyArc>(ptr);
}

impl Pointer {
    /// The user pointer (for a pointer made by [`Value::pointer`], the binding's box).
    pub fn as_ptr(&self) -> *mut c_void {
        unsafe { sys::rpl_value_pointer(&self.0 .0) }
    }

    /// The `Arc` given to [`Value::pointer`], if this pointer was made that way and
    /// holds a `T`.
    pub fn downcast<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let p = self.as_ptr();
        if !RUST_POINTERS.lock().unwrap_or_else(|e| e.into_inner()).contains(&(p as usize)) {
            return None;
        }
        // We hold a reference to the value, so its destructor cannot run meanwhile.
        let arc: &AnyArc = unsafe { &*p.cast::<AnyArc>() };
        arc.clone().downcast::<T>().ok()
    }
}

impl fmt::Debug for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pointer({:p})", self.as_ptr())
    }
}

impl Value {
    /// A pointer value holding `value`; the `Arc` is dropped when the last reference to
    /// the runtime value goes, on whichever thread that happens.
    pub fn pointer<T: Any + Send + Sync>(value: Arc<T>) -> Value {
        let ctx = crate::callback::into_ctx::<AnyArc>(value);
        RUST_POINTERS.lock().unwrap_or_else(|e| e.into_inner()).insert(ctx as usize);
        Value::Pointer(Pointer(RawValue(unsafe { sys::rpl_pointer(ctx, Some(drop_pointer)) })))
    }

    /// Copies a borrowed runtime value into Rust.
    ///
    /// # Safety
    /// `v` points to a valid `rpl_value`.
    #[inline]
    pub unsafe fn from_raw(v: *const sys::rpl_value) -> Value {
        let r = &*v;
        // Scalars are read straight from the public struct, inline: no call per value.
        match r.type_ {
            sys::RPL_TYPE_NIL => Value::Nil,
            sys::RPL_TYPE_BOOL => Value::Bool(r.as_.b),
            sys::RPL_TYPE_INT => Value::Int(r.as_.i),
            sys::RPL_TYPE_DOUBLE => Value::Double(r.as_.d),
            _ => Value::from_raw_boxed(v),
        }
    }

    #[inline(never)]
    unsafe fn from_raw_boxed(v: *const sys::rpl_value) -> Value {
        match (*v).type_ {
            sys::RPL_TYPE_STRING => {
                let mut len = 0usize;
                let p = sys::rpl_value_string(v, &mut len);
                Value::Str(String::from_utf8_lossy(bytes(p.cast(), len)).into_owned())
            }
            sys::RPL_TYPE_BYTES => {
                let mut len = 0usize;
                let p = sys::rpl_value_bytes(v, &mut len);
                Value::Bytes(bytes(p.cast(), len).to_vec())
            }
            sys::RPL_TYPE_POINTER => Value::Pointer(Pointer(RawValue(sys::rpl_value_copy(v)))),
            sys::RPL_TYPE_TUPLE => {
                let n = sys::rpl_value_tuple_count(v);
                Value::Tuple((0..n).map(|i| Value::from_owned_raw(sys::rpl_value_tuple_at(v, i))).collect())
            }
            sys::RPL_TYPE_SIGNAL => match Signal::from_borrowed(sys::rpl_value_signal(v)) {
                Some(s) => Value::Signal(s),
                None => Value::Nil,
            },
            sys::RPL_TYPE_EVENT => Value::Event(Box::new(match sys::rpl_value_event_kind(v) as u32 {
                sys::RPL_EVENT_NEXT => Event::Next(Value::from_owned_raw(sys::rpl_value_event_value(v))),
                sys::RPL_EVENT_ERROR => Event::Error(Error::from_raw(sys::rpl_value_event_error(v))),
                _ => Event::Completed,
            })),
            _ => Value::Other(RawValue(sys::rpl_value_copy(v))),
        }
    }

    /// Copies an owned runtime value into Rust and releases it.
    pub(crate) unsafe fn from_owned_raw(mut v: sys::rpl_value) -> Value {
        let out = Value::from_raw(&v);
        sys::rpl_value_release(&mut v);
        out
    }

    /// The runtime value (+1: the caller owns it; C functions taking a value consume it).
    #[inline]
    pub fn into_raw(self) -> sys::rpl_value {
        match self {
            Value::Nil => scalar(sys::RPL_TYPE_NIL, sys::rpl_value_as { i: 0 }),
            Value::Int(i) => scalar(sys::RPL_TYPE_INT, sys::rpl_value_as { i }),
            Value::Double(d) => scalar(sys::RPL_TYPE_DOUBLE, sys::rpl_value_as { d }),
            boxed => boxed.into_raw_slow(),
        }
    }

    #[inline(never)]
    fn into_raw_slow(self) -> sys::rpl_value {
        unsafe {
            match self {
                Value::Nil => sys::rpl_nil(),
                Value::Bool(b) => sys::rpl_bool(b),
                Value::Int(i) => sys::rpl_int(i),
                Value::Double(d) => sys::rpl_double(d),
                Value::Str(s) => sys::rpl_string_n(s.as_ptr().cast(), s.len()),
                Value::Bytes(b) => sys::rpl_bytes(b.as_ptr().cast(), b.len()),
                Value::Tuple(items) => {
                    let mut raw: Vec<sys::rpl_value> = items.into_iter().map(Value::into_raw).collect();
                    sys::rpl_tuple(raw.as_mut_ptr(), raw.len())
                }
                Value::Pointer(p) => take_raw(p.0),
                Value::Signal(s) => sys::rpl_signal_value(s.as_ptr()),
                Value::Event(e) => match *e {
                    Event::Next(v) => sys::rpl_event_next(v.into_raw()),
                    Event::Error(e) => sys::rpl_event_error(e.to_handle().as_ptr()),
                    Event::Completed => sys::rpl_event_completed(),
                },
                Value::Other(r) => take_raw(r),
            }
        }
    }

    pub fn is_nil(&self) -> bool {
        matches!(self, Value::Nil)
    }
    pub fn as_bool(&self) -> Option<bool> {
        if let Value::Bool(b) = self { Some(*b) } else { None }
    }
    pub fn as_int(&self) -> Option<i64> {
        if let Value::Int(i) = self { Some(*i) } else { None }
    }
    pub fn as_f64(&self) -> Option<f64> {
        if let Value::Double(d) = self { Some(*d) } else { None }
    }
    pub fn as_str(&self) -> Option<&str> {
        if let Value::Str(s) = self { Some(s) } else { None }
    }
    pub fn as_bytes(&self) -> Option<&[u8]> {
        if let Value::Bytes(b) = self { Some(b) } else { None }
    }
    pub fn as_tuple(&self) -> Option<&[Value]> {
        if let Value::Tuple(t) = self { Some(t) } else { None }
    }
    pub fn as_signal(&self) -> Option<&Signal> {
        if let Value::Signal(s) = self { Some(s) } else { None }
    }
    pub fn as_event(&self) -> Option<&Event> {
        if let Value::Event(e) = self { Some(e) } else { None }
    }
}

/// Drops a value, skipping the out-of-line drop glue for scalars (which own nothing):
/// the per-event path of every callback ends here.
#[inline]
pub(crate) fn drop_value(v: Value) {
    if matches!(v, Value::Nil | Value::Bool(_) | Value::Int(_) | Value::Double(_)) {
        core::mem::forget(v);
    } else {
        drop(v);
    }
}

#[inline]
fn scalar(type_: sys::rpl_type, as_: sys::rpl_value_as) -> sys::rpl_value {
    sys::rpl_value { type_, reserved_: 0, as_ }
}

fn take_raw(r: RawValue) -> sys::rpl_value {
    let v = r.0;
    core::mem::forget(r);
    v
}

unsafe fn bytes<'a>(p: *const u8, len: usize) -> &'a [u8] {
    if p.is_null() || len == 0 { &[] } else { core::slice::from_raw_parts(p, len) }
}

impl From<()> for Value {
    fn from(_: ()) -> Value {
        Value::Nil
    }
}
impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}
impl From<i32> for Value {
    fn from(i: i32) -> Value {
        Value::Int(i.into())
    }
}
impl From<u32> for Value {
    fn from(i: u32) -> Value {
        Value::Int(i.into())
    }
}
impl From<f64> for Value {
    fn from(d: f64) -> Value {
        Value::Double(d)
    }
}
impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}
impl From<&[u8]> for Value {
    fn from(b: &[u8]) -> Value {
        Value::Bytes(b.to_vec())
    }
}
impl From<Vec<Value>> for Value {
    fn from(t: Vec<Value>) -> Value {
        Value::Tuple(t)
    }
}
impl From<Signal> for Value {
    fn from(s: Signal) -> Value {
        Value::Signal(s)
    }
}
impl From<Event> for Value {
    fn from(e: Event) -> Value {
        Value::Event(Box::new(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Other/RawValue exist for types a later header adds; exercise them with a value
    // this binding made itself.
    #[test]
    fn raw_values_copy_and_compare_through_the_runtime() {
        let raw = RawValue(Value::Str("boxed".into()).into_raw());
        assert_eq!(raw.type_(), sys::RPL_TYPE_STRING);
        let copy = raw.clone();
        assert_eq!(unsafe { Value::from_raw(copy.as_raw()) }, Value::from("boxed"));
        assert_eq!(Value::Other(raw), Value::Other(copy));
        assert!(format!("{:?}", Value::Other(RawValue(Value::Nil.into_raw()))).contains("RawValue"));
    }
}
