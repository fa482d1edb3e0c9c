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
#define CASES 14

int main() {
    Observable<int64_t> ints = Observable<int64_t>::of({1, 2, 3});
    Observable<std::string> strings = Observable<std::string>::return_("a");
    SubjectOf<int64_t> subject;
    (void)ints; (void)strings; (void)subject;
#if CASE == 0
    ints.map([](int64_t x) { return x + 1; }).subscribe([](int64_t) {});
    strings.filter([](const std::string &s) { return s.empty(); });
    subject.send_next(1);
    ints.zip(strings).reduce_each([](int64_t, const std::string &) { return true; }).not_();
    ints.group_by([](int64_t x) { return x % 2; }).subscribe([](const std::tuple<int64_t, Observable<int64_t>> &) {});
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
#elif CASE == 11
    ints.merge(strings);                                        // merging other types
#elif CASE == 12
    ints.reduce_each([](int64_t a, int64_t b) { return a + b; });  // reduce_each needs tuples
#elif CASE == 13
    ints.not_();                                                // not_ needs bools
#elif CASE == 14
    ints.group_by([](int64_t x) { return x; }).subscribe([](const std::tuple<int64_t, Observable<std::string>> &) {});
#endif
    return 0;
}
