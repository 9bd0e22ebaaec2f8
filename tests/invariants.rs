//! The invariants ARCHITECTURE.md states as absences, checked on the source tree
//! (ARCHITECTURE.md "Invariants"):
//!
//! - `anyhow` only in the binary: no library crate depends on it or names it;
//! - no process spawning and no file IO in `hdl` library code (its `#[cfg(test)]` code may);
//! - no function in the library crates or the binary over [`MAX_FN_LINES`] lines except the ones
//!   ARCHITECTURE.md lists by name, and every one it lists is still that long (a split
//!   function leaves the list);
//! - no design name outside the registry (`verif/src/rtl/designs`): no string literal in the
//!   library crates or the binary, outside their tests, that is a registered name or a
//!   format string making one.

use crate::common;
use common::cli::root;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The longest function the house style allows in the library crates.
const MAX_FN_LINES: usize = 150;

/// The library crates (everything but the binary and its tests).
const LIBRARIES: &[&str] = &["hdl", "sim", "verif", "fpga"];

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// `text` with comments, string and character literals blanked (same lines, same columns),
/// so braces and names are only the code's.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |s: &[u8], out: &mut String| {
        for &c in s {
            out.push(if c == b'\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let n = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&rest[..n], &mut out);
            i += n;
        } else if rest.starts_with(b"/*") {
            let n = text[i + 2..].find("*/").map_or(rest.len(), |k| k + 4);
            blank(&rest[..n], &mut out);
            i += n;
        } else if rest.starts_with(b"r\"") || rest.starts_with(b"r#") {
            // Raw string: r"..." or r#"..."#, any number of #.
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let start = i + 2 + hashes;
            let n = text[start..]
                .find(&close)
                .map_or(b.len() - i, |k| start - i + k + close.len());
            blank(&rest[..n], &mut out);
            i += n;
        } else if rest[0] == b'"' {
            let mut k = 1;
            while k < rest.len() && rest[k] != b'"' {
                k += if rest[k] == b'\\' { 2 } else { 1 };
            }
            let n = (k + 1).min(rest.len());
            blank(&rest[..n], &mut out);
            i += n;
        } else if rest[0] == b'\'' && (rest.get(2) == Some(&b'\'') || rest.get(1) == Some(&b'\\')) {
            // A character literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            let n = rest[1..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(1, |k| k + 2);
            blank(&rest[..n], &mut out);
            i += n;
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The byte ranges of the `#[cfg(test)]` items of `code` (the output of [`code_only`]): the
/// `mod tests { .. }` blocks and test-only declarations.
fn test_items(code: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("#[cfg(test)]") {
        let start = from + k;
        let item = &code[start..];
        // The item ends at `;` (a declaration) or at the brace closing its first `{`.
        let mut depth = 0usize;
        let mut end = item.len();
        for (j, c) in item.char_indices() {
            match c {
                ';' if depth == 0 => {
                    end = j + 1;
                    break;
                }
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push(start..start + end);
        from = start + end;
    }
    out
}

/// `text` without its `#[cfg(test)]` items (the `mod tests { .. }` blocks).
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut at = 0;
    for r in test_items(code) {
        out.push_str(&code[at..r.start]);
        out.extend(
            code[r.clone()]
                .chars()
                .map(|c| if c == '\n' { '\n' } else { ' ' }),
        );
        at = r.end;
    }
    out.push_str(&code[at..]);
    out
}

/// The string literals of `text` outside comments and `#[cfg(test)]` items: line (from 1)
/// and contents as written (escapes not resolved; raw strings without their `r#`).
fn code_strings(text: &str) -> Vec<(usize, String)> {
    let code = code_only(text);
    // `code_only` blanks byte for byte, so offsets agree with `text`'s.
    assert_eq!(code.len(), text.len());
    let tests = test_items(&code);
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut push = |at: usize, lit: &str| {
        if !tests.iter().any(|r| r.contains(&at)) {
            out.push((text[..at].matches('\n').count() + 1, lit.to_string()));
        }
    };
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        } else if rest.starts_with(b"/*") {
            i += text[i + 2..].find("*/").map_or(rest.len(), |k| k + 4);
        } else if (rest.starts_with(b"r\"") || rest.starts_with(b"r#"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == b'#').count();
            if rest.get(1 + hashes) != Some(&b'"') {
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let start = i + 2 + hashes;
            let end = text[start..].find(&close).map_or(b.len(), |k| start + k);
            push(i, &text[start..end]);
            i = end + close.len();
        } else if rest[0] == b'"' {
            let mut k = 1;
            while k < rest.len() && rest[k] != b'"' {
                k += if rest[k] == b'\\' { 2 } else { 1 };
            }
            push(i, &text[i + 1..(i + k).min(b.len())]);
            i += k + 1;
        } else if rest[0] == b'\'' && (rest.get(2) == Some(&b'\'') || rest.get(1) == Some(&b'\\')) {
            i += rest[1..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(1, |k| k + 2);
        } else {
            i += 1;
        }
    }
    out
}

/// Files declared `#[cfg(test)] mod NAME;` somewhere in `files` (test-only modules).
fn test_only_modules(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut out = BTreeSet::new();
    for f in files {
        let code = code_only(&std::fs::read_to_string(f).unwrap());
        let lines: Vec<&str> = code.lines().map(str::trim).collect();
        for w in lines.windows(2) {
            if w[0] == "#[cfg(test)]" {
                let decl = w[1]
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ");
                if let Some(name) = decl.strip_prefix("mod ").and_then(|m| m.strip_suffix(';')) {
                    let dir = f.parent().unwrap();
                    out.insert(dir.join(format!("{name}.rs")));
                    out.insert(dir.join(name).join("mod.rs"));
                }
            }
        }
    }
    out
}

/// Every function of `code`: (name, first line, lines from `fn` to its closing brace).
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(k) = words.iter().position(|w| *w == "fn") else {
            continue;
        };
        let qualifiers_only = words[..k].iter().all(|w| {
            matches!(
                *w,
                "pub" | "const" | "async" | "unsafe" | "extern" | "default"
            ) || w.starts_with("pub(")
                || w.starts_with('"')
        });
        if !qualifiers_only || k + 1 >= words.len() {
            continue;
        }
        let name: String = words[k + 1]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // Its body: from the first `{` after the signature to the matching `}`; a `;` first
        // is a declaration without a body.
        let mut depth = 0usize;
        let mut started = false;
        'scan: for (j, l) in lines.iter().enumerate().skip(i) {
            for c in l.chars() {
                match c {
                    ';' if !started => break 'scan,
                    '{' => {
                        depth += 1;
                        started = true;
                    }
                    '}' if started => {
                        depth -= 1;
                        if depth == 0 {
                            out.push((name.clone(), i + 1, j - i + 1));
                            break 'scan;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

/// The long functions ARCHITECTURE.md allows: lines "- `PATH` `NAME`" in its section
/// "Long functions".
fn allowed_long_functions() -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let section = text
        .split("\n### Long functions")
        .nth(1)
        .expect("ARCHITECTURE.md has a section \"Long functions\"");
    let section = section.split("\n#").next().unwrap();
    section
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("- `")?;
            let (path, rest) = l.split_once("` `")?;
            let (name, _) = rest.split_once('`')?;
            Some((path.to_string(), name.to_string()))
        })
        .collect()
}

#[test]
fn anyhow_only_in_the_binary() {
    let mut found = Vec::new();
    for lib in LIBRARIES {
        let manifest = std::fs::read_to_string(root().join(lib).join("Cargo.toml")).unwrap();
        if manifest
            .lines()
            .any(|l| l.trim_start().starts_with("anyhow"))
        {
            found.push(format!("{lib}/Cargo.toml depends on anyhow"));
        }
        for f in rust_files(&root().join(lib).join("src")) {
            let code = code_only(&std::fs::read_to_string(&f).unwrap());
            for (n, l) in code.lines().enumerate() {
                if l.contains("anyhow") {
                    found.push(format!("{}:{}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "anyhow is the binary's alone (ARCHITECTURE.md \"Invariants\"); found:\n{}",
        found.join("\n")
    );
}

#[test]
fn hdl_library_code_spawns_no_process_and_does_no_file_io() {
    let files = rust_files(&root().join("hdl/src"));
    let test_only = test_only_modules(&files);
    let forbidden = [
        "std::process",
        "Command::new",
        "std::fs",
        "fs::read",
        "fs::write",
        "File::open",
        "File::create",
        "OpenOptions",
    ];
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !test_only.contains(*f)) {
        let code = without_tests(&code_only(&std::fs::read_to_string(f).unwrap()));
        for (n, l) in code.lines().enumerate() {
            if let Some(w) = forbidden.iter().find(|w| l.contains(*w)) {
                found.push(format!("{}:{}: {w}", f.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "hdl describes hardware; tools and files belong to sim, verif and fpga \
         (ARCHITECTURE.md \"Invariants\"); found:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_long_functions_but_the_listed_ones() {
    let mut long = BTreeSet::new();
    let mut report = Vec::new();
    for dir in NAME_FREE {
        for f in rust_files(&root().join(dir)) {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            let code = without_tests(&code_only(&std::fs::read_to_string(&f).unwrap()));
            for (name, line, n) in functions(&code) {
                if n > MAX_FN_LINES {
                    report.push(format!("{rel}:{line} `{name}`: {n} lines"));
                    long.insert((rel.clone(), name));
                }
            }
        }
    }
    let allowed = allowed_long_functions();
    let new: Vec<_> = long.difference(&allowed).collect();
    let gone: Vec<_> = allowed.difference(&long).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "functions over {MAX_FN_LINES} lines in the crates and the binary must be the ones \
         ARCHITECTURE.md \"Long functions\" lists.\nnot listed: {new:?}\nlisted but no longer \
         long (remove them from the list): {gone:?}\nall long functions:\n{}",
        report.join("\n")
    );
}

#[test]
fn the_scanner_sees_through_strings_comments_and_tests() {
    let src = "fn a() {\n    let s = \"}}\";\n    // }\n    let c = '}';\n    let r = r#\"{\"#;\n}\n\
               #[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\nfn b<'x>(v: &'x str) -> &'x str {\n    v\n}\n";
    let code = without_tests(&code_only(src));
    let fns = functions(&code);
    assert_eq!(
        fns,
        vec![("a".to_string(), 1, 6), ("b".to_string(), 12, 3)],
        "{code}"
    );
}

/// The code of the library crates and the binary (outside their tests): where no function
/// may be long but the listed ones, and no design named outside the registry.
const NAME_FREE: &[&str] = &["src", "hdl/src", "sim/src", "verif/src", "fpga/src"];

/// The registry's own files.
const REGISTRY: &str = "verif/src/rtl/designs";

/// A string literal that names a registered design: the name itself, or a format string
/// that makes one (`"lel_fc_core{x}"`: a name's stem before its first digit followed by a
/// placeholder, or a whole name followed by `_{`).
fn names_a_design(lit: &str, names: &[String]) -> Option<String> {
    names
        .iter()
        .find(|n| {
            let stem = &n[..n.find(|c: char| c.is_ascii_digit()).unwrap_or(n.len())];
            lit == n.as_str()
                || lit.strip_prefix(stem).is_some_and(|t| t.starts_with('{'))
                || lit
                    .strip_prefix(n.as_str())
                    .is_some_and(|t| t.starts_with("_{"))
        })
        .cloned()
}

#[test]
fn no_design_name_outside_the_registry() {
    let names = edgelearn_verif::rtl::designs::names();
    let mut found = Vec::new();
    for dir in NAME_FREE {
        let files = rust_files(&root().join(dir));
        let test_only = test_only_modules(&files);
        for f in files.iter().filter(|f| !test_only.contains(*f)) {
            if f.starts_with(root().join(REGISTRY)) {
                continue;
            }
            let text = std::fs::read_to_string(f).unwrap();
            for (line, lit) in code_strings(&text) {
                if let Some(n) = names_a_design(&lit, &names) {
                    let rel = f.strip_prefix(root()).unwrap_or(f);
                    found.push(format!("{}:{line}: \"{lit}\" names `{n}`", rel.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "design names are the registry's ({REGISTRY}, ARCHITECTURE.md \"Invariants\"): read \
         them from there; found:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_name_check_sees_literals_and_format_strings() {
    let names = vec!["lel_fc_core0".to_string(), "lel_platform".to_string()];
    let text = "fn a() {\n    let x = format!(\"lel_fc_core{i}\");\n    // \"lel_platform\"\n    \
                let y = r#\"lel_platform\"#;\n    let z = \"lel_platform_{t}\";\n    \
                let ok = \"lel_fc_core0 alone\";\n}\n#[cfg(test)]\nmod tests {\n    \
                const N: &str = \"lel_platform\";\n}\n";
    let hits: Vec<(usize, String)> = code_strings(text)
        .into_iter()
        .filter(|(_, l)| names_a_design(l, &names).is_some())
        .collect();
    let lines: Vec<usize> = hits.iter().map(|h| h.0).collect();
    assert_eq!(lines, vec![2, 4, 5], "{hits:?}");
}
