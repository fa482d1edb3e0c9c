// swift-tools-version: 6.0
import PackageDescription

// No unsafeFlags here: the flags that shape the shipped libripple.so (static
// Swift runtime, SONAME, version script) are passed by the Makefile, so the
// package stays usable as an ordinary SwiftPM dependency and `swift test` works.
let package = Package(
    name: "ripple",
    products: [
        .library(name: "ripple", type: .dynamic, targets: ["RippleC"]),
        .library(name: "Ripple", targets: ["Ripple"]),
    ],
    targets: [
        // Include/ripple.h, the public C contract, as a module (CRipple).
        .systemLibrary(name: "CRipple", path: "Include"),
        // Per-thread state read on every delivery (two instructions via %fs).
        .target(name: "RippleSupport"),
        // The built-in trace hook (rpl_trace_write, RIPPLE_TRACE) and the text
        // of a value, written in C against the public API.
        .target(name: "RippleTraceWriter", dependencies: ["RippleSupport"]),
        // The reactive runtime, in plain Swift.
        .target(name: "Ripple", dependencies: ["RippleSupport"]),
        // The C entry points: a thin shim of handles over the runtime.
        .target(name: "RippleC", dependencies: ["Ripple", "CRipple", "RippleTraceWriter"]),
        .testTarget(name: "RippleTests", dependencies: ["Ripple", "RippleC", "CRipple"]),
    ]
)
