//! Keeps ripple-sys in step with `ripple.h`: parses the header and fails on a function
//! or integer constant that is missing from the crate, extra in the crate, or differs in
//! parameter count / value; then checks that the loaded library exports every function
//! and that its version matches the header's.
//!
//! The header is `$RIPPLE_INCLUDE_DIR/ripple.h` when that is set (check.sh points it at
//! the staged install), otherwise the repository's `Include/ripple.h`.
use std::collections::BTreeMap;
use std::path::PathBuf;

fn header_path() -> PathBuf {
    match std::env::var_os("RIPPLE_INCLUDE_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir).join("ripple.h"),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../Include/ripple.h"),
    }
}

fn header() -> String {
    let path = header_path();
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Removes comments, joins continued lines, and drops `#ifdef __cplusplus` blocks (the
/// `extern "C" {` wrapper), keeping other preprocessor lines for the constant parser.
fn clean(src: &str) -> String {
    let mut out = String::new();
    let mut rest = src;
    while let Some(i) = rest.find("/*").into_iter().chain(rest.find("//")).min() {
        out.push_str(&rest[..i]);
        if rest[i..].starts_with("/*") {
            let end = rest[i + 2..].find("*/").expect("unterminated comment");
            rest = &rest[i + 2 + end + 2..];
        } else {
            rest = &rest[i..];
            rest = &rest[rest.find('\n').unwrap_or(rest.len())..];
        }
    }
    out.push_str(rest);
    let joined = out.replace("\\\n", " ");
    let mut kept = String::new();
    let mut skip_depth = 0usize; // > 0 inside an #ifdef __cplusplus block
    for line in joined.lines() {
        let t = line.trim_start();
        if skip_depth > 0 {
            if t.starts_with("#if") {
                skip_depth += 1;
            } else if t.starts_with("#endif") {
                skip_depth -= 1;
            }
            continue;
        }
        if t.starts_with("#ifdef __cplusplus") {
            skip_depth = 1;
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    kept
}

/// Top-level declarations of the header (split on `;` outside braces), without
/// preprocessor lines.
fn declarations(clean: &str) -> Vec<String> {
    let code: String = clean
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let mut decls = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for ch in code.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ';' && depth == 0 {
            decls.push(cur.split_whitespace().collect::<Vec<_>>().join(" "));
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    decls
}

/// Number of comma-separated parameters at the top level of `params` (`void` = 0).
fn arity(params: &str) -> usize {
    let p = params.trim();
    if p.is_empty() || p == "void" {
        return 0;
    }
    let mut depth = 0i32;
    1 + p
        .chars()
        .filter(|&c| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            c == ',' && depth == 0
        })
        .count()
}

/// Function declarations of the header: name -> number of parameters.
fn header_functions(clean: &str) -> BTreeMap<String, usize> {
    let mut fns = BTreeMap::new();
    for decl in declarations(clean) {
        // Type declarations, and the header's own macro invocations (layout
        // checks): not functions.
        if decl.starts_with("typedef") || decl.starts_with("enum") || decl.starts_with("struct")
            || decl.starts_with("RPL_")
        {
            continue;
        }
        // The function's name is the identifier right before the first '('.
        let Some(open) = decl.find('(') else { continue };
        let name: String = decl[..open]
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(name.starts_with("rpl_"), "unexpected declaration in header: {decl}");
        let close = decl.rfind(')').expect("unbalanced declaration");
        let prev = fns.insert(name.clone(), arity(&decl[open + 1..close]));
        assert!(prev.is_none(), "{name} declared twice in the header");
    }
    fns
}

/// Evaluates the integer expressions of the header's macros and enums: literals (with
/// an optional u/U suffix), UINT64_MAX, SIZE_MAX, names defined earlier, `+ - *` and
/// parentheses. None for anything else (e.g. function-like or attribute macros).
fn eval(expr: &str, known: &BTreeMap<String, i128>) -> Option<i128> {
    let tokens: Vec<String> = {
        let mut v = Vec::new();
        let mut chars = expr.chars().peekable();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() {
                chars.next();
            } else if c.is_ascii_alphanumeric() || c == '_' {
                let mut t = String::new();
                while let Some(&c) = chars.peek() {
                    if !(c.is_ascii_alphanumeric() || c == '_') {
                        break;
                    }
                    t.push(c);
                    chars.next();
                }
                v.push(t);
            } else {
                v.push(c.to_string());
                chars.next();
            }
        }
        v
    };
    fn expr_(t: &[String], i: &mut usize, k: &BTreeMap<String, i128>) -> Option<i128> {
        let mut acc = term(t, i, k)?;
        while *i < t.len() && (t[*i] == "+" || t[*i] == "-") {
            let plus = t[*i] == "+";
            *i += 1;
            let r = term(t, i, k)?;
            acc = if plus { acc + r } else { acc - r };
        }
        Some(acc)
    }
    fn term(t: &[String], i: &mut usize, k: &BTreeMap<String, i128>) -> Option<i128> {
        let mut acc = atom(t, i, k)?;
        while *i < t.len() && t[*i] == "*" {
            *i += 1;
            acc *= atom(t, i, k)?;
        }
        Some(acc)
    }
    fn atom(t: &[String], i: &mut usize, k: &BTreeMap<String, i128>) -> Option<i128> {
        let tok = t.get(*i)?.clone();
        *i += 1;
        match tok.as_str() {
            "(" => {
                let v = expr_(t, i, k)?;
                (t.get(*i)? == ")").then(|| *i += 1)?;
                Some(v)
            }
            "-" => Some(-atom(t, i, k)?),
            "UINT64_MAX" => Some(u64::MAX as i128),
            "SIZE_MAX" => Some(usize::MAX as i128),
            _ if tok.as_bytes()[0].is_ascii_digit() => tok.trim_end_matches(['u', 'U']).parse().ok(),
            _ => k.get(&tok).copied(),
        }
    }
    let mut i = 0;
    let v = expr_(&tokens, &mut i, known)?;
    (i == tokens.len()).then_some(v)
}

/// Integer constants of the header: object-like `#define RPL_*` macros with an integer
/// value, and `RPL_*` enumerators.
fn header_constants(clean: &str) -> BTreeMap<String, i128> {
    let mut known = BTreeMap::new();
    // Macros may use enumerators and the reverse, so repeat until nothing new resolves.
    loop {
        let before = known.len();
        for line in clean.lines() {
            let Some(def) = line.trim().strip_prefix("#define ") else { continue };
            let def = def.trim_start();
            let name: String = def.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let rest = &def[name.len()..];
            if !name.starts_with("RPL_") || rest.starts_with('(') || known.contains_key(&name) {
                continue; // not ours, function-like, or done
            }
            if let Some(v) = eval(rest, &known) {
                known.insert(name, v);
            }
        }
        for decl in declarations(clean) {
            let Some(body) = decl.strip_prefix("typedef enum").or(decl.strip_prefix("enum")) else { continue };
            let (Some(open), Some(close)) = (body.find('{'), body.rfind('}')) else { continue };
            let mut next = Some(0i128);
            for item in body[open + 1..close].split(',').map(str::trim).filter(|s| !s.is_empty()) {
                let (name, value) = match item.split_once('=') {
                    Some((n, v)) => (n.trim(), eval(v, &known)),
                    None => (item, next),
                };
                if let Some(v) = value {
                    known.insert(name.to_string(), v);
                }
                next = value.map(|v| v + 1);
            }
        }
        if known.len() == before {
            return known;
        }
    }
}

fn diff<V: PartialEq + std::fmt::Debug>(
    what: &str,
    header: &BTreeMap<String, V>,
    crate_: &BTreeMap<String, V>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (name, hv) in header {
        match crate_.get(name) {
            None => problems.push(format!("{what} {name} is in ripple.h but not in ripple-sys")),
            Some(cv) if cv != hv => {
                problems.push(format!("{what} {name}: ripple.h has {hv:?}, ripple-sys has {cv:?}"))
            }
            _ => {}
        }
    }
    for name in crate_.keys().filter(|n| !header.contains_key(*n)) {
        problems.push(format!("{what} {name} is in ripple-sys but not in ripple.h"));
    }
    problems
}

#[test]
fn every_header_function_is_declared_with_its_arity() {
    let header = header_functions(&clean(&header()));
    assert!(header.len() > 100, "parsed only {} functions from {}", header.len(), header_path().display());
    let declared: BTreeMap<String, usize> = ripple_sys::FUNCTIONS.iter().map(|(n, a)| (n.to_string(), *a)).collect();
    assert_eq!(declared.len(), ripple_sys::FUNCTIONS.len(), "a function is declared twice in ripple-sys");
    let problems = diff("function", &header, &declared);
    assert!(problems.is_empty(), "ripple-sys is out of step with ripple.h:\n  {}", problems.join("\n  "));
}

#[test]
fn every_header_constant_is_declared_with_its_value() {
    let header = header_constants(&clean(&header()));
    assert!(header.contains_key("RPL_ERR_STATE") && header.contains_key("RPL_FOREVER"), "constant parser broke");
    let declared: BTreeMap<String, i128> = ripple_sys::CONSTANTS.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let problems = diff("constant", &header, &declared);
    assert!(problems.is_empty(), "ripple-sys is out of step with ripple.h:\n  {}", problems.join("\n  "));
}

#[test]
fn string_constants_match_the_header() {
    let h = clean(&header());
    let define = |name: &str| -> String {
        let line = h.lines().find(|l| l.trim().starts_with(&format!("#define {name} "))).unwrap();
        line.split('"').nth(1).unwrap().to_string()
    };
    let bytes = |b: &[u8]| std::str::from_utf8(&b[..b.len() - 1]).unwrap().to_string();
    assert_eq!(bytes(ripple_sys::RPL_VERSION_STRING), define("RPL_VERSION_STRING"));
    assert_eq!(bytes(ripple_sys::RPL_ERROR_DOMAIN), define("RPL_ERROR_DOMAIN"));
    assert_eq!(bytes(ripple_sys::RPL_ERROR_DOMAIN_ERRNO), define("RPL_ERROR_DOMAIN_ERRNO"));
}

#[test]
fn the_parser_sees_tricky_declarations() {
    // Shapes that a line-based grep misses: a return type on its own line, a callback
    // parameter with its own parentheses, and an enum inside a typedef.
    let src = "/* c */ typedef rpl_value\n (*rpl_f)(void *ctx);\nrpl_value\n rpl_a(int x, void (*cb)(void *c, int y), void *ctx);\n\
               #ifdef __cplusplus\nextern \"C\" {\n#endif\ntypedef enum { RPL_A = 2, RPL_B } t;\n#define RPL_C (RPL_B * 10 + 1)\n\
               #define RPL_D UINT64_MAX\nunsigned rpl_b(void);\n#ifdef __cplusplus\n}\n#endif\n";
    let c = clean(src);
    let fns = header_functions(&c);
    assert_eq!(fns.into_iter().collect::<Vec<_>>(), vec![("rpl_a".to_string(), 3), ("rpl_b".to_string(), 0)]);
    let consts = header_constants(&c);
    assert_eq!(consts["RPL_A"], 2);
    assert_eq!(consts["RPL_B"], 3);
    assert_eq!(consts["RPL_C"], 31);
    assert_eq!(consts["RPL_D"], u64::MAX as i128);
}

#[test]
fn the_library_exports_every_function_and_matches_the_header_version() {
    for (name, addr) in ripple_sys::function_addresses() {
        assert!(!addr.is_null(), "{name} did not resolve");
    }
    let loaded = unsafe { ripple_sys::rpl_version() };
    assert_eq!(loaded, ripple_sys::RPL_VERSION_NUMBER, "header and loaded library differ");
    let s = unsafe { std::ffi::CStr::from_ptr(ripple_sys::rpl_version_string()) };
    assert_eq!(s.to_bytes_with_nul(), ripple_sys::RPL_VERSION_STRING);
}
