//! Raw FFI declarations of libripple: one `extern "C"` declaration per function of
//! `Include/ripple.h`, under the same name, plus its types and constants.
//!
//! Everything here is `unsafe` and follows the C contract exactly (ownership, +1 returns,
//! consumed values); the `ripple` crate is the safe API on top.
//!
//! The declarations are generated from the header (`src/generated.rs`, written by
//! `scripts/gen_api.py` from clang's reading of `ripple.h`; `make regen` refreshes it and
//! `make check` fails when it is stale). [`FUNCTIONS`], [`CONSTANTS`] and [`LAYOUTS`]
//! record what was generated; the `header_parity` test compares them with the manifest
//! (`abi/api.json`: each function's C signature, each constant's value, each struct's
//! layout) and with the loaded library. Anonymous C enums are `c_int`, as in C.
#![allow(non_camel_case_types)]
#![no_std]

include!("generated.rs");

/// `RPL_OBSERVER_INIT`.
pub const RPL_OBSERVER_INIT: rpl_observer = rpl_observer {
    version: RPL_OBSERVER_VERSION as u32,
    on_next: None,
    on_error: None,
    on_completed: None,
    release: None,
    ctx: core::ptr::null_mut(),
};
