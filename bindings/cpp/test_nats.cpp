// Tests of ripple_nats.hpp against a real nats-server: Tests/nats/run.py
// (case cpp, in make check-nats) starts the servers and passes their URLs:
//     test_nats <url with JetStream> <url of a server wanting token "s3cret">
//               <url of a server in operator mode> <creds file of a user it accepts>
//               <creds file of a user of an account it does not trust> <path with no file>
// CHECK records a failure and goes on; main prints "N passed, M failed" and
// exits non-zero on any failure.
#include <ripple_nats.hpp>  // the installed one
#include "check.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <unistd.h>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace ripple;
using namespace std::chrono_literals;

/// One subscription's values, waited on from the test thread.
struct Rec {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<Value> values;
    SignalError error;
    bool done = false;
    Disposable sub(const Signal &s) {
        return s.subscribe(
            [this](const Value &v) { std::lock_guard<std::mutex> g(mu); values.push_back(v); cv.notify_all(); },
            [this](const SignalError &e) { std::lock_guard<std::mutex> g(mu); error = e; cv.notify_all(); },
            [this] { std::lock_guard<std::mutex> g(mu); done = true; cv.notify_all(); });
    }
    template <class P>
    bool wait(P p, std::chrono::milliseconds t = 10s) {
        std::unique_lock<std::mutex> l(mu);
        return cv.wait_for(l, t, [&] { return p(*this); });
    }
    size_t count() { std::lock_guard<std::mutex> g(mu); return values.size(); }
};

static std::string unique(const char *prefix) {
    static int n;
    return std::string(prefix) + "." + std::to_string(::getpid()) + "_" + std::to_string(++n);
}

/// Runs f, which must throw ripple::Error; returns it.
template <class F>
static Error expect_error(F f) {
    try {
        f();
    } catch (const Error &e) {
        return e;
    }
    failed++;
    std::fprintf(stderr, "FAIL: no ripple::Error thrown\n");
    return Error(RPL_OK, "");
}

static void test_pubsub(const nats::Connection &nc) {
    std::string subject = unique("cpp.values");
    Rec r, star, msgs, g0, g1;
    Disposable d = r.sub(nc.subscribe(subject));
    Disposable ds = star.sub(nc.subscribe(subject + ".*")), dm = msgs.sub(nc.subscribe_messages(subject + ".>"));
    Disposable q0 = g0.sub(nc.subscribe(subject + ".q", "workers")), q1 = g1.sub(nc.subscribe(subject + ".q", "workers"));
    nc.publish(Signal::of({Value(1), Value("two"), Value(2.5), Value(true), Value(nullptr),
                           Value::tuple({Value(3), Value::bytes("\x00\x01", 2)})}),
               subject);
    CHECK(r.wait([](Rec &x) { return x.values.size() == 6; }));
    CHECK(r.values.size() == 6 && r.values[0].as_int() == 1 && r.values[1].as_string() == "two" &&
          r.values[2].as_double() == 2.5 && r.values[3].as_bool() && r.values[4].is_nil() &&
          r.values[5].items().size() == 2 && r.values[5].items()[1].as_bytes().size() == 2);
    nc.publish(Signal::of({Value("x")}), subject + ".a");
    std::vector<Value> work;
    for (int i = 0; i < 20; i++) work.emplace_back(i);
    nc.publish(Signal::of(work), subject + ".q");
    CHECK(star.wait([](Rec &x) { return x.values.size() == 21; }));
    CHECK(msgs.wait([](Rec &x) { return x.values.size() == 21; }));
    std::this_thread::sleep_for(300ms);
    CHECK(g0.count() + g1.count() == 20);  // each message to one member of the group
    CHECK(msgs.values[0].items().size() == 3 && msgs.values[0].items()[0].as_string() == subject + ".a" &&
          msgs.values[0].items()[1].as_string() == "x" && msgs.values[0].items()[2].is_nil());
    for (auto *x : {&d, &ds, &dm, &q0, &q1}) x->dispose();
}

