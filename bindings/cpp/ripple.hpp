// ripple.hpp - header-only C++17 binding over the Ripple C API (ripple.h).
//
// RAII handles (copy = rpl_retain, destroy = rpl_release, move = steal),
// lambdas as callbacks, a Value type over rpl_value, exceptions for failed C
// calls, and every operator as a method:
//
//     auto d = ripple::Signal::of({1, 2, 3})
//                  .map([](int64_t x) { return x * 10; })
//                  .filter([](int64_t x) { return x > 10; })
//                  .subscribe([](int64_t x) { std::cout << x << "\n"; });
//
// ripple::Observable<T> (at the end of this file) is the typed layer over
// Signal: the value type is part of the C++ type, so a lambda that cannot
// take it does not compile.
//
// Lambdas are moved into a heap context that the runtime frees through the C
// `release` callback, so whatever a lambda captures lives exactly as long as
// the runtime needs it (the operator signal, or the subscription).
//
// Exceptions never cross into C. A lambda that throws is caught at the C
// trampoline and the exception is routed
//   - for every operator callback (map, filter, scan, aggregate, take_while,
//     skip_while, do_*, bind, flatten_map, catch_, and the 0.2 ones):
//     through rpl_callback_fail, so the operator fails with the exception's
//     error, which reaches on_error, and upstream is disposed (ripple.h,
//     semantics rule 24); a type mismatch in a typed lambda is such an
//     exception, so it is an error too, never a nil that flows on;
//   - for the subscribe lambda of Signal::create (and start_eagerly /
//     start_lazily): sent to its subscriber as an error; for the factory of
//     Signal::defer: that subscription fails with it;
//   - otherwise (observers, scheduled work, Disposable::create, the trace
//     hook), to the exception handler (set_exception_handler), which by
//     default prints the exception to stderr.
// An exception becomes an error with domain kExceptionDomain ("ripple.cpp")
// and code RPL_ERROR_CALLBACK, message what(); a thrown ripple::Error that
// carries a SignalError is sent as that error.
//
// Threading: every function may be called from any thread, and callbacks run
// on the thread that sends the event (see ripple.h). Callbacks of one
// subscription never overlap, but an operator's lambda is shared by every
// subscription to that operator signal, so it may run on several threads at
// once when several subscriptions are active: guard mutable captures. Handle
// and Value objects are like std::shared_ptr: distinct copies may be used on
// different threads; one object must not be assigned while another thread
// reads it.
#ifndef RIPPLE_HPP
#define RIPPLE_HPP

#include <ripple.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__GNUC__) || defined(__clang__)
#define RIPPLE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RIPPLE_COLD __attribute__((cold, noinline))
#define RIPPLE_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define RIPPLE_UNLIKELY(x) (x)
#define RIPPLE_COLD
#define RIPPLE_ALWAYS_INLINE inline
#endif

namespace ripple {

class Value;
class Signal;
class SignalError;
class Subject;
class Connection;
class Scheduler;

/// The loaded library's version (RPL_VERSION_NUMBER form) and string.
inline unsigned version() noexcept { return rpl_version(); }
inline const char *version_string() noexcept { return rpl_version_string(); }
/// True when the loaded library has the major version this header was built for.
inline bool version_compatible() noexcept { return rpl_version() / 10000 == RPL_VERSION_MAJOR; }

/// Domain of errors made from C++ exceptions thrown by callbacks.
inline constexpr const char *kExceptionDomain = "ripple.cpp";

/// Timeouts and intervals. `forever` maps to RPL_FOREVER.
using Duration = std::chrono::nanoseconds;
inline constexpr Duration forever = Duration::max();
/// Count meaning "without limit" for retry and repeat (RPL_FOREVER_COUNT).
inline constexpr size_t forever_count = static_cast<size_t>(-1);

/// What deliver_on_bounded does with a value sent into a full queue
/// (rpl_overflow): wait for room, drop it, drop the oldest waiting one, or
/// fail the signal with RPL_ERROR_OVERFLOW.
enum class Overflow {
    block = RPL_OVERFLOW_BLOCK,
    drop_newest = RPL_OVERFLOW_DROP_NEWEST,
    drop_oldest = RPL_OVERFLOW_DROP_OLDEST,
    fail = RPL_OVERFLOW_FAIL
};

namespace detail {
inline uint64_t to_ns(Duration d) {
    if (d == forever) return RPL_FOREVER;
    return d.count() < 0 ? 0 : static_cast<uint64_t>(d.count());
}

/// RAII over one reference of an rpl handle. Copy retains, destroy releases.
template <class T>
class Handle {
  public:
    Handle() noexcept = default;
    Handle(const Handle &o) noexcept : h_(o.h_) { rpl_retain(h_); }
    Handle(Handle &&o) noexcept : h_(o.h_) { o.h_ = nullptr; }
    Handle &operator=(const Handle &o) noexcept {
        if (this != &o) { rpl_retain(o.h_); reset(o.h_); }
        return *this;
    }
    Handle &operator=(Handle &&o) noexcept {
        if (this != &o) { reset(o.h_); o.h_ = nullptr; }
        return *this;
    }
    ~Handle() { rpl_release(h_); }

    /// The raw handle, borrowed.
    T *get() const noexcept { return h_; }
    /// Gives up this reference (+1 to the caller).
    T *release() noexcept { T *h = h_; h_ = nullptr; return h; }
    explicit operator bool() const noexcept { return h_ != nullptr; }
    friend bool operator==(const Handle &a, const Handle &b) noexcept { return a.h_ == b.h_; }
    friend bool operator!=(const Handle &a, const Handle &b) noexcept { return a.h_ != b.h_; }

  protected:
    explicit Handle(T *adopted) noexcept : h_(adopted) {}
    void reset(T *adopted) noexcept { T *old = h_; h_ = adopted; rpl_release(old); }
    T *h_ = nullptr;
};

// Call-signature introspection, so lambdas may take typed arguments.
template <class F>
struct fn_traits : fn_traits<decltype(&F::operator())> {};
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) const> { using args = std::tuple<A...>; };
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...)> { using args = std::tuple<A...>; };
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) const noexcept> { using args = std::tuple<A...>; };
template <class C, class R, class... A>
struct fn_traits<R (C::*)(A...) noexcept> { using args = std::tuple<A...>; };
template <class R, class... A>
struct fn_traits<R (*)(A...)> { using args = std::tuple<A...>; };
template <class R, class... A>
struct fn_traits<R (*)(A...) noexcept> { using args = std::tuple<A...>; };
template <class F, size_t I>
using arg_t = std::decay_t<std::tuple_element_t<I, typename fn_traits<std::decay_t<F>>::args>>;

/// A heap context holding one callable; `release` is the C release function.
template <class F>
struct Box {
    F f;
    static void release(void *p) { delete static_cast<Box *>(p); }
};
template <class F>
Box<std::decay_t<F>> *box(F &&f) { return new Box<std::decay_t<F>>{std::forward<F>(f)}; }
template <class F>
F &unbox(void *ctx) { return static_cast<Box<F> *>(ctx)->f; }
}  // namespace detail

// ===========================================================================
// Exception handling at the C boundary
// ===========================================================================

/// Receives exceptions thrown by callbacks that have no error path. `where`
/// names the callback ("map", "on_next", ...). It must not throw (if it does,
/// that exception is swallowed).
using ExceptionHandler = void (*)(std::exception_ptr, const char *where);

namespace detail {
inline void default_exception_handler(std::exception_ptr e, const char *where) {
    try {
        std::rethrow_exception(e);
    } catch (const std::exception &x) {
        std::fprintf(stderr, "ripple: exception in %s callback: %s\n", where, x.what());
    } catch (...) {
        std::fprintf(stderr, "ripple: unknown exception in %s callback\n", where);
    }
}
inline std::atomic<ExceptionHandler> &handler_slot() {
    static std::atomic<ExceptionHandler> slot{&default_exception_handler};
    return slot;
}
inline void report(std::exception_ptr e, const char *where) noexcept {
    try {
        handler_slot().load(std::memory_order_acquire)(e, where);
    } catch (...) {
    }
}
RIPPLE_COLD inline void report_current(const char *where) noexcept { report(std::current_exception(), where); }
}  // namespace detail

/// Installs h (nullptr restores the default, which prints to stderr) and
/// returns the previous handler. Thread-safe.
inline ExceptionHandler set_exception_handler(ExceptionHandler h) noexcept {
    return detail::handler_slot().exchange(h ? h : &detail::default_exception_handler);
}

// ===========================================================================
// Errors
// ===========================================================================

/// An error carried by a signal (rpl_error_t): domain, code and message.
class SignalError : public detail::Handle<rpl_error_t> {
  public:
    SignalError() noexcept = default;
    /// Creates an error; an empty domain means RPL_ERROR_DOMAIN ("ripple").
    SignalError(std::string_view domain, int64_t code, std::string_view message)
        : Handle(rpl_error_create(domain.empty() ? nullptr : std::string(domain).c_str(), code,
                                  std::string(message).c_str())) {
        if (!h_) throw std::bad_alloc();
    }
    static SignalError adopt(rpl_error_t *e) noexcept { return SignalError(e); }
    static SignalError borrow(const rpl_error_t *e) noexcept {
        return SignalError(static_cast<rpl_error_t *>(rpl_retain(const_cast<rpl_error_t *>(e))));
    }
    std::string domain() const { const char *s = rpl_error_domain(h_); return s ? s : ""; }
    int64_t code() const noexcept { return rpl_error_code(h_); }
    std::string message() const { const char *s = rpl_error_message(h_); return s ? s : ""; }
    /// Same domain and code (rpl_error_equal).
    bool same_as(const SignalError &o) const noexcept { return rpl_error_equal(h_, o.h_); }

  private:
    explicit SignalError(rpl_error_t *e) noexcept : Handle(e) {}
};

/// Thrown when a C call fails: the rpl_status and its message. When a signal
/// terminated with an error (status RPL_ERR_FAILED, from the blocking
/// helpers), signal_error() holds that error. Throwing an Error that has a
/// signal_error() from a callback sends that error downstream.
class Error : public std::runtime_error {
  public:
    Error(rpl_status status, const std::string &message, SignalError err = {})
        : std::runtime_error(message), status_(status), err_(std::move(err)) {}
    /// An RPL_ERR_FAILED error carrying a signal error, to throw from callbacks.
    explicit Error(SignalError err)
        : std::runtime_error(err ? err.domain() + " " + std::to_string(err.code()) + ": " + err.message()
                                 : std::string("signal error")),
          status_(RPL_ERR_FAILED), err_(std::move(err)) {}
    rpl_status status() const noexcept { return status_; }
    const SignalError &signal_error() const noexcept { return err_; }

    /// The error of the last failed call on this thread.
    static Error last() {
        rpl_status st = rpl_last_error();
        std::string msg = rpl_last_error_message();
        SignalError se;
        if (st == RPL_ERR_FAILED)
            if (rpl_error_t *e = rpl_last_signal_error()) se = SignalError::borrow(e);
        if (msg.empty()) msg = rpl_status_string(st);
        return Error(st, msg, std::move(se));
    }

  private:
    rpl_status status_;
    SignalError err_;
};

namespace detail {
/// Throws Error::last(), out of line so that the checks stay small enough to
/// inline into every send and operator call.
[[noreturn]] RIPPLE_COLD inline void throw_last() { throw Error::last(); }
inline void check(rpl_status st) {
    if (RIPPLE_UNLIKELY(st != RPL_OK)) throw_last();
}
template <class T>
T *check(T *h) {
    if (RIPPLE_UNLIKELY(!h)) throw_last();
    return h;
}
/// Calls c_fn(args..., trampoline, ctx, release) with f moved into a heap Box
/// that release frees: the (fn, ctx, release) tail every C callback takes.
/// A NULL result throws Error::last() (the runtime has released the Box).
template <class F, class CFn, class Tr, class... A>
auto call_boxed(CFn c_fn, Tr trampoline, F &&f, A... args) {
    return check(c_fn(args..., trampoline, box(std::forward<F>(f)), &Box<std::decay_t<F>>::release));
}
/// The error to send downstream for a caught exception (+1).
inline rpl_error_t *error_from(std::exception_ptr ep) noexcept {
    try {
        std::rethrow_exception(ep);
    } catch (const Error &e) {
        if (e.signal_error()) return static_cast<rpl_error_t *>(rpl_retain(e.signal_error().get()));
        return rpl_error_create(kExceptionDomain, RPL_ERROR_CALLBACK, e.what());
    } catch (const std::exception &e) {
        return rpl_error_create(kExceptionDomain, RPL_ERROR_CALLBACK, e.what());
    } catch (...) {
        return rpl_error_create(kExceptionDomain, RPL_ERROR_CALLBACK, "unknown C++ exception");
    }
}
}  // namespace detail

// ===========================================================================
// Values
// ===========================================================================

template <class T>
struct Convert;  // Convert<T>::to(const Value&) -> T, specialised below.

/// An owned rpl_value. Copy adds a reference to a boxed payload; destroy
/// drops it. Standard layout with one rpl_value member, so a borrowed
/// `const rpl_value *` is viewed as a `const Value &` at no cost.
class Value {
  public:
    Value() noexcept : v_(scalar(RPL_TYPE_NIL)) {}
    Value(std::nullptr_t) noexcept : v_(scalar(RPL_TYPE_NIL)) {}
    /// Exactly a bool (or a std::vector<bool> element): a pointer, which C++
    /// converts to bool, does not compile instead of becoming `true`; use
    /// Value::pointer for pointers.
    template <class B, std::enable_if_t<std::is_same_v<B, bool> || std::is_same_v<B, std::vector<bool>::reference>,
                                        int> = 0>
    Value(B b) noexcept : v_(scalar(RPL_TYPE_BOOL)) { v_.as.b = static_cast<bool>(b); }
    template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
    Value(T i) noexcept : v_(scalar(RPL_TYPE_INT)) { v_.as.i = static_cast<int64_t>(i); }
    template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
    Value(T d) noexcept : v_(scalar(RPL_TYPE_DOUBLE)) { v_.as.d = static_cast<double>(d); }
    Value(const char *s) noexcept : v_(rpl_string(s)) {}
    Value(std::string_view s) noexcept : v_(rpl_string_n(s.data(), s.size())) {}
    Value(const std::string &s) noexcept : v_(rpl_string_n(s.data(), s.size())) {}
    /// A tuple.
    Value(std::vector<Value> items) noexcept : v_(make_tuple(items)) {}
    template <class T, std::enable_if_t<!std::is_same_v<T, Value>, int> = 0>
    Value(const std::vector<T> &items) : v_(scalar(RPL_TYPE_NIL)) {
        std::vector<Value> vs(items.begin(), items.end());
        v_ = make_tuple(vs);
    }
    template <class... T>
    Value(const std::tuple<T...> &t) : v_(scalar(RPL_TYPE_NIL)) {
        std::vector<Value> vs;
        vs.reserve(sizeof...(T));
        std::apply([&](const auto &...x) { (vs.emplace_back(x), ...); }, t);
        v_ = make_tuple(vs);
    }
    /// A signal value (for flatten / switch_to_latest).
    inline Value(const Signal &s);

