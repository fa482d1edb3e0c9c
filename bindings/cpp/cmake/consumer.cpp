// Built against the installed ripple.hpp only (no -I into the source tree):
// by CMake through find_package(Ripple), and by check.sh through pkg-config.
#include <ripple.hpp>

#include <cstdio>

int main() {
    ripple::SubjectOf<int64_t> numbers;
    int64_t last = 0;
    auto sub = numbers.map([](int64_t x) { return x * 10; })
                   .scan(0, [](int64_t acc, int64_t x) { return acc + x; })
                   .subscribe_scoped([&last](int64_t total) { last = total; });
    for (int64_t i = 1; i <= 4; i++) numbers.send_next(i);
    std::printf("installed ripple.hpp: running total %lld\n", static_cast<long long>(last));
    return last == 100 ? 0 : 1;
}