static void test_request_serve(const nats::Connection &nc) {
    std::string subject = unique("cpp.svc");
    Disposable s = nc.serve(subject, [](int64_t x) { return x * 2; });
    std::string subject2 = unique("cpp.svc");
    Disposable s2 = nc.serve(subject2, [](const Value &v) -> Signal {
        if (v.is_string() && v.as_string() == "boom") throw std::runtime_error("no boom here");
        return Signal::return_(Value("from a signal"));
    });
    CHECK(nc.request(subject, 21).first().as_int() == 42);
    CHECK(nc.request(subject2, 1).first().as_string() == "from a signal");
    Error e = expect_error([&] { nc.request(subject2, "boom").first(10s); });
    CHECK(e.status() == RPL_ERR_FAILED && e.signal_error().message().find("no boom here") != std::string::npos);
    // A typed handler given the wrong type: an error reply, not a timeout.
    e = expect_error([&] { nc.request(subject, "not an int").first(10s); });
    CHECK(e.status() == RPL_ERR_FAILED && e.signal_error());
    e = expect_error([&] { nc.request(unique("cpp.nobody"), 1).first(10s); });
    CHECK(e.signal_error().domain() == nats::kErrorDomain && e.signal_error().code() == RPL_NATS_ERR_NO_RESPONDERS);
    std::string silent = unique("cpp.silent");
    Disposable hold = nc.subscribe(silent).subscribe([](const Value &) {});
    e = expect_error([&] { nc.request(silent, 1, 200ms).first(10s); });
    CHECK(e.signal_error().domain() == RPL_ERROR_DOMAIN && e.signal_error().code() == RPL_ERROR_TIMEOUT);
    hold.dispose(), s.dispose(), s2.dispose();
}

static void test_status_close(const std::string &url) {
    nats::Connection c = nats::Connection::connect(url);
    Rec r;
    Disposable d = r.sub(c.status());
    CHECK(r.wait([](Rec &x) { return x.values.size() == 1; }) && r.values[0].as_int() == nats::connected);
    nats::Connection copy = c;
    copy.close();
    CHECK(r.wait([](Rec &x) { return x.done; }));
    CHECK(r.values.size() == 2 && r.values[1].as_int() == nats::closed);
}

static void test_raw(const std::string &url) {
    nats::Options o;
    o.codec = nats::Codec::raw;
    nats::Connection raw = nats::Connection::connect(url, o);
    std::string subject = unique("cpp.raw");
    Rec r;
    Disposable d = r.sub(raw.subscribe(subject));
    raw.publish(Signal::of({Value("text")}), subject);
    CHECK(r.wait([](Rec &x) { return x.values.size() == 1; }));
    CHECK(r.values.size() == 1 && r.values[0].as_bytes().size() == 4);
    d.dispose();
}

static void test_jetstream(const nats::Connection &nc) {
    std::string stream = "CPP" + std::to_string(::getpid());
    std::string subject = "cpp" + std::to_string(::getpid()) + ".events";
    nc.stream_ensure(stream, subject, 1);
    std::vector<Value> ten;
    for (int i = 0; i < 10; i++) ten.emplace_back(i);
    std::vector<int64_t> seqs = nc.stream_publish(Signal::of(ten), subject).to_vector<int64_t>(30s);
    CHECK(seqs.size() == 10 && seqs.front() == 1 && seqs.back() == 10);
    std::vector<int64_t> a = nc.stream_subscribe(stream, "cpp-durable").take(4).to_vector<int64_t>(30s);
    std::vector<int64_t> b = nc.stream_subscribe(stream, "cpp-durable").take(6).to_vector<int64_t>(30s);
    CHECK(a == std::vector<int64_t>({0, 1, 2, 3}));  // the durable resumes where it left off
    CHECK(b == std::vector<int64_t>({4, 5, 6, 7, 8, 9}));
    CHECK(nc.stream_subscribe(stream, "", 8).take(3).to_vector<int64_t>(30s) == std::vector<int64_t>({7, 8, 9}));
    Error e = expect_error([&] { nc.stream_subscribe("NOSUCH" + stream, "x").first(30s); });
    CHECK(e.signal_error().code() == RPL_NATS_ERR_NOT_FOUND);
}