    static Value tuple(std::vector<Value> items) noexcept { return Value(std::move(items)); }
    static Value bytes(const void *data, size_t len) noexcept { return adopt(rpl_bytes(data, len)); }
    /// A user pointer; dtor(ptr) runs when the last reference drops.
    static Value pointer(void *p, rpl_release_fn dtor = nullptr) noexcept { return adopt(rpl_pointer(p, dtor)); }
    /// Materialized events.
    static Value event_next(Value v) noexcept { return adopt(rpl_event_next(v.release())); }
    static Value event_error(const SignalError &e) noexcept { return adopt(rpl_event_error(e.get())); }
    static Value event_completed() noexcept { return adopt(rpl_event_completed()); }

    /// Takes ownership of v.
    static Value adopt(rpl_value v) noexcept { Value r; r.v_ = v; return r; }
    /// A new reference to a borrowed value.
    static Value copy(const rpl_value *v) noexcept { return adopt(rpl_value_copy(v)); }
    /// Views a borrowed value without copying it.
    static const Value &view(const rpl_value *v) noexcept { return *reinterpret_cast<const Value *>(v); }

    Value(const Value &o) noexcept : v_(o.boxed() ? rpl_value_copy(&o.v_) : o.v_) {}
    Value(Value &&o) noexcept : v_(o.v_) { o.v_ = scalar(RPL_TYPE_NIL); }
    Value &operator=(const Value &o) noexcept {
        if (this != &o) { rpl_value n = o.boxed() ? rpl_value_copy(&o.v_) : o.v_; drop(); v_ = n; }
        return *this;
    }
    Value &operator=(Value &&o) noexcept {
        if (this != &o) { drop(); v_ = o.v_; o.v_ = scalar(RPL_TYPE_NIL); }
        return *this;
    }
    ~Value() { drop(); }

    /// The raw value, borrowed.
    const rpl_value *c() const noexcept { return &v_; }
    /// Gives up ownership (the value is consumed by whoever takes it).
    rpl_value release() noexcept { rpl_value v = v_; v_ = scalar(RPL_TYPE_NIL); return v; }

    rpl_type type() const noexcept { return static_cast<rpl_type>(v_.type); }
    bool is_nil() const noexcept { return type() == RPL_TYPE_NIL; }
    bool is_bool() const noexcept { return type() == RPL_TYPE_BOOL; }
    bool is_int() const noexcept { return type() == RPL_TYPE_INT; }
    bool is_double() const noexcept { return type() == RPL_TYPE_DOUBLE; }
    bool is_string() const noexcept { return type() == RPL_TYPE_STRING; }
    bool is_tuple() const noexcept { return type() == RPL_TYPE_TUPLE; }

    /// Strict accessors: the wrong type throws Error(RPL_ERR_KIND). as_double
    /// also accepts an int.
    int64_t as_int() const { expect(RPL_TYPE_INT, "an int"); return v_.as.i; }
    bool as_bool() const { expect(RPL_TYPE_BOOL, "a bool"); return v_.as.b; }
    double as_double() const {
        if (is_int()) return static_cast<double>(v_.as.i);
        expect(RPL_TYPE_DOUBLE, "a double");
        return v_.as.d;
    }
    /// Borrowed from this value.
    std::string_view as_string_view() const {
        expect(RPL_TYPE_STRING, "a string");
        size_t n = 0;
        const char *s = rpl_value_string(&v_, &n);
        return std::string_view(s ? s : "", n);
    }
    std::string as_string() const { return std::string(as_string_view()); }
    std::vector<unsigned char> as_bytes() const {
        expect(RPL_TYPE_BYTES, "bytes");
        size_t n = 0;
        auto p = static_cast<const unsigned char *>(rpl_value_bytes(&v_, &n));
        return std::vector<unsigned char>(p, p + n);
    }
    void *as_pointer() const { expect(RPL_TYPE_POINTER, "a pointer"); return rpl_value_pointer(&v_); }
    inline Signal as_signal() const;

    /// Tuple access.
    size_t size() const noexcept { return rpl_value_tuple_count(&v_); }
    Value operator[](size_t i) const {
        expect(RPL_TYPE_TUPLE, "a tuple");
        if (i >= size()) throw Error(RPL_ERR_INVALID, "ripple::Value: tuple index out of range");
        return adopt(rpl_value_tuple_at(&v_, i));
    }
    std::vector<Value> items() const {
        expect(RPL_TYPE_TUPLE, "a tuple");
        std::vector<Value> r;
        size_t n = size();
        r.reserve(n);
        for (size_t i = 0; i < n; i++) r.push_back(adopt(rpl_value_tuple_at(&v_, i)));
        return r;
    }

    /// Materialized event access.
    bool is_event() const noexcept { return type() == RPL_TYPE_EVENT; }
    rpl_event_kind event_kind() const {
        expect(RPL_TYPE_EVENT, "an event");
        return static_cast<rpl_event_kind>(rpl_value_event_kind(&v_));
    }
    Value event_value() const { expect(RPL_TYPE_EVENT, "an event"); return adopt(rpl_value_event_value(&v_)); }
    SignalError event_error() const {
        expect(RPL_TYPE_EVENT, "an event");
        rpl_error_t *e = rpl_value_event_error(&v_);
        return e ? SignalError::borrow(e) : SignalError();
    }

    /// Converts to T: integers, double, bool, std::string, std::string_view,
    /// Value, Signal, std::vector<T>, std::tuple<T...>.
    template <class T>
    T as() const { return Convert<T>::to(*this); }

    /// Structural equality (rpl_value_equal).
    friend bool operator==(const Value &a, const Value &b) noexcept { return rpl_value_equal(&a.v_, &b.v_); }
    friend bool operator!=(const Value &a, const Value &b) noexcept { return !(a == b); }

    /// A short human-readable form, for printing and test messages.
    std::string to_string() const {
        switch (type()) {
        case RPL_TYPE_NIL: return "nil";
        case RPL_TYPE_BOOL: return rpl_value_bool(&v_) ? "true" : "false";
        case RPL_TYPE_INT: return std::to_string(rpl_value_int(&v_));
        case RPL_TYPE_DOUBLE: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", rpl_value_double(&v_));
            return buf;
        }
        case RPL_TYPE_STRING: return "\"" + as_string() + "\"";
        case RPL_TYPE_BYTES: return "<" + std::to_string(as_bytes().size()) + " bytes>";
        case RPL_TYPE_POINTER: return "<pointer>";
        case RPL_TYPE_TUPLE: {
            std::string s = "(";
            size_t n = size();
            for (size_t i = 0; i < n; i++) s += (i ? ", " : "") + (*this)[i].to_string();
            return s + ")";
        }
        case RPL_TYPE_SIGNAL: return "<signal>";
        case RPL_TYPE_EVENT: {
            switch (event_kind()) {
            case RPL_EVENT_NEXT: return "next(" + event_value().to_string() + ")";
            case RPL_EVENT_ERROR: return "error(" + event_error().message() + ")";
            default: return "completed";
            }
        }
        }
        return "<?>";
    }

  private:
    // Scalars are built, read and dropped inline: their layout is part of the
    // ABI (the struct is public so it can live on the stack) and scalars need
    // no release. Boxed payloads always go through the library.
    // Field by field, not memset: g++ turns a memset plus a field store into
    // two overlapping stack stores read back as one register (a store-forwarding
    // stall, ~10 ns per value); this form stays in registers with g++ and clang++.
    static rpl_value scalar(rpl_type t) noexcept {
        rpl_value v;
        v.type = static_cast<uint32_t>(t);
        v.reserved_ = 0;
        v.as.i = 0;
        return v;
    }
    bool boxed() const noexcept { return v_.type >= RPL_TYPE_STRING; }
    void drop() noexcept {
        if (boxed()) rpl_value_release(&v_);
    }
    static rpl_value make_tuple(std::vector<Value> &items) noexcept {
        // rpl_tuple consumes the items: hand over our references.
        std::vector<rpl_value> raw;
        raw.reserve(items.size());
        for (auto &v : items) raw.push_back(v.release());
        return rpl_tuple(raw.data(), raw.size());
    }
    // The check inlines into every typed read; the throw stays out of line so
    // the compilers keep the check inline (clang++ otherwise calls expect per value).
    void expect(rpl_type t, const char *what) const {
        if (RIPPLE_UNLIKELY(type() != t)) mismatch(what);
    }
    [[noreturn]] RIPPLE_COLD void mismatch(const char *what) const {
        throw Error(RPL_ERR_KIND, std::string("ripple::Value: expected ") + what + ", got " + to_string());
    }
    rpl_value v_;
};
static_assert(std::is_standard_layout_v<Value> && sizeof(Value) == sizeof(rpl_value),
              "Value must be layout-compatible with rpl_value");

/// Prints Value::to_string().
inline std::ostream &operator<<(std::ostream &os, const Value &v) { return os << v.to_string(); }

template <class T>
struct Convert {
    static T to(const Value &v) {
        if constexpr (std::is_same_v<T, bool>) return v.as_bool();
        else if constexpr (std::is_integral_v<T>) return static_cast<T>(v.as_int());
        else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v.as_double());
        else static_assert(sizeof(T) == 0, "ripple::Value cannot convert to this type");
    }
};
template <>
struct Convert<Value> { static Value to(const Value &v) { return v; } };
template <>
struct Convert<std::string> { static std::string to(const Value &v) { return v.as_string(); } };
template <>
struct Convert<std::string_view> { static std::string_view to(const Value &v) { return v.as_string_view(); } };
template <class T>
struct Convert<std::vector<T>> {
    static std::vector<T> to(const Value &v) {
        std::vector<T> r;
        for (auto &x : v.items()) r.push_back(x.template as<T>());
        return r;
    }
};
template <class... T>
struct Convert<std::tuple<T...>> {
    static std::tuple<T...> to(const Value &v) {
        if (v.size() != sizeof...(T))
            throw Error(RPL_ERR_KIND, "ripple::Value: tuple has " + std::to_string(v.size()) + " items, expected " +
                                          std::to_string(sizeof...(T)));
        return at(v, std::index_sequence_for<T...>{});
    }
    template <size_t... I>
    static std::tuple<T...> at(const Value &v, std::index_sequence<I...>) {
        return std::tuple<T...>(v[I].template as<T>()...);
    }
};

namespace detail {
/// Reads a borrowed value as T (a view for Value itself).
template <class T>
decltype(auto) read(const Value &v) {
    if constexpr (std::is_same_v<T, Value>) return (v);
    else return v.template as<T>();
}
/// Calls f with the items of a tuple (reduce_each): as one
/// `const std::vector<Value> &` when that is f's one parameter, else one
/// argument per item, converted to f's parameter types (another count of
/// items throws Error(RPL_ERR_KIND)). Decided by f's declared parameters, not
/// by what f could be called with (a pointer or a vector converts to Value).
template <class F, size_t... I>
decltype(auto) call_items_n(F &f, const rpl_value *items, std::index_sequence<I...>) {
    return f(read<arg_t<F, I>>(Value::view(items + I))...);
}
template <class F>
decltype(auto) call_items(F &f, const rpl_value *items, size_t count) {
    using args = typename fn_traits<std::decay_t<F>>::args;
    constexpr size_t n = std::tuple_size_v<args>;
    if constexpr (n == 1 && std::is_same_v<arg_t<F, 0>, std::vector<Value>>) {
        std::vector<Value> vs;
        vs.reserve(count);
        for (size_t i = 0; i < count; i++) vs.push_back(Value::copy(items + i));
        return f(vs);
    } else {
        if (count != n)
            throw Error(RPL_ERR_KIND, "ripple::reduce_each: a tuple of " + std::to_string(count) + " items, expected " +
                                          std::to_string(n));
        return call_items_n(f, items, std::make_index_sequence<n>{});
    }
}
/// Calls f with a borrowed value: as `const Value &` when f accepts it,
/// otherwise converted to f's declared parameter type.
template <class F, class... Extra>
decltype(auto) call_with(F &f, const Value &v, Extra &...extra) {
    if constexpr (std::is_invocable_v<F &, const Value &, Extra &...>) return f(v, extra...);
    else return f(v.template as<arg_t<F, 0>>(), extra...);
}
template <class F>
decltype(auto) call_with2(F &f, const Value &a, const Value &b) {
    if constexpr (std::is_invocable_v<F &, const Value &, const Value &>) return f(a, b);
    else return f(a.template as<arg_t<F, 0>>(), b.template as<arg_t<F, 1>>());
}
/// Whether v reads as A without a throw. Checked before a callback's try
/// block, so a mismatch takes an out-of-line path and the hot path needs no
/// stack frame (one compare, the lambda, a return). True where the read is
/// not a plain scalar type check (the read inside the try block decides).
template <class A>
bool readable_as(const rpl_value *v) noexcept {
    if constexpr (std::is_same_v<A, bool>) return v->type == RPL_TYPE_BOOL;
    else if constexpr (std::is_integral_v<A>) return v->type == RPL_TYPE_INT;
    else if constexpr (std::is_floating_point_v<A>) return v->type == RPL_TYPE_DOUBLE || v->type == RPL_TYPE_INT;
    else return true;
}
/// Whether F declares the type it reads (the typed layer's wrappers).
template <class F, class = void>
struct declares_read : std::false_type {};
template <class F>
struct declares_read<F, std::void_t<typename F::reads>> : std::true_type {};
/// readable_as for the (first) parameter f is called with.
template <class F>
bool readable(const rpl_value *v) noexcept {
    if constexpr (declares_read<F>::value) {
        return readable_as<typename F::reads>(v);
    } else if constexpr (std::is_invocable_v<F &, const Value &>) {
        return true;
    } else {
        return readable_as<arg_t<F, 0>>(v);
    }
}
/// Calls body(a...) out of line: the cold path of a trampoline.
template <auto Body, class... A>
RIPPLE_COLD auto out_of_line(A... a) {
    return Body(a...);
}
/// Converts a callback result to an owned rpl_value.
template <class R>
rpl_value to_c(R &&r) {
    return Value(std::forward<R>(r)).release();
}
}  // namespace detail

