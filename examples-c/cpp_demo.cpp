// cpp_demo: the C++ binding (bindings/cpp/ripple.hpp) in a few lines.
// RAII handles, lambdas as callbacks, typed values, operators as methods,
// subjects, a test scheduler, scoped subscriptions, exceptions and the
// blocking helpers.
#include <ripple.hpp>

#include <iostream>
#include <string>
#include <thread>

int main() {
    std::cout << "libripple " << rpl_version_string() << "\n";

    // 1. A cold signal from a lambda; the subscribe lambda runs per subscriber.
    auto words = ripple::Signal::create([](const ripple::Subscriber &s) {
        for (const char *w : {"reactive", "signals", "in", "C++"}) s.send_next(w);
        s.send_completed();
    });
    words.subscribe([](const std::string &w) { std::cout << "  next " << w << "\n"; },
                    [](const ripple::SignalError &e) { std::cout << "  error " << e.message() << "\n"; },
                    [] { std::cout << "  completed\n"; });

    // 2. Operators are methods; blocking helpers turn a signal into values.
    auto squares = ripple::Signal::of({1, 2, 3, 4, 5})
                       .map([](int64_t x) { return x * x; })
                       .filter([](int64_t x) { return x % 2 == 1; })
                       .scan(0, [](int64_t acc, int64_t x) { return acc + x; })
                       .to_vector<int>();
    std::cout << "  running sum of odd squares:";
    for (int x : squares) std::cout << " " << x;
    std::cout << "\n";
    auto pairs = ripple::Signal::of({1, 2}).zip(ripple::Signal::of({"one", "two"}));
    for (auto &[n, name] : pairs.to_vector<std::tuple<int, std::string>>())
        std::cout << "  zip: " << n << " = " << name << "\n";

    // 3. Subjects are hot signals you send into.
    ripple::BehaviorSubject temperature(20.5);
    auto alerts = temperature.filter([](double t) { return t > 25; })
                      .subscribe_scoped([](double t) { std::cout << "  alert: " << t << " C\n"; });
    for (double t : {22.0, 26.5, 24.0, 30.0}) temperature.send_next(t);
    std::cout << "  last temperature " << temperature.value<double>() << "\n";

    // 4. Time without sleeping: a test scheduler drives interval + take.
    ripple::TestScheduler clock;
    auto ticks = ripple::Signal::interval(std::chrono::seconds(1), clock).take(3).subscribe(
        [&clock](int64_t i) { std::cout << "  tick " << i << " at " << clock.now().count() / 1000000000 << " s\n"; });
    clock.advance_by(std::chrono::seconds(5));

    // 5. A producer on another thread, and a scoped subscription.
    ripple::Subscriber kept;
    auto later = ripple::Signal::create([&kept](const ripple::Subscriber &s) {
        kept = s;
        return [] { std::cout << "  producer cleaned up\n"; };
    });
    {
        auto sub = later.subscribe_scoped([](int64_t x) { std::cout << "  from a thread: " << x << "\n"; });
        std::thread([kept] { kept.send_next(1); kept.send_next(2); }).join();
    }  // the subscription is disposed here
    kept.send_next(3);  // ignored: nobody listens any more

    // 6. Exceptions: a throwing producer becomes the signal's error, and a
    //    failed blocking call throws ripple::Error.
    auto failing = ripple::Signal::create([](const ripple::Subscriber &) -> void {
        throw std::runtime_error("disk on fire");
    });
    try {
        failing.wait();
    } catch (const ripple::Error &e) {
        std::cout << "  caught: " << e.what() << "\n";
    }
    return 0;
}