static void test_errors(const nats::Connection &nc, const std::string &url, const std::string &token_url) {
    Error e = expect_error([&] { nc.subscribe("a b"); });
    CHECK(e.status() == RPL_ERR_INVALID);
    CHECK(std::string(e.what()) == "rpl_nats_subscribe: subject \"a b\" contains white space or a control character");
    e = expect_error([&] { nc.publish(Signal::never(), "a.>"); });
    CHECK(e.status() == RPL_ERR_INVALID && std::string(e.what()).rfind("rpl_nats_publish: ", 0) == 0);
    e = expect_error([&] { nc.request("a", 1, 0ms); });
    CHECK(e.status() == RPL_ERR_INVALID && std::string(e.what()) == "rpl_nats_request: timeout_ns is 0");
    e = expect_error([&] { nc.stream_ensure("a.b", "x"); });
    CHECK(e.status() == RPL_ERR_INVALID);
    nats::Options bad;
    bad.codec = static_cast<nats::Codec>(9);
    e = expect_error([&] { nats::Connection::connect(url, bad); });
    CHECK(e.status() == RPL_ERR_INVALID && std::string(e.what()) == "rpl_nats_connect: unknown codec 9");
    nats::Options guess;
    guess.token = "guess";
    guess.max_reconnects = 0;
    e = expect_error([&] { nats::Connection::connect(token_url, guess); });
    CHECK(e.status() == RPL_ERR_FAILED && std::string(e.what()) == "rpl_nats_connect: Authorization Violation");
    CHECK(e.signal_error().domain() == nats::kErrorDomain);
    nats::Options right;
    right.token = "s3cret";
    CHECK(nats::Connection::connect(token_url, right).status().first(10s).as_int() == nats::connected);
    nats::Connection none;  // not connected: NULL, refused by the library
    e = expect_error([&] { none.status(); });
    CHECK(e.status() == RPL_ERR_NULL && std::string(e.what()) == "rpl_nats_status: nc is NULL");
}

// creds_file against a server in operator (JWT) mode.
static void test_creds(const std::string &url, const std::string &good, const std::string &foreign,
                       const std::string &missing) {
    nats::Options o;
    o.creds_file = good;
    o.max_reconnects = 0;
    Rec r;  // outlives the connection, whose close completes its subscription
    {
        nats::Connection nc = nats::Connection::connect(url, o);
        std::string subject = unique("cpp.creds");
        Disposable d = r.sub(nc.subscribe(subject));
        nc.publish(Signal::of({Value(1), Value("two")}), subject);
        CHECK(r.wait([](Rec &x) { return x.values.size() == 2; }));
        CHECK(r.values.size() == 2 && r.values[0].as_int() == 1 && r.values[1].as_string() == "two");
        d.dispose();
    }
    o.creds_file = foreign;  // a user signed by an account the server does not trust
    Error e = expect_error([&] { nats::Connection::connect(url, o); });
    CHECK(e.status() == RPL_ERR_FAILED && std::string(e.what()) == "rpl_nats_connect: Authorization Violation");
    CHECK(e.signal_error().domain() == nats::kErrorDomain && e.signal_error().code() == RPL_NATS_ERR_AUTH_FAILED);
    o.creds_file = missing;
    e = expect_error([&] { nats::Connection::connect(url, o); });
    CHECK(e.status() == RPL_ERR_FAILED &&
          std::string(e.what()) == "rpl_nats_connect: creds_file \"" + missing + "\" cannot be read: No such file or directory");
}

int main(int argc, char **argv) {
    if (argc < 7) {
        std::fprintf(stderr, "usage: test_nats <url> <token url> <creds url> <creds file> <foreign creds file> <missing path>\n");
        return 2;
    }
    std::string url = argv[1], token_url = argv[2];
    {
        nats::Options o;
        o.name = "ripple-cpp-test";
        nats::Connection nc = nats::Connection::connect(url, o);
        test_pubsub(nc);
        test_request_serve(nc);
        test_jetstream(nc);
        test_errors(nc, url, token_url);
    }
    test_status_close(url);
    test_raw(url);
    test_creds(argv[3], argv[4], argv[5], argv[6]);
    std::printf("test_nats (C++): %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
