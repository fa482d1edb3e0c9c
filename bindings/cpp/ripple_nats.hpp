// ripple_nats.hpp - header-only C++17 binding over libripple-nats
// (ripple_nats.h): Ripple signals across processes and machines through a
// NATS server, with JetStream for streams that must not lose data.
//
//     auto nc = ripple::nats::Connection::connect("nats://127.0.0.1:4222");
//     auto d = nc.subscribe("sensors.>").subscribe([](int64_t x) { std::cout << x << "\n"; });
//     nc.publish(ripple::Signal::of({1, 2, 3}), "sensors.a");
//
// Link with libripple-nats (pkg-config ripple-nats); ripple.hpp alone does
// not need it. The conventions are ripple.hpp's: RAII handles, lambdas as
// callbacks, a failed call throws ripple::Error with the C status and the
// library's message (e.g. status RPL_ERR_FAILED, "rpl_nats_connect:
// Authorization Violation", and the NATS error as signal_error()). An empty
// queue group or durable name means none. Events arrive on a thread of the
// NATS client; compose deliver_on to move them.
#ifndef RIPPLE_NATS_HPP
#define RIPPLE_NATS_HPP

#include <ripple.hpp>
#include <ripple_nats.h>

#include <string>

namespace ripple {
namespace nats {

/// The domain of errors the NATS client or server reports (codes RPL_NATS_ERR_*).
inline constexpr const char *kErrorDomain = RPL_NATS_ERROR_DOMAIN;

enum class Codec : int32_t { msgpack = RPL_NATS_CODEC_MSGPACK, raw = RPL_NATS_CODEC_RAW };

/// The values of Connection::status().
enum State : int64_t {
    connected = RPL_NATS_CONNECTED,
    disconnected = RPL_NATS_DISCONNECTED,
    reconnected = RPL_NATS_RECONNECTED,
    closed = RPL_NATS_CLOSED
};

/// How to connect (rpl_nats_options): an empty string is not used.
struct Options {
    std::string name, token, user, password, creds_file, tls_ca, tls_cert, tls_key;
    Duration reconnect_wait = std::chrono::seconds(2);
    int32_t max_reconnects = -1;  ///< -1: for ever; 0: never reconnect
    Codec codec = Codec::msgpack;
};

namespace detail {
inline const char *opt(const std::string &s) noexcept { return s.empty() ? nullptr : s.c_str(); }
template <class F>
struct ServeTramp {
    /// rpl_nats_serve's handler: f(request) returns a Signal (its first value
    /// is the reply) or a value (the reply); a throw is an error reply.
    static rpl_signal_t *serve(void *ctx, const rpl_value *req) {
        return ripple::detail::signal_result([&] {
            auto &f = ripple::detail::unbox<F>(ctx);
            using R = std::decay_t<decltype(ripple::detail::call_with(f, Value::view(req)))>;
            if constexpr (std::is_same_v<R, Signal>) return ripple::detail::call_with(f, Value::view(req));
            else return Signal::return_(Value(ripple::detail::call_with(f, Value::view(req))));
        });
    }
};
}  // namespace detail

/// A connection to a NATS server or cluster (an rpl_nats_t). Copies share
/// it; the last one released closes it, as close() does at once.
class Connection : public ripple::detail::Handle<rpl_nats_t> {
  public:
    Connection() noexcept = default;
    static Connection adopt(rpl_nats_t *nc) noexcept { return Connection(nc); }

    /// Connects to urls (comma separated "nats://host:port" or "tls://...");
    /// blocks until connected or refused (throws ripple::Error).
    static Connection connect(const std::string &urls, const Options &o = {}) {
        rpl_nats_options c = RPL_NATS_OPTIONS_INIT;
        c.name = detail::opt(o.name), c.token = detail::opt(o.token);
        c.user = detail::opt(o.user), c.password = detail::opt(o.password);
        c.creds_file = detail::opt(o.creds_file), c.tls_ca = detail::opt(o.tls_ca);
        c.tls_cert = detail::opt(o.tls_cert), c.tls_key = detail::opt(o.tls_key);
        c.reconnect_wait_ns = ripple::detail::to_ns(o.reconnect_wait);
        c.max_reconnects = o.max_reconnects;
        c.codec = static_cast<int32_t>(o.codec);
        return Connection(ripple::detail::check(rpl_nats_connect(urls.c_str(), &c)));
    }