// ===========================================================================
// Disposables
// ===========================================================================

/// A reference to a disposable (rpl_disposable_t). Destroying it does NOT
/// dispose it (RAC); use ScopedDisposable for that.
class Disposable : public detail::Handle<rpl_disposable_t> {
  public:
    Disposable() noexcept = default;
    static Disposable adopt(rpl_disposable_t *d) noexcept { return Disposable(d); }
    static Disposable borrow(rpl_disposable_t *d) noexcept {
        return Disposable(static_cast<rpl_disposable_t *>(rpl_retain(d)));
    }
    /// A disposable that only records being disposed.
    static Disposable create() { return adopt(detail::check(rpl_disposable_create(nullptr, nullptr))); }
    /// A disposable that runs f once, on the first dispose, then destroys f.
    /// An exception from f goes to the exception handler. Freed without being
    /// disposed, it destroys f without running it (RAC); see
    /// rpl_disposable_create_with_release.
    template <class F>
    static Disposable create(F &&f);

    /// Idempotent. A null Disposable is a no-op.
    void dispose() const {
        if (h_) detail::check(rpl_disposable_dispose(h_));
    }
    bool is_disposed() const noexcept { return h_ ? rpl_disposable_is_disposed(h_) : true; }

  protected:
    explicit Disposable(rpl_disposable_t *d) noexcept : Handle(d) {}
};

/// Holds many disposables; disposing it disposes each.
class CompoundDisposable : public Disposable {
  public:
    CompoundDisposable() : Disposable(detail::check(rpl_compound_disposable_create())) {}
    /// Adds d (disposed at once if this is already disposed).
    void add(const Disposable &d) const { detail::check(rpl_compound_disposable_add(h_, d.get())); }
    void remove(const Disposable &d) const { detail::check(rpl_compound_disposable_remove(h_, d.get())); }
    CompoundDisposable &operator+=(const Disposable &d) { add(d); return *this; }
};

/// Holds at most one disposable.
class SerialDisposable : public Disposable {
  public:
    SerialDisposable() : Disposable(detail::check(rpl_serial_disposable_create())) {}
    /// Puts d in (an empty Disposable clears) and returns the previous one,
    /// not disposed. If this is disposed, d is disposed at once.
    Disposable swap(const Disposable &d) const {
        // h_ is never null (the constructor throws), so NULL means "no old one".
        return Disposable::adopt(rpl_serial_disposable_swap(h_, d.get()));
    }
    void set(const Disposable &d) const { swap(d); }
};

/// Disposes its disposable when it goes out of scope (or is reassigned).
/// Move-only. Typically holds a subscription: `auto sub = sig.subscribe_scoped(...)`.
class ScopedDisposable {
  public:
    ScopedDisposable() noexcept = default;
    ScopedDisposable(Disposable d) noexcept : d_(std::move(d)) {}
    ScopedDisposable(ScopedDisposable &&o) noexcept = default;
    ScopedDisposable &operator=(ScopedDisposable &&o) noexcept {
        if (this != &o) { dispose(); d_ = std::move(o.d_); }
        return *this;
    }
    ScopedDisposable(const ScopedDisposable &) = delete;
    ScopedDisposable &operator=(const ScopedDisposable &) = delete;
    ~ScopedDisposable() { dispose(); }

    void dispose() noexcept {
        if (d_) rpl_disposable_dispose(d_.get());
        d_ = Disposable();
    }
    /// Stops managing: returns the disposable without disposing it.
    Disposable release() noexcept { return std::move(d_); }
    const Disposable &get() const noexcept { return d_; }
    bool is_disposed() const noexcept { return d_.is_disposed(); }

  private:
    Disposable d_;
};
/// The scoped subscription of Signal::subscribe_scoped.
using ScopedSubscription = ScopedDisposable;

// ===========================================================================
// Subscribers
// ===========================================================================

/// The receiving end a Signal::create lambda sends into. Copying retains, so
/// a copy may be kept to send later, from any thread.
class Subscriber : public detail::Handle<rpl_subscriber_t> {
  public:
    Subscriber() noexcept = default;
    static Subscriber borrow(rpl_subscriber_t *s) noexcept {
        return Subscriber(static_cast<rpl_subscriber_t *>(rpl_retain(s)));
    }
    /// Sends are ignored after a terminal event or disposal.
    void send_next(Value v) const { detail::check(rpl_subscriber_send_next(h_, v.release())); }
    void send_error(const SignalError &e = {}) const { detail::check(rpl_subscriber_send_error(h_, e.get())); }
    void send_error(std::string_view message) const { send_error(SignalError(kExceptionDomain, RPL_ERROR_CALLBACK, message)); }
    void send_completed() const { detail::check(rpl_subscriber_send_completed(h_)); }
    /// True once the subscription ended: a producer loop should stop.
    bool is_disposed() const noexcept { return rpl_subscriber_is_disposed(h_); }

  private:
    explicit Subscriber(rpl_subscriber_t *s) noexcept : Handle(s) {}
};

namespace detail {
/// What a Signal::create lambda may return: nothing, a Disposable, or a
/// cleanup callable. Produces the +1 disposable the runtime takes.
template <class R>
rpl_disposable_t *cleanup_of(R &&r);

/// Observer context: the three lambdas of one subscription.
template <class N>
struct Observer {
    N on_next;
    std::function<void(const SignalError &)> on_error;
    std::function<void()> on_completed;

    static void next(void *ctx, const rpl_value *v) {
        if (RIPPLE_UNLIKELY(!readable<N>(v))) return out_of_line<&deliver>(ctx, v);
        deliver(ctx, v);
    }
    RIPPLE_ALWAYS_INLINE static void deliver(void *ctx, const rpl_value *v) {
        try {
            call_with(static_cast<Observer *>(ctx)->on_next, Value::view(v));
        } catch (...) {
            report_current("on_next");
        }
    }
    static void error(void *ctx, const rpl_error_t *e) {
        try {
            static_cast<Observer *>(ctx)->on_error(SignalError::borrow(e));
        } catch (...) {
            report_current("on_error");
        }
    }
    static void completed(void *ctx) {
        try {
            static_cast<Observer *>(ctx)->on_completed();
        } catch (...) {
            report_current("on_completed");
        }
    }
    static void release(void *ctx) { delete static_cast<Observer *>(ctx); }
};
struct Ignore {
    void operator()(const Value &) const noexcept {}
};

/// An exception thrown by an operator callback fails that operator: through
/// rpl_callback_fail it reaches on_error (the callback's neutral result is then
/// discarded by the runtime). Only where the runtime refuses does it go to the
/// exception handler.
inline void fail(std::exception_ptr e, const char *where) noexcept {
    if (rpl_callback_fail(error_from(e)) != RPL_OK) report(e, where);
}
// The catch blocks call these out of line, so a trampoline's hot path keeps
// no stack frame for the exception_ptr.
RIPPLE_COLD inline void fail_current(const char *where) noexcept { fail(std::current_exception(), where); }

/// Runs body() for an operator callback: an exception fails the operator
/// (see fail) and fallback() is returned instead, which the runtime discards.
template <class Body, class Fallback>
RIPPLE_ALWAYS_INLINE auto guarded(const char *where, Body &&body, Fallback &&fallback) noexcept -> decltype(body()) {
    try {
        return body();
    } catch (...) {
        fail_current(where);
        return fallback();
    }
}
inline rpl_value nil_value() noexcept { return rpl_nil(); }
inline bool false_value() noexcept { return false; }
inline void no_value() noexcept {}

/// Whether F takes a tuple's raw items itself (the typed layer's TypedItems).
template <class F, class = void>
struct takes_items : std::false_type {};
template <class F>
struct takes_items<F, std::void_t<decltype(F::takes_items)>> : std::true_type {};

/// C trampolines for operator callbacks holding an F in a Box, one per C
/// callback shape. Every one runs the lambda through guarded: an exception
/// reaches on_error through rpl_callback_fail.
template <class F>
struct Tramp {
    static F &fn(void *ctx) { return unbox<F>(ctx); }
    /// rpl_map_fn: map, group_by's key.
    static rpl_value map(void *ctx, const rpl_value *v) {
        if (RIPPLE_UNLIKELY(!readable<F>(v))) return out_of_line<&map_read>(ctx, v);
        return map_read(ctx, v);
    }
    RIPPLE_ALWAYS_INLINE static rpl_value map_read(void *ctx, const rpl_value *v) {
        return guarded("map", [&] { return to_c(call_with(fn(ctx), Value::view(v))); }, nil_value);
    }
    /// rpl_predicate_fn: filter, take_while, skip_while, any, all, throttle_if.
    static bool predicate(void *ctx, const rpl_value *v) {
        if (RIPPLE_UNLIKELY(!readable<F>(v))) return out_of_line<&predicate_read>(ctx, v);
        return predicate_read(ctx, v);
    }
    RIPPLE_ALWAYS_INLINE static bool predicate_read(void *ctx, const rpl_value *v) {
        return guarded("predicate", [&] { return static_cast<bool>(call_with(fn(ctx), Value::view(v))); }, false_value);
    }
    /// Two values to a bool: distinct_until_changed_with's equal.
    static bool equal(void *ctx, const rpl_value *a, const rpl_value *b) {
        return guarded("equal", [&] { return static_cast<bool>(call_with2(fn(ctx), Value::view(a), Value::view(b))); },
                       false_value);
    }
    /// rpl_reduce_fn: scan, aggregate, combine_previous.
    static rpl_value reduce(void *ctx, const rpl_value *acc, const rpl_value *v) {
        return guarded("reduce", [&] { return to_c(call_with2(fn(ctx), Value::view(acc), Value::view(v))); },
                       [acc] { return rpl_value_copy(acc); });
    }
    static void do_next(void *ctx, const rpl_value *v) {
        guarded("do_next", [&] { call_with(fn(ctx), Value::view(v)); }, no_value);
    }
    static void do_error(void *ctx, const rpl_error_t *e) {
        guarded("do_error", [&] { fn(ctx)(SignalError::borrow(e)); }, no_value);
    }
    /// No argument: do_completed, initially, finally, do_dispose.
    static void action(void *ctx) {
        guarded("action", [&] { fn(ctx)(); }, no_value);
    }
    /// rpl_reduce_each_fn: the items of a tuple (see call_items).
    static rpl_value reduce_each(void *ctx, const rpl_value *items, size_t count) {
        return guarded("reduce_each", [&] {
            if constexpr (takes_items<F>::value) return to_c(fn(ctx)(items, count));
            else return to_c(call_items(fn(ctx), items, count));
        }, nil_value);
    }
    /// try_map: the result as a next event, or the exception as an error event.
    static rpl_value map_event(void *ctx, const rpl_value *v) {
        try {
            return rpl_event_next(to_c(call_with(fn(ctx), Value::view(v))));
        } catch (...) {
            rpl_error_t *e = error_from(std::current_exception());
            rpl_value r = rpl_event_error(e);
            rpl_release(e);
            return r;
        }
    }
};
/// rpl_subscribe_fn: the lambda of Signal::create, start_lazily and
/// start_eagerly. It may return nothing, a Disposable or a cleanup callable;
/// an exception is sent to the subscriber as an error.
template <class F>
struct SubscribeTramp {
    static rpl_disposable_t *run(void *ctx, rpl_subscriber_t *s) {
        Subscriber sub = Subscriber::borrow(s);
        try {
            F &fn = unbox<F>(ctx);
            if constexpr (std::is_void_v<decltype(fn(sub))>) {
                fn(sub);
                return nullptr;
            } else {
                return cleanup_of(fn(sub));
            }
        } catch (...) {
            rpl_error_t *e = error_from(std::current_exception());
            rpl_subscriber_send_error(s, e);
            rpl_release(e);
            return nullptr;
        }
    }
};
/// The trampolines of callbacks returning a signal (flatten_map, concat_map,
/// bind, catch_), defined once Signal is complete.
template <class F>
struct SignalTramp;
}  // namespace detail

// ===========================================================================
// Signals
// ===========================================================================

/// A signal (rpl_signal_t). Every operator is a method returning a new Signal.
class Signal : public detail::Handle<rpl_signal_t> {
  public:
    Signal() noexcept = default;
    static Signal adopt(rpl_signal_t *s) noexcept { return Signal(s); }
    static Signal borrow(rpl_signal_t *s) noexcept { return Signal(static_cast<rpl_signal_t *>(rpl_retain(s))); }

    // ---- Names and logging (ripple.h "Names, tracing and counting") -----

    /// The signal's name: its default ("[+subject] -map:") or the one set.
    std::string name() const { return detail::check(rpl_signal_name(h_)); }
    /// Sets the name (copied) and returns this signal, for chaining.
    const Signal &set_name(const std::string &n) const {
        detail::check(rpl_signal_set_name(h_, n.c_str()));
        return *this;
    }
    /// RAC's logAll: writes every event to stderr as "label: next 1" (label
    /// empty: the signal's name).
    Signal log(const std::string &label = std::string()) const {
        return adopt(detail::check(rpl_signal_log(h_, label.empty() ? nullptr : label.c_str())));
    }

    // ---- Creating -------------------------------------------------------

