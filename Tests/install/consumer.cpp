// Built by `make check-install` and the .deb check against an installed
// ripple.hpp (found through pkg-config, like ripple.h), to show the C++ header
// is installed and works with the installed library.
#include <ripple.hpp>

#include <cstdio>

int main() {
    auto sum = ripple::Signal::of({1, 2, 3, 4})
                   .map([](int64_t x) { return x * 10; })
                   .scan(0, [](int64_t acc, int64_t x) { return acc + x; })
                   .to_vector<int>();
    std::printf("installed ripple.hpp: last running sum %d\n", sum.empty() ? -1 : sum.back());
    return sum.size() == 4 && sum.back() == 100 ? 0 : 1;
}