    /// Closes the connection now (every copy sees it closed): status() sends
    /// closed and completes, data subscriptions complete.
    void close() const noexcept {
        if (h_) rpl_disposable_dispose(reinterpret_cast<rpl_disposable_t *>(h_));
    }

    /// State values (nats::State): the current one, then each change.
    Signal status() const { return Signal::adopt(ripple::detail::check(rpl_nats_status(h_))); }
    /// The payloads of messages on subject (wildcards allowed), decoded.
    Signal subscribe(const std::string &subject, const std::string &queue_group = {}) const {
        return Signal::adopt(ripple::detail::check(rpl_nats_subscribe(h_, subject.c_str(), detail::opt(queue_group))));
    }
    /// (subject, payload, reply-to or nil) tuples.
    Signal subscribe_messages(const std::string &subject, const std::string &queue_group = {}) const {
        return Signal::adopt(
            ripple::detail::check(rpl_nats_subscribe_messages(h_, subject.c_str(), detail::opt(queue_group))));
    }
    /// Publishes each value of sig on subject; dispose to stop.
    Disposable publish(const Signal &sig, const std::string &subject) const {
        return Disposable::adopt(ripple::detail::check(rpl_nats_publish(h_, sig.get(), subject.c_str())));
    }
    /// The reply to request, then completion; fails with RPL_ERROR_TIMEOUT
    /// past timeout, RPL_NATS_ERR_NO_RESPONDERS when nobody serves subject.
    Signal request(const std::string &subject, Value request, Duration timeout = std::chrono::seconds(5)) const {
        return Signal::adopt(ripple::detail::check(
            rpl_nats_request(h_, subject.c_str(), request.release(), ripple::detail::to_ns(timeout))));
    }
    /// Answers requests on subject with f(request): a Signal whose first
    /// value is the reply, or the reply itself; a throw is an error reply.
    template <class F>
    Disposable serve(const std::string &subject, F &&f, const std::string &queue_group = {}) const {
        using Fn = std::decay_t<F>;
        return Disposable::adopt(ripple::detail::check(
            rpl_nats_serve(h_, subject.c_str(), detail::opt(queue_group), &detail::ServeTramp<Fn>::serve,
                           ripple::detail::box(std::forward<F>(f)), &ripple::detail::Box<Fn>::release)));
    }
    /// Creates or updates a JetStream stream (subjects comma separated;
    /// replicas 0 means 1); throws with the server's reason when refused.
    void stream_ensure(const std::string &stream, const std::string &subjects, int32_t replicas = 0) const {
        ripple::detail::check(rpl_nats_stream_ensure(h_, stream.c_str(), subjects.c_str(), replicas));
    }
    /// Publishes each value of sig to JetStream; sends each acknowledged
    /// value's stream sequence.
    Signal stream_publish(const Signal &sig, const std::string &subject) const {
        return Signal::adopt(ripple::detail::check(rpl_nats_stream_publish(h_, sig.get(), subject.c_str())));
    }
    /// The stream's messages, at least once (acknowledged after on_next
    /// returned); a durable outlives the subscription; start_sequence 0
    /// resumes it (or starts at the beginning), n > 0 starts at n.
    Signal stream_subscribe(const std::string &stream, const std::string &durable = {},
                            uint64_t start_sequence = 0) const {
        return Signal::adopt(
            ripple::detail::check(rpl_nats_stream_subscribe(h_, stream.c_str(), detail::opt(durable), start_sequence)));
    }

  private:
    explicit Connection(rpl_nats_t *nc) noexcept : Handle(nc) {}
};

}  // namespace nats
}  // namespace ripple

#endif  // RIPPLE_NATS_HPP