    /// A cold signal: f(Subscriber) runs once per subscription. f may return
    /// nothing, a Disposable, or a callable to run when the subscription ends.
    /// An exception thrown by f is sent to that subscriber as an error.
    template <class F>
    static Signal create(F &&f) {
        return adopt(detail::call_boxed(rpl_signal_create, &subscribe_tramp<F>::run, std::forward<F>(f)));
    }
    /// Sends v, then completes.
    static Signal return_(Value v) { return adopt(detail::check(rpl_signal_return(v.release()))); }
    /// Sends each value, then completes (rpl_signal_from_array).
    static Signal of(std::vector<Value> values) { return from_array(std::move(values)); }
    static Signal from_array(std::vector<Value> values) {
        // rpl_signal_from_array consumes the values: hand over our references.
        std::vector<rpl_value> raw;
        raw.reserve(values.size());
        for (auto &v : values) raw.push_back(v.release());
        return adopt(detail::check(rpl_signal_from_array(raw.data(), raw.size())));
    }
    /// The ints start, start + 1, ..., start + count - 1, then completes.
    static Signal range(int64_t start, size_t count) { return adopt(detail::check(rpl_signal_range(start, count))); }
    /// The int 0 on s, d after subscription, then completes.
    static inline Signal timer(Duration d, const Scheduler &s);
    /// RAC's startLazily / startEagerly: f(Subscriber) runs once on s (at the
    /// first subscription / now), and every subscriber gets all it sent. f
    /// returns what a Signal::create lambda may; an exception is sent as an
    /// error to every subscriber.
    template <class F>
    static Signal start_lazily(const Scheduler &s, F &&f);
    template <class F>
    static Signal start_eagerly(const Scheduler &s, F &&f);
    template <class T, std::enable_if_t<!std::is_same_v<T, Value>, int> = 0>
    static Signal of(const std::vector<T> &values) {
        return of(std::vector<Value>(values.begin(), values.end()));
    }
    static Signal empty() { return adopt(detail::check(rpl_signal_empty())); }
    static Signal never() { return adopt(detail::check(rpl_signal_never())); }
    /// Fails every subscriber with e (an empty SignalError: a generic error).
    static Signal error(const SignalError &e = {}) { return adopt(detail::check(rpl_signal_error(e.get()))); }
    static Signal error(std::string_view message) {
        return error(SignalError(kExceptionDomain, RPL_ERROR_CALLBACK, message));
    }
    /// f() -> Signal runs at each subscription; an exception fails that
    /// subscription with the exception's error.
    template <class F>
    static Signal defer(F &&f) {
        return adopt(detail::call_boxed(rpl_signal_defer, &signal_tramp<F>::factory, std::forward<F>(f)));
    }

    // ---- Subscribing ----------------------------------------------------

    /// Subscribes lambdas; returns the subscription's disposable. on_next may
    /// take `const Value &` or a convertible type (int64_t, std::string, ...).
    /// The lambdas are destroyed when the subscription ends.
    template <class N = detail::Ignore>
    Disposable subscribe(N &&on_next = N{}, std::function<void(const SignalError &)> on_error = nullptr,
                         std::function<void()> on_completed = nullptr) const {
        using O = detail::Observer<std::decay_t<N>>;
        rpl_observer obs = RPL_OBSERVER_INIT;
        obs.on_next = &O::next;
        obs.on_error = on_error ? &O::error : nullptr;
        obs.on_completed = on_completed ? &O::completed : nullptr;
        obs.release = &O::release;
        obs.ctx = new O{std::forward<N>(on_next), std::move(on_error), std::move(on_completed)};
        return Disposable::adopt(detail::check(rpl_signal_subscribe(h_, &obs)));
    }
    /// subscribe() without a value callback.
    Disposable subscribe(std::nullptr_t, std::function<void(const SignalError &)> on_error,
                         std::function<void()> on_completed = nullptr) const {
        return subscribe(detail::Ignore{}, std::move(on_error), std::move(on_completed));
    }
    /// subscribe(), disposed when the returned object goes out of scope.
    template <class N = detail::Ignore>
    ScopedSubscription subscribe_scoped(N &&on_next = N{},
                                        std::function<void(const SignalError &)> on_error = nullptr,
                                        std::function<void()> on_completed = nullptr) const {
        return ScopedSubscription(subscribe(std::forward<N>(on_next), std::move(on_error), std::move(on_completed)));
    }

    // ---- Blocking -------------------------------------------------------

    /// The first value. Throws Error: RPL_ERR_TIMEOUT, RPL_ERR_NO_VALUE, or
    /// RPL_ERR_FAILED with signal_error().
    Value first(Duration timeout = forever) const {
        rpl_value out;
        detail::check(rpl_signal_first(h_, &out, detail::to_ns(timeout)));
        return Value::adopt(out);
    }
    template <class T>
    T first(Duration timeout = forever) const { return first(timeout).template as<T>(); }
    /// Waits until the signal terminates; throws on error or timeout.
    void wait(Duration timeout = forever) const { detail::check(rpl_signal_wait(h_, detail::to_ns(timeout))); }
    /// Every value, once the signal completes, as one tuple value.
    Value to_array(Duration timeout = forever) const {
        rpl_value out;
        detail::check(rpl_signal_to_array(h_, &out, detail::to_ns(timeout)));
        return Value::adopt(out);
    }
    /// Every value, once the signal completes.
    std::vector<Value> to_vector(Duration timeout = forever) const { return to_array(timeout).items(); }
    template <class T>
    std::vector<T> to_vector(Duration timeout = forever) const { return to_array(timeout).template as<std::vector<T>>(); }

    // ---- Operators: single-input (fused) --------------------------------

    /// f(v) for each value. f may take `const Value &` or a typed argument and
    /// return anything convertible to Value. A throw fails the signal with
    /// the exception's error (as does every operator lambda).
    template <class F>
    Signal map(F &&f) const { return with_fn<F>(rpl_signal_map, &tramp<F>::map, std::forward<F>(f)); }
    /// map by way of events (map to events, then dematerialize): a throw
    /// fails the signal as in map; kept for 0.1 code. Costs one event box per value.
    template <class F>
    Signal try_map(F &&f) const {
        return with_fn<F>(rpl_signal_map, &tramp<F>::map_event, std::forward<F>(f)).dematerialize();
    }
    /// The values for which f(v) is true.
    template <class F>
    Signal filter(F &&f) const { return with_fn<F>(rpl_signal_filter, &tramp<F>::predicate, std::forward<F>(f)); }
    /// Running accumulations f(acc, v), starting from initial (not sent).
    template <class F>
    Signal scan(Value initial, F &&f) const {
        return adopt(detail::call_boxed(rpl_signal_scan, &tramp<F>::reduce, std::forward<F>(f), h_, initial.release()));
    }
    /// Like scan, but only the final accumulation, at completion.
    template <class F>
    Signal aggregate(Value initial, F &&f) const {
        return adopt(
            detail::call_boxed(rpl_signal_aggregate, &tramp<F>::reduce, std::forward<F>(f), h_, initial.release()));
    }
    /// Drops values equal to the previous one.
    Signal distinct_until_changed() const { return adopt(detail::check(rpl_signal_distinct_until_changed(h_))); }
    /// Every event as an event value; never fails.
    Signal materialize() const { return adopt(detail::check(rpl_signal_materialize(h_))); }
    /// Event values back into events.
    Signal dematerialize() const { return adopt(detail::check(rpl_signal_dematerialize(h_))); }
    /// One tuple of every value, at completion.
    Signal collect() const { return adopt(detail::check(rpl_signal_collect(h_))); }
    Signal take(size_t n) const { return adopt(detail::check(rpl_signal_take(h_, n))); }
    Signal skip(size_t n) const { return adopt(detail::check(rpl_signal_skip(h_, n))); }
    Signal take_last(size_t n) const { return adopt(detail::check(rpl_signal_take_last(h_, n))); }
    /// Values while f(v) is true, then completes.
    template <class F>
    Signal take_while(F &&f) const {
        return with_fn<F>(rpl_signal_take_while, &tramp<F>::predicate, std::forward<F>(f));
    }
    /// Drops values while f(v) is true.
    template <class F>
    Signal skip_while(F &&f) const {
        return with_fn<F>(rpl_signal_skip_while, &tramp<F>::predicate, std::forward<F>(f));
    }
    /// Side effects before each event is forwarded.
    template <class F>
    Signal do_next(F &&f) const { return with_fn<F>(rpl_signal_do_next, &tramp<F>::do_next, std::forward<F>(f)); }
    template <class F>
    Signal do_error(F &&f) const { return with_fn<F>(rpl_signal_do_error, &tramp<F>::do_error, std::forward<F>(f)); }
    template <class F>
    Signal do_completed(F &&f) const {
        return with_fn<F>(rpl_signal_do_completed, &tramp<F>::action, std::forward<F>(f));
    }

    // ---- Operators: transforming, testing, a subscription's life -------

    /// v for every value (RAC's mapReplace:).
    Signal map_replace(Value v) const { return adopt(detail::check(rpl_signal_map_replace(h_, v.release()))); }
    /// The values except those equal to v (RAC's ignore:).
    Signal ignore(Value v) const { return adopt(detail::check(rpl_signal_ignore(h_, v.release()))); }
    /// Only the terminal event (RAC's ignoreValues).
    Signal ignore_values() const { return adopt(detail::check(rpl_signal_ignore_values(h_))); }
    /// For each tuple, f(items...) (RAC's reduceEach:): f takes one argument
    /// per item (typed or `const Value &`; another item count fails the
    /// signal), or `const std::vector<Value> &`.
    template <class F>
    Signal reduce_each(F &&f) const {
        return with_fn<F>(rpl_signal_reduce_each, &tramp<F>::reduce_each, std::forward<F>(f));
    }
    /// f(previous, v) for each value v, previous being the value before it
    /// (start for the first) (RAC's combinePreviousWithStart:reduce:).
    template <class F>
    Signal combine_previous(Value start, F &&f) const {
        return adopt(detail::call_boxed(rpl_signal_combine_previous, &tramp<F>::reduce,
                                        std::forward<F>(f), h_, start.release()));
    }
    /// Drops v when equal(last passed value, v) is true (Rx's
    /// distinctUntilChanged(_:)).
    template <class F>
    Signal distinct_until_changed_with(F &&equal) const {
        return with_fn<F>(rpl_signal_distinct_until_changed_with, &tramp<F>::equal,
                          std::forward<F>(equal));
    }
    /// Tuples of count values; the rest as one last tuple at completion.
    Signal buffer(size_t count) const { return adopt(detail::check(rpl_signal_buffer(h_, count))); }
    /// RAC's not / and / or on bools and tuples of bools (`not`, `and`, `or`
    /// are C++ operator words, hence the underscore).
    Signal not_() const { return adopt(detail::check(rpl_signal_not(h_))); }
    Signal and_() const { return adopt(detail::check(rpl_signal_and(h_))); }
    Signal or_() const { return adopt(detail::check(rpl_signal_or(h_))); }
    /// One bool, then completed: whether f(v) holds for some / every value.
    template <class F>
    Signal any(F &&f) const { return with_fn<F>(rpl_signal_any, &tramp<F>::predicate, std::forward<F>(f)); }
    template <class F>
    Signal all(F &&f) const { return with_fn<F>(rpl_signal_all, &tramp<F>::predicate, std::forward<F>(f)); }
    /// v when the signal completes without a value (Rx's ifEmpty(default:)).
    Signal default_if_empty(Value v) const { return adopt(detail::check(rpl_signal_default_if_empty(h_, v.release()))); }
    /// f() at each subscription, before this signal is subscribed (RAC's initially:).
    template <class F>
    Signal initially(F &&f) const { return with_fn<F>(rpl_signal_initially, &tramp<F>::action, std::forward<F>(f)); }
    /// f() when this signal errs or completes, before the event passes on (RAC's finally:).
    template <class F>
    Signal finally(F &&f) const { return with_fn<F>(rpl_signal_finally, &tramp<F>::action, std::forward<F>(f)); }
    /// f() once per subscription when it ends for any reason (Rx's
    /// do(onDispose:)). The subscription is over, so an exception from f goes
    /// to the exception handler.
    template <class F>
    Signal do_dispose(F &&f) const {
        return with_fn<F>(rpl_signal_do_dispose, &tramp<F>::action, std::forward<F>(f));
    }

    // ---- Operators: a second signal, grouping ----------------------------

    /// Tuples (v, other's latest value) for each value v once other has sent
    /// one (Rx's withLatestFrom).
    Signal with_latest_from(const Signal &other) const {
        return adopt(detail::check(rpl_signal_with_latest_from(h_, other.h_)));
    }
    /// This signal's latest value at each value of sampler (RAC's sample:).
    Signal sample(const Signal &sampler) const { return adopt(detail::check(rpl_signal_sample(h_, sampler.h_))); }
    /// This signal's values until replacement sends; then replacement's
    /// events (RAC's takeUntilReplacement:).
    Signal take_until_replacement(const Signal &replacement) const {
        return adopt(detail::check(rpl_signal_take_until_replacement(h_, replacement.h_)));
    }
    /// This signal's events once trigger has sent a value (Rx's skipUntil).
    Signal skip_until(const Signal &trigger) const { return adopt(detail::check(rpl_signal_skip_until(h_, trigger.h_))); }
    /// RAC's groupBy:: a tuple (key, group signal) the first time key(v) is
    /// seen; the group signal gets that key's values.
    template <class F>
    Signal group_by(F &&key) const {
        return with_fn<F>(rpl_signal_group_by, &tramp<F>::map, std::forward<F>(key));
    }

    // ---- Subjects and multicast -----------------------------------------

    /// Sends this signal's events into subject (see Subject::subscribe_to).
    inline Disposable subscribe_subject(const Subject &subject) const;
    /// A connection multicasting this signal through a new plain subject.
    inline Connection publish() const;
    /// A connection multicasting this signal through subject.
    inline Connection multicast(const Subject &subject) const;
    /// Multicast through an unlimited replay subject, connected at once.
    Signal replay() const { return adopt(detail::check(rpl_signal_replay(h_))); }
    /// Like replay, keeping only the latest value.
    Signal replay_last() const { return adopt(detail::check(rpl_signal_replay_last(h_))); }
    /// Like replay, connected on the first subscription.
    Signal replay_lazily() const { return adopt(detail::check(rpl_signal_replay_lazily(h_))); }
    /// Rx's share(replay:, scope: .whileConnected): one subscription of this
    /// signal while anyone is subscribed; a joining subscriber first gets the
    /// last `replay` values of the current connection (0: none).
    Signal share(size_t replay = 0) const { return adopt(detail::check(rpl_signal_share(h_, replay))); }

    // ---- Operators: schedulers and time ---------------------------------

