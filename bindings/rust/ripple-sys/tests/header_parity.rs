//! Keeps ripple-sys in step with `ripple.h` as clang reads it: the manifest
//! (`abi/api.json`, written with `src/generated.rs` by `scripts/gen_api.py`) lists every
//! function with its C signature, every integer and string constant with its value, and
//! every struct's size, alignment and field offsets as the C compiler lays them out. This
//! test fails on a function or constant missing, extra or different here, on a struct
//! whose Rust layout differs from C's, and on a library that does not export every
//! function or whose version differs from the header's.
use std::collections::BTreeMap;

/// The manifest's entries of one section, one JSON object per line (the generator
/// writes it so): `"key": value` pairs are read by simple scanning.
fn manifest_section(section: &str) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../abi/api.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with(&format!("  \"{section}\": [")) {
            inside = true;
        } else if inside && line.starts_with("  ]") {
            break;
        } else if inside {
            out.push(line.trim().trim_end_matches(',').to_string());
        }
    }
    assert!(!out.is_empty(), "no {section} in {path}");
    out
}

/// The JSON string value of `key` in a one-line object.
fn string_field(obj: &str, key: &str) -> Option<String> {
    let start = obj.find(&format!("\"{key}\": \""))? + key.len() + 5;
    let mut s = String::new();
    let mut chars = obj[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(s),
            '\\' => s.push(chars.next()?),
            _ => s.push(c),
        }
    }
    None
}

/// The JSON integer value of `key` in a one-line object.
fn int_field(obj: &str, key: &str) -> Option<i128> {
    let start = obj.find(&format!("\"{key}\": "))? + key.len() + 4;
    let digits: String = obj[start..].chars().take_while(|c| *c == '-' || c.is_ascii_digit()).collect();
    digits.parse().ok()
}

fn compare<V: PartialEq + std::fmt::Debug>(what: &str, manifest: &BTreeMap<String, V>, ours: &BTreeMap<String, V>) {
    let mut problems = Vec::new();
    for (name, v) in manifest {
        match ours.get(name) {
            None => problems.push(format!("{what} {name} is in ripple.h but not in ripple-sys")),
            Some(o) if o != v => problems.push(format!("{what} {name}: ripple.h {v:?}, ripple-sys {o:?}")),
            _ => {}
        }
    }
    for name in ours.keys().filter(|n| !manifest.contains_key(*n)) {
        problems.push(format!("{what} {name} is in ripple-sys but not in ripple.h"));
    }
    assert!(problems.is_empty(), "ripple-sys is out of step with ripple.h (make regen):\n  {}", problems.join("\n  "));
}

#[test]
fn every_function_is_declared_with_the_headers_signature() {
    let manifest: BTreeMap<String, String> = manifest_section("functions")
        .iter()
        .map(|o| (string_field(o, "name").unwrap(), string_field(o, "signature").unwrap()))
        .collect();
    assert!(manifest.len() > 100, "read only {} functions", manifest.len());
    let ours: BTreeMap<String, String> =
        ripple_sys::FUNCTIONS.iter().map(|(n, s)| (n.to_string(), s.to_string())).collect();
    assert_eq!(ours.len(), ripple_sys::FUNCTIONS.len(), "a function is declared twice");
    compare("function", &manifest, &ours);
}

#[test]
fn every_constant_has_the_headers_value() {
    let mut ints = BTreeMap::new();
    let mut strings = BTreeMap::new();
    for o in manifest_section("constants") {
        let name = string_field(&o, "name").unwrap();
        match int_field(&o, "value") {
            Some(v) => {
                ints.insert(name, v);
            }
            None => {
                strings.insert(name, string_field(&o, "value").unwrap());
            }
        }
    }
    let ours: BTreeMap<String, i128> = ripple_sys::CONSTANTS.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    compare("constant", &ints, &ours);
    let text = |b: &[u8]| std::str::from_utf8(&b[..b.len() - 1]).unwrap().to_string();
    assert_eq!(text(ripple_sys::RPL_VERSION_STRING), strings["RPL_VERSION_STRING"]);
    assert_eq!(text(ripple_sys::RPL_ERROR_DOMAIN), strings["RPL_ERROR_DOMAIN"]);
}

/// Size and alignment of each struct as rustc lays out the generated `#[repr(C)]` type.
fn rust_layout(name: &str) -> (usize, usize, Vec<(&'static str, usize)>) {
    use std::mem::{align_of, offset_of, size_of};
    use ripple_sys::*;
    match name {
        "rpl_value" => (size_of::<rpl_value>(), align_of::<rpl_value>(),
            vec![("type", offset_of!(rpl_value, type_)), ("reserved_", offset_of!(rpl_value, reserved_)),
                 ("as", offset_of!(rpl_value, as_))]),
        "rpl_observer" => (size_of::<rpl_observer>(), align_of::<rpl_observer>(),
            vec![("version", offset_of!(rpl_observer, version)), ("on_next", offset_of!(rpl_observer, on_next)),
                 ("on_error", offset_of!(rpl_observer, on_error)),
                 ("on_completed", offset_of!(rpl_observer, on_completed)),
                 ("release", offset_of!(rpl_observer, release)), ("ctx", offset_of!(rpl_observer, ctx))]),
        "rpl_trace_event" => (size_of::<rpl_trace_event>(), align_of::<rpl_trace_event>(),
            vec![("version", offset_of!(rpl_trace_event, version)), ("kind", offset_of!(rpl_trace_event, kind)),
                 ("signal_name", offset_of!(rpl_trace_event, signal_name)),
                 ("subscription", offset_of!(rpl_trace_event, subscription)),
                 ("value", offset_of!(rpl_trace_event, value)), ("error", offset_of!(rpl_trace_event, error))]),
        "rpl_marble_value" => (size_of::<rpl_marble_value>(), align_of::<rpl_marble_value>(),
            vec![("key", offset_of!(rpl_marble_value, key)), ("value", offset_of!(rpl_marble_value, value))]),
        other => panic!("a struct this test does not know: {other} (add it here)"),
    }
}

#[test]
fn every_struct_has_the_c_layout() {
    for (name, size, align, fields) in ripple_sys::LAYOUTS {
        let (rsize, ralign, rfields) = rust_layout(name);
        assert_eq!((rsize, ralign), (*size, *align), "{name}: size and alignment (Rust, C)");
        let c: Vec<(&str, usize)> = fields.to_vec();
        assert_eq!(rfields, c, "{name}: field offsets (Rust, C)");
    }
    let manifest = manifest_section("structs");
    assert_eq!(manifest.len(), ripple_sys::LAYOUTS.len(), "structs in the manifest and in ripple-sys");
    for o in manifest {
        let name = string_field(&o, "name").unwrap();
        let (_, size, align, _) = ripple_sys::LAYOUTS.iter().find(|l| l.0 == name).expect("struct in LAYOUTS");
        assert_eq!((int_field(&o, "size"), int_field(&o, "align")), (Some(*size as i128), Some(*align as i128)), "{name}");
    }
}

#[test]
fn the_library_exports_every_function_and_matches_the_header_version() {
    for (name, addr) in ripple_sys::function_addresses() {
        assert!(!addr.is_null(), "{name} did not resolve");
    }
    let loaded = unsafe { ripple_sys::rpl_version() };
    assert_eq!(loaded as i128, ripple_sys::RPL_VERSION_NUMBER as i128, "header and loaded library differ");
    let s = unsafe { std::ffi::CStr::from_ptr(ripple_sys::rpl_version_string()) };
    assert_eq!(s.to_bytes_with_nul(), ripple_sys::RPL_VERSION_STRING);
}
