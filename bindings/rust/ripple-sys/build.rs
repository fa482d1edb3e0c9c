//! Finds libripple for the linker, in this order:
//! 1. `RIPPLE_LIB_DIR` (a directory holding libripple.so),
//! 2. the `pkg-config` program (`ripple.pc`; run as a process, so no crate dependency),
//! 3. the linker's default search path.
//!
//! The library directory found is passed on to dependents as `DEP_RIPPLE_LIB_DIR`.
use std::env;
use std::path::Path;
use std::process::Command;

fn main() {
    for var in ["RIPPLE_LIB_DIR", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo:rerun-if-changed=build.rs");

    let lib_dir = from_env().or_else(from_pkg_config);
    if let Some(dir) = &lib_dir {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:lib_dir={dir}");
    }
    println!("cargo:rustc-link-lib=dylib=ripple");
}

fn from_env() -> Option<String> {
    let dir = env::var("RIPPLE_LIB_DIR").ok().filter(|d| !d.is_empty())?;
    if !Path::new(&dir).is_dir() {
        println!("cargo:warning=RIPPLE_LIB_DIR={dir} is not a directory");
    }
    Some(dir)
}

fn from_pkg_config() -> Option<String> {
    let program = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into());
    let out = Command::new(program).args(["--libs-only-L", "ripple"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    // `-L/usr/local/lib` (or nothing when the library is in a default directory).
    String::from_utf8(out.stdout)
        .ok()?
        .split_whitespace()
        .find_map(|flag| flag.strip_prefix("-L").map(str::to_owned))
}