    /// Runs the subscription as work on s.
    inline Signal subscribe_on(const Scheduler &s) const;
    /// Delivers every event on s.
    inline Signal deliver_on(const Scheduler &s) const;
    /// deliver_on with at most capacity values waiting; policy says what a
    /// value sent into a full queue does (Overflow).
    inline Signal deliver_on_bounded(const Scheduler &s, size_t capacity, Overflow policy) const;
    /// Delays values and completion by d on s.
    inline Signal delay(Duration d, const Scheduler &s) const;
    /// Sends a value only after d passes without a newer one (RAC throttle).
    inline Signal throttle(Duration d, const Scheduler &s) const;
    /// Fails with a timeout error (domain "ripple", RPL_ERROR_TIMEOUT) when
    /// not terminated within d of subscription.
    inline Signal timeout(Duration d, const Scheduler &s) const;
    /// Sends 0, 1, 2, ... every d on s; never completes.
    static inline Signal interval(Duration d, const Scheduler &s);
    /// The operating system's sources (ripple.h, "The operating system"): events
    /// delivered as work on s (a run loop's, a serial or the background
    /// scheduler). Descriptors stay the caller's; read, read_lines, write and
    /// accept make them non-blocking. A failing system call is an error with
    /// domain "errno" and code errno.
    /// fd (an int) each time it is readable / writable (level-triggered).
    static inline Signal fd_readable(int fd, const Scheduler &s);
    static inline Signal fd_writable(int fd, const Scheduler &s);
    /// The bytes read from fd in chunks of at most max_chunk; completes at EOF.
    static inline Signal read(int fd, size_t max_chunk, const Scheduler &s);
    /// The lines read from fd (strings without "\n" / "\r\n"); a line over
    /// max_line bytes fails it (RPL_ERROR_LINE_TOO_LONG).
    static inline Signal read_lines(int fd, size_t max_line, const Scheduler &s);
    /// Writes each string or bytes value of this signal to fd, sending each
    /// value's byte count; completes once this completed and all is written.
    inline Signal write(int fd, const Scheduler &s) const;
    /// Each accepted connection's descriptor (an int), owned by the receiver.
    static inline Signal accept(int listen_fd, const Scheduler &s);
    /// signo each time the process gets it while subscribed.
    static inline Signal os_signal(int signo, const Scheduler &s);
    /// The child's raw wait status once it ends (it is reaped), then completes.
    static inline Signal child_exit(int64_t pid, const Scheduler &s);
    /// Changes under path as tuples (name, RPL_FILE_* flags).
    static inline Signal file_changes(const std::string &path, const Scheduler &s);
    /// Subscribes to this signal d after the subscription, on s.
    inline Signal delay_subscription(Duration d, const Scheduler &s) const;
    /// Rx's throttle: the first value passes, then none until d has passed on
    /// s's clock since the last one sent.
    inline Signal throttle_first(Duration d, const Scheduler &s) const;
    /// RAC's throttle:valuesPassingTest: values for which f(v) is true are
    /// throttled as by throttle(d, s); the others pass at once.
    template <class F>
    Signal throttle_if(Duration d, const Scheduler &s, F &&f) const;
    /// RAC's bufferWithTime: each batch of values as one tuple, d after the
    /// batch's first value, on s.
    inline Signal buffer_with_time(Duration d, const Scheduler &s) const;

    // ---- Operators: combining and higher-order --------------------------

    /// RAC's bind: f(v, bool &stop) -> Signal for each value; the returned
    /// signals run merged. Returning an empty Signal, or setting stop, ends
    /// the source side. A throw fails the result with the exception's error.
    template <class F>
    Signal bind(F &&f) const { return with_fn<F>(rpl_signal_bind, &signal_tramp<F>::bind, std::forward<F>(f)); }
    /// f(v) -> Signal for each value; merges every returned signal. An empty
    /// Signal is an empty inner signal; a throw fails the result.
    template <class F>
    Signal flatten_map(F &&f) const {
        return with_fn<F>(rpl_signal_flatten_map, &signal_tramp<F>::flat, std::forward<F>(f));
    }
    /// For a signal of signal values: merges the inner signals.
    Signal flatten() const { return adopt(detail::check(rpl_signal_flatten(h_))); }
    /// RAC's flatten:: like flatten, at most max_concurrent inners at once
    /// (the others wait, in order); 0: no limit.
    Signal flatten_max(size_t max_concurrent) const {
        return adopt(detail::check(rpl_signal_flatten_max(h_, max_concurrent)));
    }
    /// The inner signals one after the other (flatten_max(1); RAC's concat).
    Signal concat_all() const { return adopt(detail::check(rpl_signal_concat_all(h_))); }
    /// f(v) -> Signal for each value; the returned signals run one after the
    /// other, in order (Rx's concatMap). A throw fails the result.
    template <class F>
    Signal concat_map(F &&f) const {
        return with_fn<F>(rpl_signal_concat_map, &signal_tramp<F>::flat, std::forward<F>(f));
    }
    /// This signal's events, or other's if it completes without a value.
    Signal switch_if_empty(const Signal &other) const {
        return adopt(detail::check(rpl_signal_switch_if_empty(h_, other.h_)));
    }
    /// RAC's if:then:else:: follows then_sig while cond's latest value is
    /// true, else_sig while it is false (`if` is a C++ keyword).
    static Signal if_(const Signal &cond, const Signal &then_sig, const Signal &else_sig) {
        return adopt(detail::check(rpl_signal_if(cond.h_, then_sig.h_, else_sig.h_)));
    }
    /// RAC's switch:cases:default:: follows the case whose key equals
    /// key_sig's latest value, else default_sig (an empty Signal: a key with
    /// no case fails the result with RPL_ERROR_NO_MATCHING_CASE).
    static Signal switch_cases(const Signal &key_sig, std::vector<std::pair<Value, Signal>> cases,
                               const Signal &default_sig = Signal()) {
        std::vector<rpl_value> keys;
        std::vector<rpl_signal_t *> sigs;
        keys.reserve(cases.size());
        sigs.reserve(cases.size());
        for (auto &c : cases) {
            keys.push_back(c.first.release());  // consumed by the call
            sigs.push_back(c.second.get());
        }
        return adopt(detail::check(
            rpl_signal_switch_cases(key_sig.h_, keys.data(), sigs.data(), cases.size(), default_sig.h_)));
    }
    /// For a signal of signal values: only the latest inner signal's events.
    Signal switch_to_latest() const { return adopt(detail::check(rpl_signal_switch_to_latest(h_))); }
    /// This signal's events, then next's.
    Signal concat(const Signal &next) const { return adopt(detail::check(rpl_signal_concat(h_, next.h_))); }
    /// Values of all signals as they arrive.
    static Signal merge(const std::vector<Signal> &sigs) { return adopt(detail::check(rpl_signal_merge(raw(sigs).data(), sigs.size()))); }
    Signal merge(const Signal &other) const { return merge({*this, other}); }
    /// Tuples of every input's latest value.
    static Signal combine_latest(const std::vector<Signal> &sigs) {
        return adopt(detail::check(rpl_signal_combine_latest(raw(sigs).data(), sigs.size())));
    }
    Signal combine_latest(const Signal &other) const { return combine_latest({*this, other}); }
    /// Tuples of the i-th values of every input.
    static Signal zip(const std::vector<Signal> &sigs) { return adopt(detail::check(rpl_signal_zip(raw(sigs).data(), sigs.size()))); }
    Signal zip(const Signal &other) const { return zip({*this, other}); }
    /// v first, then this signal's events.
    Signal start_with(Value v) const { return adopt(detail::check(rpl_signal_start_with(h_, v.release()))); }
    /// Ignores this signal's values; on completion, next's events.
    Signal then(const Signal &next) const { return adopt(detail::check(rpl_signal_then(h_, next.h_))); }
    /// Events until trigger sends a value or completes.
    Signal take_until(const Signal &trigger) const { return adopt(detail::check(rpl_signal_take_until(h_, trigger.h_))); }
    /// On an error, f(SignalError) -> Signal to continue with. An empty
    /// Signal passes the error on; a throw fails with the exception's error.
    template <class F>
    Signal catch_(F &&f) const {
        return with_fn<F>(rpl_signal_catch, &signal_tramp<F>::catch_, std::forward<F>(f));
    }
    /// On an error, continues with replacement.
    Signal catch_to(const Signal &replacement) const { return adopt(detail::check(rpl_signal_catch_to(h_, replacement.h_))); }
    /// Resubscribes at most n times after an error (forever_count: no limit).
    Signal retry(size_t n = forever_count) const { return adopt(detail::check(rpl_signal_retry(h_, n))); }
    /// Subscribes n times in all, one after the other (forever_count: forever).
    Signal repeat(size_t n = forever_count) const { return adopt(detail::check(rpl_signal_repeat(h_, n))); }

  protected:
    explicit Signal(rpl_signal_t *s) noexcept : Handle(s) {}
    /// The C trampolines of a lambda type F (see detail::Tramp and friends).
    template <class F>
    using tramp = detail::Tramp<std::decay_t<F>>;
    template <class F>
    using signal_tramp = detail::SignalTramp<std::decay_t<F>>;
    template <class F>
    using subscribe_tramp = detail::SubscribeTramp<std::decay_t<F>>;
    /// Calls a C operator taking (sig, fn, ctx, release) with f boxed.
    template <class F, class CFn, class Tr>
    Signal with_fn(CFn c_op, Tr trampoline, F &&f) const {
        return adopt(detail::call_boxed(c_op, trampoline, std::forward<F>(f), h_));
    }
    static std::vector<rpl_signal_t *> raw(const std::vector<Signal> &sigs) {
        std::vector<rpl_signal_t *> r;
        r.reserve(sigs.size());
        for (auto &x : sigs) r.push_back(x.get());
        return r;
    }
};

inline Value::Value(const Signal &s) : v_(rpl_signal_value(s.get())) {}
inline Signal Value::as_signal() const {
    expect(RPL_TYPE_SIGNAL, "a signal");
    return Signal::borrow(rpl_value_signal(&v_));
}
template <>
struct Convert<Signal> { static Signal to(const Value &v) { return v.as_signal(); } };

namespace detail {
/// An exception from a callback returning a signal fails the operator through
/// rpl_callback_fail (the callback then returns NULL, discarded). Where the
/// runtime refuses (Signal::defer's factory runs at subscription, for no
/// operator), the callback returns a signal failing with the exception's error.
inline rpl_signal_t *failed_signal(std::exception_ptr ep) noexcept {
    rpl_error_t *e = error_from(ep);
    if (rpl_callback_fail(static_cast<rpl_error_t *>(rpl_retain(e))) == RPL_OK) {
        rpl_release(e);
        return nullptr;
    }
    rpl_signal_t *r = rpl_signal_error(e);
    rpl_release(e);
    return r;
}
/// Runs body() -> Signal for a C callback returning a +1 signal.
template <class Body>
rpl_signal_t *signal_result(Body &&body) noexcept {
    try {
        return Signal(body()).release();
    } catch (...) {
        return failed_signal(std::current_exception());
    }
}
template <class F>
struct SignalTramp {
    static F &fn(void *ctx) { return unbox<F>(ctx); }
    /// rpl_flatten_map_fn: flatten_map, concat_map.
    static rpl_signal_t *flat(void *ctx, const rpl_value *v) {
        return signal_result([&] { return call_with(fn(ctx), Value::view(v)); });
    }
    static rpl_signal_t *bind(void *ctx, const rpl_value *v, bool *stop) {
        return signal_result([&] { return call_with(fn(ctx), Value::view(v), *stop); });
    }
    static rpl_signal_t *catch_(void *ctx, const rpl_error_t *e) {
        return signal_result([&] { return fn(ctx)(SignalError::borrow(e)); });
    }
    /// Signal::defer's factory.
    static rpl_signal_t *factory(void *ctx) {
        return signal_result([&] { return fn(ctx)(); });
    }
};
}  // namespace detail

namespace detail {
template <class R>
rpl_disposable_t *cleanup_of(R &&r) {
    using D = std::decay_t<R>;
    if constexpr (std::is_base_of_v<Disposable, D>) return Disposable(std::forward<R>(r)).release();
    else return Disposable::create(std::forward<R>(r)).release();
}
}  // namespace detail

// ===========================================================================
// Subjects
// ===========================================================================

/// A plain subject: a hot signal you send into. It is a Signal, so every
/// operator and subscribe work on it. Subscribers get what is sent after they
/// subscribed; a late subscriber to a terminated subject gets the terminal
/// event at once.
class Subject : public Signal {
  public:
    Subject() : Signal(to_signal(detail::check(rpl_subject_create()))) {}
    static Subject adopt(rpl_subject_t *s) noexcept { return Subject(s); }
    /// The raw subject handle, borrowed.
    rpl_subject_t *subject() const noexcept { return reinterpret_cast<rpl_subject_t *>(h_); }

    /// Sends to every subscriber (ignored after the terminal event).
    void send_next(Value v) const { detail::check(rpl_subject_send_next(subject(), v.release())); }
    void send_error(const SignalError &e = {}) const { detail::check(rpl_subject_send_error(subject(), e.get())); }
    void send_error(std::string_view message) const { send_error(SignalError(kExceptionDomain, RPL_ERROR_CALLBACK, message)); }
    void send_completed() const { detail::check(rpl_subject_send_completed(subject())); }
    /// Subscribes this subject to source: source's events are sent into it.
    Disposable subscribe_to(const Signal &source) const {
        return Disposable::adopt(detail::check(rpl_signal_subscribe_subject(source.get(), subject())));
    }
    /// Live subscriptions right now (a snapshot).
    size_t subscriber_count() const noexcept { return rpl_subject_subscriber_count(subject()); }
    bool is_terminated() const noexcept { return rpl_subject_is_terminated(subject()); }

  protected:
    explicit Subject(rpl_subject_t *adopted) noexcept : Signal(to_signal(adopted)) {}
    static rpl_signal_t *to_signal(rpl_subject_t *s) noexcept { return reinterpret_cast<rpl_signal_t *>(s); }
};

/// A subject with a current value: a subscriber first gets it (initial until
/// something is sent), then live events.
class BehaviorSubject : public Subject {
  public:
    explicit BehaviorSubject(Value initial = Value())
        : Subject(detail::check(rpl_behavior_subject_create(initial.release()))) {}
    /// The current value (the last sent, or the initial one).
    Value value() const {
        rpl_value out;
        detail::check(rpl_behavior_subject_value(subject(), &out));
        return Value::adopt(out);
    }
    template <class T>
    T value() const { return value().template as<T>(); }
};

