// cpp_demo: the C++ binding (bindings/cpp/ripple.hpp) in a few lines.
// RAII handles, lambdas as callbacks, typed values, exceptions, scoped
// subscriptions and the blocking helpers.
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

    // 2. Blocking helpers turn a signal into plain values.
    auto all = ripple::Signal::of({1, 2, 3}).to_vector<int>();
    std::cout << "  to_vector: " << all.size() << " values, last " << all.back() << "\n";

    // 3. A producer on another thread, and a scoped subscription.
    ripple::Subscriber kept;
    auto later = ripple::Signal::create([&kept](const ripple::Subscriber &s) {
        kept = s;
        return [] { std::cout << "  producer cleaned up\n"; };
    });
    {
        auto sub = later.subscribe_scoped([](int64_t x) { std::cout << "  tick " << x << "\n"; });
        std::thread([kept] { kept.send_next(1); kept.send_next(2); }).join();
    }  // the subscription is disposed here
    kept.send_next(3);  // ignored: nobody listens any more

    // 4. Exceptions: a throwing producer becomes the signal's error, and a
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
