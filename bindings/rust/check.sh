#!/usr/bin/env bash
# Run by `make bindings-check` (and so `make check`): `cargo test --offline` against the
# freshly staged library, then a throwaway program depending on both crates by path is
# built offline, with the library found through pkg-config, and run.
# Env: STAGE (staged prefix with lib/ and include/), OUT (build dir); RIPPLE_CHECK=unit
# (make test) stops after cargo test.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${STAGE:?STAGE must point at the staged install prefix}"
STAGE="$(cd "$STAGE" && pwd)"   # cargo runs in other directories
OUT="${OUT:-$HERE/target}"
test -f "$STAGE/include/ripple.h" || { echo "rust: no $STAGE/include/ripple.h" >&2; exit 1; }
if ! command -v cargo >/dev/null; then
  echo "rust: SKIPPED, cargo is not installed"
  exit 0
fi

# The header parity test reads the staged header; the tests load the staged library.
export RIPPLE_LIB_DIR="$STAGE/lib" RIPPLE_INCLUDE_DIR="$STAGE/include"
export LD_LIBRARY_PATH="$STAGE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="$HERE/target"

echo "rust: cargo test --offline against $STAGE/lib"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
(cd "$HERE" && cargo test --offline --quiet) >"$log" 2>&1 || rc=$?
# The panic tests print the panics they catch; show only the summaries (all on failure).
if [ "$rc" -ne 0 ]; then cat "$log" >&2; echo "rust: cargo test failed ($rc)" >&2; exit "$rc"; fi
awk '/^test result:/ { n += $4; f += $6; k++ } END { printf "  %d tests passed, %d failed, in %d test binaries\n", n, f, k }' "$log"
if [ "${RIPPLE_CHECK:-}" = unit ]; then echo "rust: unit tests OK"; exit 0; fi

echo "rust: a program depending on the crates by path, library found by pkg-config"
APP="$OUT/rust-consumer"
rm -rf "$APP" && mkdir -p "$APP/src"
cat > "$APP/Cargo.toml" <<TOML
[package]
name = "rust-consumer"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
ripple = { path = "$HERE/ripple" }
ripple-sys = { path = "$HERE/ripple-sys" }

[workspace]
TOML
cat > "$APP/src/main.rs" <<'RS'
use ripple::{Error, Signal, Subject, Subscription, Value};
use std::sync::{Arc, Mutex};

fn main() {
    let subject = Subject::new();
    let signal: Signal = subject.signal();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s2 = seen.clone();
    let sub: Subscription = signal
        .map(|v| Value::Int(v.as_int().unwrap() * 10))
        .filter(|v| v.as_int().unwrap() > 10)
        .subscribe_next(move |v| s2.lock().unwrap().push(v.clone()));
    subject.send_next(Value::Int(1));
    subject.send_next(Value::Int(2));
    sub.dispose();
    subject.send_next(Value::Int(3));
    subject.send_error(Error::new("app", 1, "done"));
    Subject::new().send_completed();
    assert_eq!(*seen.lock().unwrap(), vec![Value::Int(20)]);
    assert_eq!(i64::from(unsafe { ripple_sys::rpl_version() }), i64::from(ripple_sys::RPL_VERSION_NUMBER));
    println!("  consumer OK: {:?}", seen.lock().unwrap());
}
RS
(cd "$APP" && env -u RIPPLE_LIB_DIR PKG_CONFIG_PATH="$STAGE/lib/pkgconfig" CARGO_TARGET_DIR="$APP/target" \
  cargo run --offline --quiet)
# The build script must have taken the library directory from pkg-config.
grep -qx "cargo:rustc-link-search=native=$STAGE/lib" "$APP"/target/debug/build/ripple-sys-*/output \
  || { echo "rust: ripple-sys did not find $STAGE/lib through pkg-config" >&2; exit 1; }
rm -rf "$APP"
echo "rust: OK"