/// A subject replaying the last `capacity` values (unlimited by default) to
/// each new subscriber, then its terminal event if any, then live events.
class ReplaySubject : public Subject {
  public:
    static constexpr size_t unlimited = static_cast<size_t>(-1);  // RPL_REPLAY_UNLIMITED
    explicit ReplaySubject(size_t capacity = unlimited) : Subject(detail::check(rpl_replay_subject_create(capacity))) {}
};

// ===========================================================================
// Multicast connections
// ===========================================================================

/// One shared subscription of a cold signal through a subject.
class Connection : public detail::Handle<rpl_connection_t> {
  public:
    Connection() noexcept = default;
    static Connection adopt(rpl_connection_t *c) noexcept { return Connection(c); }
    /// The signal subscribers subscribe to (the connection's subject).
    Signal signal() const { return Signal::borrow(detail::check(rpl_connection_signal(h_))); }
    /// Subscribes the subject to the source, once; later calls return the
    /// same connection disposable until it is disposed.
    Disposable connect() const { return Disposable::adopt(detail::check(rpl_connection_connect(h_))); }
    /// Connects on the first subscriber, disconnects when none is left.
    Signal autoconnect() const { return Signal::adopt(detail::check(rpl_connection_autoconnect(h_))); }

  private:
    explicit Connection(rpl_connection_t *c) noexcept : Handle(c) {}
};

inline Disposable Signal::subscribe_subject(const Subject &subject) const { return subject.subscribe_to(*this); }
inline Connection Signal::publish() const { return Connection::adopt(detail::check(rpl_signal_publish(h_))); }
inline Connection Signal::multicast(const Subject &subject) const {
    return Connection::adopt(detail::check(rpl_signal_multicast(h_, subject.subject())));
}

// ===========================================================================
// Schedulers
// ===========================================================================

namespace detail {
template <class F>
struct Work {
    static void run(void *ctx) {
        try {
            unbox<F>(ctx)();
        } catch (...) {
            report_current("scheduled work");
        }
    }
};
}  // namespace detail

/// A scheduler (rpl_scheduler_t). Work lambdas are freed after they ran or
/// were cancelled; an exception from one goes to the exception handler.
class Scheduler : public detail::Handle<rpl_scheduler_t> {
  public:
    Scheduler() noexcept = default;
    static Scheduler adopt(rpl_scheduler_t *s) noexcept { return Scheduler(s); }
    static Scheduler borrow(rpl_scheduler_t *s) noexcept {
        return Scheduler(static_cast<rpl_scheduler_t *>(rpl_retain(s)));
    }
    /// Runs work on the calling thread, at once (a trampoline when nested).
    static Scheduler immediate() { return borrow(rpl_scheduler_immediate()); }
    /// The shared background thread pool.
    static Scheduler background() { return borrow(rpl_scheduler_background()); }
    /// A new serial scheduler with a thread of its own.
    static Scheduler serial(const std::string &label = "") {
        return adopt(detail::check(rpl_scheduler_create_serial(label.empty() ? nullptr : label.c_str())));
    }
    /// The scheduler running the calling code; empty outside scheduled work.
    static Scheduler current() noexcept { return borrow(rpl_scheduler_current()); }

    /// The scheduler's clock (virtual time on a test scheduler).
    Duration now() const { return Duration(static_cast<Duration::rep>(rpl_scheduler_now(h_))); }
    /// Runs f as soon as possible; the disposable cancels it.
    template <class F>
    Disposable schedule(F &&f) const {
        return Disposable::adopt(detail::call_boxed(rpl_scheduler_schedule, work<F>, std::forward<F>(f), h_));
    }
    /// Runs f once d has passed.
    template <class F>
    Disposable after(Duration d, F &&f) const {
        return Disposable::adopt(
            detail::call_boxed(rpl_scheduler_after, work<F>, std::forward<F>(f), h_, detail::to_ns(d)));
    }
    /// Runs f after delay, then every interval, until disposed.
    template <class F>
    Disposable repeat(Duration delay, Duration interval, F &&f) const {
        return Disposable::adopt(detail::call_boxed(rpl_scheduler_repeat, work<F>, std::forward<F>(f), h_,
                                                    detail::to_ns(delay), detail::to_ns(interval)));
    }

  protected:
    explicit Scheduler(rpl_scheduler_t *s) noexcept : Handle(s) {}
    /// The C trampoline of a work lambda type F.
    template <class F>
    static constexpr auto work = &detail::Work<std::decay_t<F>>::run;
};

/// A scheduler with a virtual clock starting at 0: work runs only inside
/// advance_by / run, on the calling thread.
class TestScheduler : public Scheduler {
  public:
    TestScheduler() : Scheduler(detail::check(rpl_test_scheduler_create())) {}
    /// Moves the clock forward by d, running what falls due.
    void advance_by(Duration d) const { detail::check(rpl_test_scheduler_advance_by(h_, detail::to_ns(d))); }
    /// Runs everything pending (never with repeating work pending).
    void run() const { detail::check(rpl_test_scheduler_run(h_)); }
};

/// A scheduler driven by the program's own loop, on the thread that asks.
class RunLoop : public detail::Handle<rpl_run_loop_t> {
  public:
    RunLoop() : Handle(detail::check(rpl_run_loop_create())) {}
    /// The run loop as a scheduler (the same object).
    Scheduler scheduler() const { return Scheduler::borrow(detail::check(rpl_run_loop_scheduler(h_))); }
    /// Readable (POLLIN) while work is ready or due; owned by the loop.
    int fd() const {
        int fd = rpl_run_loop_fd(h_);
        if (fd < 0) throw Error::last();
        return fd;
    }
    /// Runs ready and due work until none is left; returns how many ran.
    int64_t run_until_idle() const { return checked(rpl_run_loop_run_until_idle(h_)); }
    /// Runs at most one item; true if one ran.
    bool run_one() const { return checked(rpl_run_loop_run_one(h_)) > 0; }
    /// Runs work, sleeping while there is none, until stop().
    void run() const { detail::check(rpl_run_loop_run(h_)); }
    /// Makes run() return after its current item. Any thread.
    void stop() const { detail::check(rpl_run_loop_stop(h_)); }
    /// Time until the loop next has work: zero if ready, forever if none.
    Duration next_timeout() const {
        uint64_t ns = rpl_run_loop_next_timeout(h_);
        return ns == UINT64_MAX ? forever : Duration(static_cast<Duration::rep>(ns));
    }

  private:
    static int64_t checked(int64_t n) {
        if (n < 0) throw Error(static_cast<rpl_status>(n), rpl_last_error_message());
        return n;
    }
};

inline Signal Signal::subscribe_on(const Scheduler &s) const { return adopt(detail::check(rpl_signal_subscribe_on(h_, s.get()))); }
inline Signal Signal::deliver_on(const Scheduler &s) const { return adopt(detail::check(rpl_signal_deliver_on(h_, s.get()))); }
inline Signal Signal::deliver_on_bounded(const Scheduler &s, size_t capacity, Overflow policy) const {
    return adopt(
        detail::check(rpl_signal_deliver_on_bounded(h_, s.get(), capacity, static_cast<rpl_overflow>(policy))));
}
inline Signal Signal::delay(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_delay(h_, detail::to_ns(d), s.get())));
}
inline Signal Signal::throttle(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_throttle(h_, detail::to_ns(d), s.get())));
}
inline Signal Signal::timeout(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_timeout(h_, detail::to_ns(d), s.get())));
}
inline Signal Signal::interval(Duration d, const Scheduler &s) {
    return adopt(detail::check(rpl_signal_interval(detail::to_ns(d), s.get())));
}
inline Signal Signal::timer(Duration d, const Scheduler &s) {
    return adopt(detail::check(rpl_signal_timer(detail::to_ns(d), s.get())));
}
inline Signal Signal::fd_readable(int fd, const Scheduler &s) { return adopt(detail::check(rpl_signal_fd_readable(fd, s.get()))); }
inline Signal Signal::fd_writable(int fd, const Scheduler &s) { return adopt(detail::check(rpl_signal_fd_writable(fd, s.get()))); }
inline Signal Signal::read(int fd, size_t max_chunk, const Scheduler &s) {
    return adopt(detail::check(rpl_signal_read(fd, max_chunk, s.get())));
}
inline Signal Signal::read_lines(int fd, size_t max_line, const Scheduler &s) {
    return adopt(detail::check(rpl_signal_read_lines(fd, max_line, s.get())));
}
inline Signal Signal::write(int fd, const Scheduler &s) const { return adopt(detail::check(rpl_signal_write(h_, fd, s.get()))); }
inline Signal Signal::accept(int listen_fd, const Scheduler &s) { return adopt(detail::check(rpl_signal_accept(listen_fd, s.get()))); }
inline Signal Signal::os_signal(int signo, const Scheduler &s) { return adopt(detail::check(rpl_signal_os_signal(signo, s.get()))); }
inline Signal Signal::child_exit(int64_t pid, const Scheduler &s) { return adopt(detail::check(rpl_signal_child_exit(pid, s.get()))); }
inline Signal Signal::file_changes(const std::string &path, const Scheduler &s) {
    return adopt(detail::check(rpl_signal_file_changes(path.c_str(), s.get())));
}
template <class F>
Signal Signal::start_lazily(const Scheduler &s, F &&f) {
    return adopt(detail::call_boxed(rpl_signal_start_lazily, &subscribe_tramp<F>::run, std::forward<F>(f), s.get()));
}
template <class F>
Signal Signal::start_eagerly(const Scheduler &s, F &&f) {
    return adopt(detail::call_boxed(rpl_signal_start_eagerly, &subscribe_tramp<F>::run, std::forward<F>(f), s.get()));
}
inline Signal Signal::delay_subscription(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_delay_subscription(h_, detail::to_ns(d), s.get())));
}
inline Signal Signal::throttle_first(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_throttle_first(h_, detail::to_ns(d), s.get())));
}
template <class F>
Signal Signal::throttle_if(Duration d, const Scheduler &s, F &&f) const {
    return adopt(detail::call_boxed(rpl_signal_throttle_if, &tramp<F>::predicate, std::forward<F>(f), h_,
                                    detail::to_ns(d), s.get()));
}
inline Signal Signal::buffer_with_time(Duration d, const Scheduler &s) const {
    return adopt(detail::check(rpl_signal_buffer_with_time(h_, detail::to_ns(d), s.get())));
}

template <class F>
Disposable Disposable::create(F &&f) {
    // The lambda is freed by the release, which runs once: after it ran, or
    // when the disposable is freed undisposed.
    struct Ctx {
        std::decay_t<F> f;
        static void run(void *c) {
            try {
                static_cast<Ctx *>(c)->f();
            } catch (...) {
                detail::report_current("dispose");
            }
        }
        static void release(void *c) { delete static_cast<Ctx *>(c); }
    };
    auto *ctx = new Ctx{std::forward<F>(f)};
    rpl_disposable_t *d = rpl_disposable_create_with_release(&Ctx::run, ctx, &Ctx::release);
    if (!d) { delete ctx; throw Error::last(); }
    return adopt(d);
}

// ===========================================================================
// The typed layer: Observable<T>
// ===========================================================================
//
// Observable<T> is a Signal whose values are known, at compile time, to be T:
// int64_t, double, bool, std::string, ripple::Value (any), a std::tuple or
// std::vector of these, or Observable<U> (a signal value: group_by's groups).
// Its operators take lambdas of T and give the result type from the lambda,
// so a lambda that cannot take T does not compile:
//
//     ripple::SubjectOf<int64_t> clicks;
//     auto sums = clicks.map([](int64_t x) { return x * 0.5; })        // Observable<double>
//                       .scan(0.0, [](double acc, double x) { return acc + x; });
//     sums.subscribe([](double total) { ... });
//     clicks.map([](const std::string &s) { ... });                  // error: no matching map
//
// A lambda's result is carried as its Value type: any integer as int64_t, a
// float as double, a string (char pointer, string_view) as std::string. The
// layer costs nothing per event over Signal: it is the same signal, with the
// same lambdas, read with the inline type checks of Value::as.
// Converting: Observable<T>(signal) views an untyped signal as T without a
// check (a value of another type throws in the typed lambda that reads it:
// an operator then fails, as any exception does; a subscribe lambda reports
// it to the exception handler); Observable<T>::checked(signal) adds a check
// that fails the signal on such a value instead. An Observable<T> converts
// to `const Signal &` (signal()), so every untyped operator stays available.

template <class T>
class Observable;

