// Type mismatches the typed layer (ripple::Observable<T>) must reject at
// compile time. check.sh compiles this file with -DCASE=0 (must compile: the
// well-typed uses) and with each -DCASE=n, n >= 1 (each must fail to compile).
#include "ripple.hpp"

#include <string>
#include <tuple>

using namespace ripple;

#ifndef CASE
#define CASE 0
#endif
#define CASES 10

int main() {
    Observable<int64_t> ints = Observable<int64_t>::of({1, 2, 3});
    Observable<std::string> strings = Observable<std::string>::just("a");
    SubjectOf<int64_t> subject;
    (void)ints; (void)strings; (void)subject;
#if CASE == 0
    ints.map([](int64_t x) { return x + 1; }).subscribe([](int64_t) {});
    strings.filter([](const std::string &s) { return s.empty(); });
    subject.send_next(1);
#elif CASE == 1
    ints.map([](const std::string &s) { return s; });          // a string lambda on ints
#elif CASE == 2
    strings.filter([](int64_t x) { return x > 0; });            // an int predicate on strings
#elif CASE == 3
    ints.subscribe([](const std::string &) {});                 // subscribe with the wrong type
#elif CASE == 4
    ints.scan(std::string(), [](int64_t a, int64_t x) { return a + x; });  // accumulator type
#elif CASE == 5
    subject.send_next("text");                                  // sending a string into ints
#elif CASE == 6
    Observable<int64_t> other = strings;                        // no implicit retyping
    (void)other;
#elif CASE == 7
    ints.concat(strings);                                       // concatenating other types
#elif CASE == 8
    ints.flatten_map([](int64_t) { return Signal::empty(); });  // flatten_map needs an Observable
#elif CASE == 9
    ints.zip(strings).map([](const std::tuple<std::string, int64_t> &) { return 0; });  // tuple order
#elif CASE == 10
    Observable<std::tuple<int64_t, std::string>> t = ints.zip(ints);  // tuple element types
    (void)t;
#endif
    return 0;
}