namespace detail {
/// The types an Observable may carry.
template <class T>
struct is_carried
    : std::bool_constant<std::is_same_v<T, bool> || std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                         std::is_same_v<T, std::string> || std::is_same_v<T, Value>> {};
template <class... A>
struct is_carried<std::tuple<A...>> : std::bool_constant<(is_carried<A>::value && ...)> {};
template <class A>
struct is_carried<std::vector<A>> : is_carried<A> {};
/// A signal value (group_by's groups) as a typed observable.
template <class A>
struct is_carried<Observable<A>> : is_carried<A> {};

/// The carried type of a lambda's result R (void when R cannot be carried).
template <class R, class = void>
struct carried { using type = void; };
template <class R>
struct carried<R, std::enable_if_t<is_carried<R>::value>> { using type = R; };
template <class R>
struct carried<R, std::enable_if_t<std::is_integral_v<R> && !std::is_same_v<R, bool> && !std::is_same_v<R, int64_t>>> {
    using type = int64_t;
};
template <class R>
struct carried<R, std::enable_if_t<std::is_floating_point_v<R> && !std::is_same_v<R, double>>> { using type = double; };
template <>
struct carried<std::string_view> { using type = std::string; };
template <>
struct carried<const char *> { using type = std::string; };
template <>
struct carried<char *> { using type = std::string; };
template <class... A>
struct carried<std::tuple<A...>, std::enable_if_t<!is_carried<std::tuple<A...>>::value>> {
    using type = std::tuple<typename carried<std::decay_t<A>>::type...>;
};
template <class A>
struct carried<std::vector<A>, std::enable_if_t<!is_carried<std::vector<A>>::value>> {
    using type = std::vector<typename carried<A>::type>;
};
template <class R>
using carried_t = typename carried<std::decay_t<R>>::type;

template <class O>
struct observable_of { using type = void; };
template <class T>
struct observable_of<Observable<T>> { using type = T; };
/// T for a lambda returning Observable<T> (or a typed subject of T).
template <class F, class... A>
using observable_result_t = typename observable_of<std::decay_t<decltype(
    std::declval<std::invoke_result_t<F &, A...>>().observable())>>::type;

/// A lambda of T (and of A, for two-argument callbacks) as the untyped layer
/// calls it: with borrowed Values.
template <class T, class F>
struct Typed {
    using reads = T;
    F f;
    template <class... Extra>
    decltype(auto) operator()(const Value &v, Extra &...extra) { return f(read<T>(v), extra...); }
};
template <class A, class T, class F>
struct Typed2 {
    F f;
    decltype(auto) operator()(const Value &a, const Value &v) { return f(read<A>(a), read<T>(v)); }
};
template <class T, class F>
Typed<T, std::decay_t<F>> typed(F &&f) { return {std::forward<F>(f)}; }
template <class A, class T, class F>
Typed2<A, T, std::decay_t<F>> typed2(F &&f) { return {std::forward<F>(f)}; }

/// A lambda of a tuple's items (reduce_each on Observable<std::tuple<A...>>).
template <class Tuple, class F>
struct TypedItems;
template <class... A, class F>
struct TypedItems<std::tuple<A...>, F> {
    static constexpr bool takes_items = true;
    F f;
    decltype(auto) operator()(const rpl_value *items, size_t count) {
        if (count != sizeof...(A)) throw Error(RPL_ERR_KIND, "ripple::reduce_each: a tuple of the wrong size");
        return call(items, std::index_sequence_for<A...>{});
    }
    template <size_t... I>
    decltype(auto) call(const rpl_value *items, std::index_sequence<I...>) {
        return f(read<A>(Value::view(items + I))...);
    }
};
/// The result of F called with a tuple's items.
template <class F, class Tuple>
struct items_result {};
template <class F, class... A>
struct items_result<F, std::tuple<A...>> : std::invoke_result<F &, const A &...> {};
template <class F, class Tuple>
using items_result_t = std::enable_if_t<!std::is_void_v<carried_t<typename items_result<F, Tuple>::type>>,
                                        carried_t<typename items_result<F, Tuple>::type>>;
/// Tuples or vectors of bools (and_ / or_).
template <class T>
struct is_bools : std::false_type {};
template <class... A>
struct is_bools<std::tuple<A...>> : std::bool_constant<(std::is_same_v<A, bool> && ...)> {};
template <>
struct is_bools<std::vector<bool>> : std::true_type {};

template <class F, class T>
using if_invocable = std::enable_if_t<std::is_invocable_v<F &, const T &>, int>;
template <class F, class T>
using if_predicate = std::enable_if_t<std::is_convertible_v<std::invoke_result_t<F &, const T &>, bool>, int>;
/// The carried result of F(const T &...), only when there is one.
template <class F, class... T>
using map_result_t = std::enable_if_t<!std::is_void_v<carried_t<std::invoke_result_t<F &, const T &...>>>,
                                      carried_t<std::invoke_result_t<F &, const T &...>>>;
}  // namespace detail

/// The receiving end of Observable<T>::create: sends T.
template <class T>
class SubscriberOf {
  public:
    explicit SubscriberOf(Subscriber s) noexcept : s_(std::move(s)) {}
    void send_next(const T &v) const { detail::check(rpl_subscriber_send_next(s_.get(), detail::to_c(v))); }
    void send_error(const SignalError &e = {}) const { s_.send_error(e); }
    void send_error(std::string_view message) const { s_.send_error(message); }
    void send_completed() const { s_.send_completed(); }
    bool is_disposed() const noexcept { return s_.is_disposed(); }
    /// The untyped subscriber (the same subscription).
    const Subscriber &untyped() const noexcept { return s_; }

  private:
    Subscriber s_;
};

/// A signal of T values; see "The typed layer" above.
template <class T>
class Observable {
    static_assert(detail::is_carried<T>::value,
                  "ripple::Observable<T>: T must be int64_t, double, bool, std::string, ripple::Value, "
                  "a std::tuple / std::vector of these, or an Observable<U>");

  public:
    using value_type = T;
    Observable() noexcept = default;
    /// Views an untyped signal as carrying T, unchecked (see checked).
    explicit Observable(Signal s) noexcept : s_(std::move(s)) {}
    /// sig with a check that each value is a T: another value fails the
    /// signal (an RPL_ERR_KIND message, domain "ripple.cpp").
    static Observable checked(const Signal &sig) {
        return Observable(sig.filter([](const Value &v) { return (void)v.template as<T>(), true; }));
    }

    /// The untyped signal (the same handle).
    const Signal &signal() const noexcept { return s_; }
    operator const Signal &() const noexcept { return s_; }
    /// This observable (lets typed subjects be returned where an Observable is).
    const Observable &observable() const noexcept { return *this; }
    explicit operator bool() const noexcept { return static_cast<bool>(s_); }
    std::string name() const { return s_.name(); }
    const Observable &set_name(const std::string &n) const { s_.set_name(n); return *this; }
    Observable log(const std::string &label = std::string()) const { return Observable(s_.log(label)); }

    // ---- Creating -------------------------------------------------------

    /// f(const SubscriberOf<T> &) runs per subscription (as Signal::create).
    template <class F, std::enable_if_t<std::is_invocable_v<F &, const SubscriberOf<T> &>, int> = 0>
    static Observable create(F &&f) {
        return Observable(Signal::create(typed_subscribe(std::forward<F>(f))));
    }
    static Observable return_(const T &v) { return Observable(Signal::return_(Value(v))); }
    static Observable of(std::vector<T> values) {
        return Observable(Signal::of(std::vector<Value>(values.begin(), values.end())));
    }
    static Observable of(std::initializer_list<T> values) { return of(std::vector<T>(values)); }
    static Observable empty() { return Observable(Signal::empty()); }
    static Observable never() { return Observable(Signal::never()); }
    static Observable error(const SignalError &e = {}) { return Observable(Signal::error(e)); }
    static Observable error(std::string_view message) { return Observable(Signal::error(message)); }
    /// f() -> Observable<T> at each subscription.
    template <class F, std::enable_if_t<std::is_same_v<detail::observable_result_t<F>, T>, int> = 0>
    static Observable defer(F &&f) {
        return Observable(Signal::defer([f = std::forward<F>(f)]() mutable { return Signal(f().signal()); }));
    }

    // ---- Subscribing and blocking ---------------------------------------

    /// on_next(const T &); the other two as in Signal::subscribe.
    template <class N, detail::if_invocable<N, T> = 0>
    Disposable subscribe(N &&on_next, std::function<void(const SignalError &)> on_error = nullptr,
                         std::function<void()> on_completed = nullptr) const {
        return s_.subscribe(detail::typed<T>(std::forward<N>(on_next)), std::move(on_error), std::move(on_completed));
    }
    Disposable subscribe(std::nullptr_t = nullptr, std::function<void(const SignalError &)> on_error = nullptr,
                         std::function<void()> on_completed = nullptr) const {
        return s_.subscribe(nullptr, std::move(on_error), std::move(on_completed));
    }
    template <class N, detail::if_invocable<N, T> = 0>
    ScopedSubscription subscribe_scoped(N &&on_next, std::function<void(const SignalError &)> on_error = nullptr,
                                        std::function<void()> on_completed = nullptr) const {
        return ScopedSubscription(subscribe(std::forward<N>(on_next), std::move(on_error), std::move(on_completed)));
    }
    T first(Duration timeout = forever) const { return s_.first(timeout).template as<T>(); }
    void wait(Duration timeout = forever) const { s_.wait(timeout); }
    std::vector<T> to_vector(Duration timeout = forever) const { return s_.template to_vector<T>(timeout); }

    // ---- Operators ------------------------------------------------------

    /// f(T) -> R: an Observable of R's carried type.
    template <class F, class R = detail::map_result_t<F, T>>
    Observable<R> map(F &&f) const { return Observable<R>(s_.map(detail::typed<T>(std::forward<F>(f)))); }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable filter(F &&f) const { return Observable(s_.filter(detail::typed<T>(std::forward<F>(f)))); }
    /// f(A acc, T v) -> A, from initial (A is initial's carried type).
    template <class I, class F, class A = detail::carried_t<I>,
              std::enable_if_t<std::is_convertible_v<detail::map_result_t<F, A, T>, A>, int> = 0>
    Observable<A> scan(I &&initial, F &&f) const {
        return Observable<A>(s_.scan(Value(A(std::forward<I>(initial))), detail::typed2<A, T>(std::forward<F>(f))));
    }
    template <class I, class F, class A = detail::carried_t<I>,
              std::enable_if_t<std::is_convertible_v<detail::map_result_t<F, A, T>, A>, int> = 0>
    Observable<A> aggregate(I &&initial, F &&f) const {
        return Observable<A>(
            s_.aggregate(Value(A(std::forward<I>(initial))), detail::typed2<A, T>(std::forward<F>(f))));
    }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable take_while(F &&f) const { return Observable(s_.take_while(detail::typed<T>(std::forward<F>(f)))); }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable skip_while(F &&f) const { return Observable(s_.skip_while(detail::typed<T>(std::forward<F>(f)))); }
    template <class F, detail::if_invocable<F, T> = 0>
    Observable do_next(F &&f) const { return Observable(s_.do_next(detail::typed<T>(std::forward<F>(f)))); }
    template <class F>
    Observable do_error(F &&f) const { return Observable(s_.do_error(std::forward<F>(f))); }
    template <class F>
    Observable do_completed(F &&f) const { return Observable(s_.do_completed(std::forward<F>(f))); }
    Observable take(size_t n) const { return Observable(s_.take(n)); }
    Observable skip(size_t n) const { return Observable(s_.skip(n)); }
    Observable take_last(size_t n) const { return Observable(s_.take_last(n)); }
    Observable distinct_until_changed() const { return Observable(s_.distinct_until_changed()); }
    /// Every value, at completion, in one vector.
    Observable<std::vector<T>> collect() const { return Observable<std::vector<T>>(s_.collect()); }
    Observable start_with(const T &v) const { return Observable(s_.start_with(Value(v))); }
    Observable concat(const Observable &next) const { return Observable(s_.concat(next.s_)); }
    Observable then(const Observable &next) const { return Observable(s_.then(next.s_)); }
    template <class... O>
    Observable merge(const O &...others) const {
        return Observable(Signal::merge({s_, static_cast<const Observable &>(others).signal()...}));
    }
    template <class U>
    Observable take_until(const Observable<U> &trigger) const { return Observable(s_.take_until(trigger.signal())); }
    /// Tuples of the latest value of this and each other observable.
    template <class... U>
    Observable<std::tuple<T, U...>> combine_latest(const Observable<U> &...others) const {
        return Observable<std::tuple<T, U...>>(Signal::combine_latest({s_, others.signal()...}));
    }
    /// Tuples of the i-th values of this and each other observable.
    template <class... U>
    Observable<std::tuple<T, U...>> zip(const Observable<U> &...others) const {
        return Observable<std::tuple<T, U...>>(Signal::zip({s_, others.signal()...}));
    }
    /// f(T) -> Observable<R>; merges the returned observables.
    template <class F, class R = detail::observable_result_t<F, const T &>>
    Observable<R> flatten_map(F &&f) const {
        return Observable<R>(s_.flatten_map(detail::typed<T>(std::forward<F>(f))));
    }
    /// On an error, f(SignalError) -> Observable<T> to continue with.
    template <class F,
              std::enable_if_t<std::is_same_v<detail::observable_result_t<F, const SignalError &>, T>, int> = 0>
    Observable catch_(F &&f) const { return Observable(s_.catch_(std::forward<F>(f))); }
    Observable catch_to(const Observable &replacement) const { return Observable(s_.catch_to(replacement.s_)); }
    Observable retry(size_t n = forever_count) const { return Observable(s_.retry(n)); }
    Observable repeat(size_t n = forever_count) const { return Observable(s_.repeat(n)); }
    Observable subscribe_on(const Scheduler &s) const { return Observable(s_.subscribe_on(s)); }
    Observable deliver_on(const Scheduler &s) const { return Observable(s_.deliver_on(s)); }
    Observable delay(Duration d, const Scheduler &s) const { return Observable(s_.delay(d, s)); }
    Observable throttle(Duration d, const Scheduler &s) const { return Observable(s_.throttle(d, s)); }
    Observable timeout(Duration d, const Scheduler &s) const { return Observable(s_.timeout(d, s)); }
    Observable replay() const { return Observable(s_.replay()); }
    Observable replay_last() const { return Observable(s_.replay_last()); }
    Observable replay_lazily() const { return Observable(s_.replay_lazily()); }

    // ---- More operators: the rest of RAC's catalogue and Rx's -----------

    /// f(const SubscriberOf<T> &) once on s, replayed to every subscriber.
    template <class F, std::enable_if_t<std::is_invocable_v<F &, const SubscriberOf<T> &>, int> = 0>
    static Observable start_lazily(const Scheduler &s, F &&f) {
        return Observable(Signal::start_lazily(s, typed_subscribe(std::forward<F>(f))));
    }
    template <class F, std::enable_if_t<std::is_invocable_v<F &, const SubscriberOf<T> &>, int> = 0>
    static Observable start_eagerly(const Scheduler &s, F &&f) {
        return Observable(Signal::start_eagerly(s, typed_subscribe(std::forward<F>(f))));
    }
    Observable share(size_t replay = 0) const { return Observable(s_.share(replay)); }
    Observable delay_subscription(Duration d, const Scheduler &s) const { return Observable(s_.delay_subscription(d, s)); }
    Observable throttle_first(Duration d, const Scheduler &s) const { return Observable(s_.throttle_first(d, s)); }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable throttle_if(Duration d, const Scheduler &s, F &&f) const {
        return Observable(s_.throttle_if(d, s, detail::typed<T>(std::forward<F>(f))));
    }
    Observable<std::vector<T>> buffer_with_time(Duration d, const Scheduler &s) const {
        return Observable<std::vector<T>>(s_.buffer_with_time(d, s));
    }
    template <class R>
    Observable<detail::carried_t<R>> map_replace(const R &v) const {
        return Observable<detail::carried_t<R>>(s_.map_replace(Value(detail::carried_t<R>(v))));
    }
    Observable ignore(const T &v) const { return Observable(s_.ignore(Value(v))); }
    Observable ignore_values() const { return Observable(s_.ignore_values()); }
    /// For Observable<std::tuple<A...>>: f(A...) per tuple.
    template <class F, class R = detail::items_result_t<F, T>>
    Observable<R> reduce_each(F &&f) const {
        return Observable<R>(s_.reduce_each(detail::TypedItems<T, std::decay_t<F>>{std::forward<F>(f)}));
    }
    /// f(previous, v) -> R, previous starting at start.
    template <class F, class R = detail::map_result_t<F, T, T>>
    Observable<R> combine_previous(const T &start, F &&f) const {
        return Observable<R>(s_.combine_previous(Value(start), detail::typed2<T, T>(std::forward<F>(f))));
    }
    template <class F,
              std::enable_if_t<std::is_convertible_v<std::invoke_result_t<F &, const T &, const T &>, bool>, int> = 0>
    Observable distinct_until_changed_with(F &&equal) const {
        return Observable(s_.distinct_until_changed_with(detail::typed2<T, T>(std::forward<F>(equal))));
    }
    Observable<std::vector<T>> buffer(size_t count) const { return Observable<std::vector<T>>(s_.buffer(count)); }
    template <class U = T, std::enable_if_t<std::is_same_v<U, bool>, int> = 0>
    Observable<bool> not_() const { return Observable<bool>(s_.not_()); }
    template <class U = T, std::enable_if_t<detail::is_bools<U>::value, int> = 0>
    Observable<bool> and_() const { return Observable<bool>(s_.and_()); }
    template <class U = T, std::enable_if_t<detail::is_bools<U>::value, int> = 0>
    Observable<bool> or_() const { return Observable<bool>(s_.or_()); }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable<bool> any(F &&f) const { return Observable<bool>(s_.any(detail::typed<T>(std::forward<F>(f)))); }
    template <class F, detail::if_predicate<F, T> = 0>
    Observable<bool> all(F &&f) const { return Observable<bool>(s_.all(detail::typed<T>(std::forward<F>(f)))); }
    Observable default_if_empty(const T &v) const { return Observable(s_.default_if_empty(Value(v))); }
    template <class F, std::enable_if_t<std::is_invocable_v<F &>, int> = 0>
    Observable initially(F &&f) const { return Observable(s_.initially(std::forward<F>(f))); }
    template <class F, std::enable_if_t<std::is_invocable_v<F &>, int> = 0>
    Observable finally(F &&f) const { return Observable(s_.finally(std::forward<F>(f))); }
    template <class F, std::enable_if_t<std::is_invocable_v<F &>, int> = 0>
    Observable do_dispose(F &&f) const { return Observable(s_.do_dispose(std::forward<F>(f))); }
    template <class U>
    Observable<std::tuple<T, U>> with_latest_from(const Observable<U> &other) const {
        return Observable<std::tuple<T, U>>(s_.with_latest_from(other.signal()));
    }
    template <class U>
    Observable sample(const Observable<U> &sampler) const { return Observable(s_.sample(sampler.signal())); }
    Observable take_until_replacement(const Observable &replacement) const {
        return Observable(s_.take_until_replacement(replacement.s_));
    }
    template <class U>
    Observable skip_until(const Observable<U> &trigger) const { return Observable(s_.skip_until(trigger.signal())); }
    /// For Observable<Observable<U>>: the inners merged, at most
    /// max_concurrent at once (0: no limit), one after the other, or the latest.
    template <class U = T, class V = typename detail::observable_of<U>::type>
    Observable<V> flatten_max(size_t max_concurrent) const { return Observable<V>(s_.flatten_max(max_concurrent)); }
    template <class U = T, class V = typename detail::observable_of<U>::type>
    Observable<V> flatten() const { return Observable<V>(s_.flatten()); }
    template <class U = T, class V = typename detail::observable_of<U>::type>
    Observable<V> concat_all() const { return Observable<V>(s_.concat_all()); }
    template <class U = T, class V = typename detail::observable_of<U>::type>
    Observable<V> switch_to_latest() const { return Observable<V>(s_.switch_to_latest()); }
    /// f(T) -> Observable<R>; the returned observables one after the other.
    template <class F, class R = detail::observable_result_t<F, const T &>>
    Observable<R> concat_map(F &&f) const { return Observable<R>(s_.concat_map(detail::typed<T>(std::forward<F>(f)))); }
    Observable switch_if_empty(const Observable &other) const { return Observable(s_.switch_if_empty(other.s_)); }
    Observable deliver_on_bounded(const Scheduler &s, size_t capacity, Overflow policy) const {
        return Observable(s_.deliver_on_bounded(s, capacity, policy));
    }
    /// (key, group) the first time key(v) is seen; each group an Observable<T>.
    template <class F, class K = detail::map_result_t<F, T>>
    Observable<std::tuple<K, Observable<T>>> group_by(F &&key) const {
        return Observable<std::tuple<K, Observable<T>>>(s_.group_by(detail::typed<T>(std::forward<F>(key))));
    }

  protected:
    Signal s_;

  private:
    template <class F>
    static auto typed_subscribe(F &&f) {
        return [f = std::forward<F>(f)](const Subscriber &s) mutable -> decltype(auto) {
            return f(SubscriberOf<T>(s));
        };
    }
};

template <class U>
struct Convert<Observable<U>> {
    static Observable<U> to(const Value &v) { return Observable<U>(v.as_signal()); }
};

/// RAC's if:then:else: for observables (Signal::if_).
template <class T>
Observable<T> if_(const Observable<bool> &cond, const Observable<T> &then_obs, const Observable<T> &else_obs) {
    return Observable<T>(Signal::if_(cond, then_obs, else_obs));
}
/// RAC's switch:cases:default: for observables (Signal::switch_cases); an
/// empty default fails the result on a key with no case.
template <class K, class T>
Observable<T> switch_cases(const Observable<K> &key, const std::vector<std::pair<K, Observable<T>>> &cases,
                           const Observable<T> &default_obs = Observable<T>()) {
    std::vector<std::pair<Value, Signal>> raw;
    raw.reserve(cases.size());
    for (const auto &c : cases) raw.emplace_back(Value(c.first), c.second.signal());
    return Observable<T>(Signal::switch_cases(key, std::move(raw), default_obs));
}

/// 0, 1, 2, ... every d on s (Signal::interval).
inline Observable<int64_t> interval(Duration d, const Scheduler &s) { return Observable<int64_t>(Signal::interval(d, s)); }
/// start, start + 1, ..., start + count - 1 (Signal::range).
inline Observable<int64_t> range(int64_t start, size_t count) { return Observable<int64_t>(Signal::range(start, count)); }
/// 0 on s, d after subscription, then completed (Signal::timer).
inline Observable<int64_t> timer(Duration d, const Scheduler &s) { return Observable<int64_t>(Signal::timer(d, s)); }

/// A subject of T: send T values in, observe them as Observable<T>.
template <class T>
class SubjectOf : public Observable<T> {
  public:
    SubjectOf() : SubjectOf(Subject()) {}
    void send_next(const T &v) const { detail::check(rpl_subject_send_next(subject_.subject(), detail::to_c(v))); }
    void send_error(const SignalError &e = {}) const { subject_.send_error(e); }
    void send_error(std::string_view message) const { subject_.send_error(message); }
    void send_completed() const { subject_.send_completed(); }
    /// Sends source's events into this subject.
    Disposable subscribe_to(const Observable<T> &source) const { return subject_.subscribe_to(source.signal()); }
    size_t subscriber_count() const noexcept { return subject_.subscriber_count(); }
    bool is_terminated() const noexcept { return subject_.is_terminated(); }
    /// The untyped subject (the same handle).
    const Subject &untyped() const noexcept { return subject_; }

  protected:
    explicit SubjectOf(Subject s) : Observable<T>(Signal(s)), subject_(std::move(s)) {}
    Subject subject_;
};

/// A subject of T with a current value (BehaviorSubject).
template <class T>
class BehaviorSubjectOf : public SubjectOf<T> {
  public:
    explicit BehaviorSubjectOf(const T &initial) : SubjectOf<T>(BehaviorSubject(Value(initial))) {}
    T value() const {
        rpl_value out;
        detail::check(rpl_behavior_subject_value(this->subject_.subject(), &out));
        return Value::adopt(out).template as<T>();
    }
};

/// A subject of T replaying the last `capacity` values (ReplaySubject).
template <class T>
class ReplaySubjectOf : public SubjectOf<T> {
  public:
    explicit ReplaySubjectOf(size_t capacity = ReplaySubject::unlimited) : SubjectOf<T>(ReplaySubject(capacity)) {}
};

// ---- Tracing and counting ---------------------------------------------------

/// Runtime objects alive now (ripple.h rpl_live_objects): compare it before
/// and after a piece of work to find leaks.
inline std::size_t live_objects() noexcept { return rpl_live_objects(); }

/// Writes every event as one JSON line to fd, for the ripple-trace command
/// to draw as a timeline (ripple.h rpl_trace_write); -1 stops and writes
/// out what is pending. The runtime writes to its own duplicate of fd (fd
/// may be closed at once). Shares the one hook slot with Trace: each
/// replaces the other. Throws ripple::Error for an fd not open for
/// writing, and when the file it ends had a write fail (the message says
/// why and how many events were lost). RIPPLE_TRACE=path in the
/// environment does the same from load time.
inline void trace_write(int fd) { detail::check(rpl_trace_write(fd)); }

/// One traced event, as the hook sees it (borrowed for the call).
using TraceEvent = rpl_trace_event;

/// Sets the process-wide trace hook for its lifetime (ripple.h rpl_trace_set):
///     ripple::Trace t([](const ripple::TraceEvent &e) { ... });
/// The hook runs on the thread of each event and must not call into Ripple
/// (copy what it needs). Destroying the Trace turns tracing off; destroy it
/// only when no event is being reported on another thread (a call that
/// started before may still be running). Exceptions from the hook go to the
/// exception handler. One Trace at a time: a newer one replaces the hook.
class Trace {
  public:
    using Hook = std::function<void(const TraceEvent &)>;
    explicit Trace(Hook hook) : hook_(new Hook(std::move(hook))) {
        detail::check(rpl_trace_set(&Trace::call, hook_));
    }
    ~Trace() {
        rpl_trace_set(nullptr, nullptr);
        delete hook_;
    }
    Trace(const Trace &) = delete;
    Trace &operator=(const Trace &) = delete;

  private:
    static void call(void *ctx, const rpl_trace_event *e) {
        try {
            (*static_cast<Hook *>(ctx))(*e);
        } catch (...) {
            detail::report_current("trace hook");
        }
    }
    Hook *hook_;
};

// ---------------------------------------------------------------------------
// Marble tests (ripple.h, "Marble tests"): diagrams on a test scheduler.

namespace testing {

/// Characters and the values they stand for in a diagram; without an entry a
/// digit is its int and any other character a one-character string.
using MarbleValues = std::vector<std::pair<char, Value>>;

/// Thrown by Marbles::expect when a signal did not do what its diagram
/// says: what() has the frame of the first difference, then both diagrams
/// and a caret under it. An Error (RPL_ERR_FAILED), so a test framework
/// reports it like any failed check.
class MarbleMismatch : public Error {
  public:
    explicit MarbleMismatch(const std::string &diff) : Error(RPL_ERR_FAILED, diff) {}
};

/// Marble diagrams on one test scheduler: cold and hot marbles, and
/// expectations of what a signal does.
///
///     ripple::testing::Marbles m;
///     auto clicks = m.hot("-a--b-c---d|");
///     m.expect(clicks.throttle(2ms, m.scheduler()), "---a----c--(d|)");
class Marbles {
  public:
    Marbles() = default;
    explicit Marbles(TestScheduler s) : scheduler_(std::move(s)) {}
    const TestScheduler &scheduler() const noexcept { return scheduler_; }

    /// A signal that plays marbles for each subscriber, from its subscription.
    Signal cold(const std::string &marbles, const MarbleValues &values = {}) const {
        auto table = owned(values);
        return Signal::adopt(detail::check(rpl_marble_cold(scheduler_.get(), marbles.c_str(), table.data(), table.size())));
    }
    /// A subject that plays marbles once, from now (its '^').
    Subject hot(const std::string &marbles, const MarbleValues &values = {}) const {
        auto table = owned(values);
        return Subject::adopt(detail::check(rpl_marble_hot(scheduler_.get(), marbles.c_str(), table.data(), table.size())));
    }
    /// What sig does, drawn as a diagram, subscribed at subscription's '^'
    /// (now when empty) and disposed at its '!'.
    std::string record(const Signal &sig, const std::string &subscription = {}, const MarbleValues &values = {}) const {
        auto table = borrowed(values);
        Value v = Value::adopt(rpl_marble_record(scheduler_.get(), sig.get(), subscription.c_str(), table.data(), table.size()));
        if (v.is_nil()) detail::throw_last();
        return v.as_string();
    }
    /// Throws MarbleMismatch unless sig does exactly expected ('#' matches
    /// any error); any other failure (a bad diagram) is an Error.
    void expect(const Signal &sig, const std::string &expected, const MarbleValues &values = {},
                const std::string &subscription = {}) const {
        auto table = borrowed(values);
        rpl_status st = rpl_marble_expect(scheduler_.get(), sig.get(), subscription.c_str(), expected.c_str(),
                                          table.data(), table.size());
        if (st == RPL_ERR_FAILED) {
            std::string message = rpl_last_error_message();
            throw MarbleMismatch(message.substr(message.find(": ") + 2));
        }
        detail::check(st);
    }
    /// The subscriptions made to a cold or hot marble, one "^--!" each.
    std::vector<std::string> subscriptions(const Signal &marble) const {
        Value v = Value::adopt(rpl_marble_subscriptions(marble.get()));
        if (v.is_nil()) detail::throw_last();
        std::vector<std::string> lines;
        std::string text = v.as_string();
        for (size_t start = 0; !text.empty() && start <= text.size();) {
            size_t end = text.find('\n', start);
            if (end == std::string::npos) end = text.size();
            lines.push_back(text.substr(start, end - start));
            start = end + 1;
        }
        return lines;
    }

  private:
    static std::vector<rpl_marble_value> owned(const MarbleValues &values) {
        std::vector<rpl_marble_value> t;
        for (const auto &e : values) t.push_back({e.first, Value(e.second).release()});
        return t;
    }
    static std::vector<rpl_marble_value> borrowed(const MarbleValues &values) {
        std::vector<rpl_marble_value> t;
        for (const auto &e : values) t.push_back({e.first, *e.second.c()});
        return t;
    }
    TestScheduler scheduler_;
};

}  // namespace testing

}  // namespace ripple

#endif  // RIPPLE_HPP
