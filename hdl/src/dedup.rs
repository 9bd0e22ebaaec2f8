//! One Verilog module per distinct block body (issue 27; docs/decisions.md D-EMIT-DEDUP).
//!
//! rust-hdl writes one module per *instance*: a block used four times (a MAC lane, every
//! `DFF<Bits<24>>`, a processor of the CNN engine) is written four times under four names
//! (`top$lanes$0`, `top$lanes$1`, ...), each the same text but for its name and the names of
//! its own sub-modules. [`dedup`] keeps one module per distinct body and makes every
//! instance refer to it. Instance names, the hierarchy, ports and every line of logic are
//! unchanged, so hierarchical paths (the memory backdoor, VCD scopes, the simulation gates'
//! `dut.core.gate_fc0.sim_clock`) and synthesis see the same design.
//!
//! How: the text is split into modules (`module NAME(...);` .. `endmodule // NAME`, rust-hdl's
//! framing); a module's key is its text with its own name and its sub-modules' names replaced
//! by their keys, computed bottom-up, so two modules share a key exactly when they elaborate
//! to the same hardware tree. Each key is written once, under the name of its first module in
//! rust-hdl's (alphabetical) order, or that name without its array indices (`top$lanes$0` ->
//! `top$lanes`) when no other module has that name; a module with one instance keeps its name.
//!
//! [`expand`] is the inverse: it writes every instance's module back under its own name. The
//! deduplicated text is accepted only if expanding it gives back rust-hdl's text byte for
//! byte ([`dedup`] checks this itself), so the renaming cannot change the design.

use std::collections::{BTreeMap, HashMap};

/// One module of an emitted file.
#[derive(Clone, Debug)]
struct Module {
    name: String,
    /// Its text from `module` to the end of the `endmodule` line (without trailing newline).
    text: String,
    /// `(line index in text, child module name)` of every instance.
    children: Vec<(usize, String)>,
}

/// The deduplicated Verilog and its counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deduped {
    /// The Verilog: one module per distinct body.
    pub text: String,
    /// Modules in `text`.
    pub modules: usize,
    /// Modules rust-hdl wrote (one per instance).
    pub instances: usize,
}

/// Splits rust-hdl's output into what precedes the first module, the modules and the tail.
fn split(text: &str) -> Result<(String, Vec<Module>, String), String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut head = String::new();
    let mut modules: Vec<Module> = Vec::new();
    let mut tail_start = lines.len();
    let mut i = 0;
    let mut seen_module = false;
    // Last line index that closed a module; what follows the last module is the tail.
    let mut last_end = None;
    while i < lines.len() {
        let l = lines[i];
        if let Some(rest) = l.strip_prefix("module ") {
            seen_module = true;
            let name = rest
                .split('(')
                .next()
                .filter(|n| !n.is_empty())
                .ok_or_else(|| format!("line {}: a module without a name", i + 1))?
                .trim()
                .to_string();
            let end_marker = format!("endmodule // {name}");
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_start() != end_marker {
                if lines[j].starts_with("module ") {
                    return Err(format!(
                        "line {}: module `{name}` has no `{end_marker}` before the next module",
                        i + 1
                    ));
                }
                j += 1;
            }
            if j == lines.len() {
                return Err(format!("module `{name}` has no `{end_marker}`"));
            }
            modules.push(Module {
                name,
                text: lines[i..=j].join("\n"),
                children: Vec::new(),
            });
            last_end = Some(j);
            i = j + 1;
            continue;
        }
        if !seen_module {
            head.push_str(l);
            head.push('\n');
        }
        i += 1;
    }
    if let Some(e) = last_end {
        tail_start = e + 1;
    }
    // What follows the last module, without the blank lines that separate it.
    let tail = if tail_start < lines.len() {
        lines[tail_start..]
            .join("\n")
            .trim_start_matches('\n')
            .to_string()
    } else {
        String::new()
    };
    // Instances: a line `KIND NAME(` whose KIND is a module of this text.
    let names: HashMap<String, usize> = modules
        .iter()
        .enumerate()
        .map(|(k, m)| (m.name.clone(), k))
        .collect();
    if names.len() != modules.len() {
        return Err("a module name occurs twice".into());
    }
    for m in &mut modules {
        for (k, l) in m.text.split('\n').enumerate().skip(1) {
            let t = l.trim_start();
            if let Some((kind, rest)) = t.split_once(' ') {
                if names.contains_key(kind) && rest.ends_with('(') && !rest.contains(' ') {
                    m.children.push((k, kind.to_string()));
                }
            }
        }
    }
    Ok((head, modules, tail))
}

/// `text` with the module's own name and its children's names replaced by `self_name` and
/// `child_name(index of the child)`.
fn rename(m: &Module, self_name: &str, child_name: &mut dyn FnMut(usize) -> String) -> String {
    let mut lines: Vec<String> = m.text.split('\n').map(str::to_string).collect();
    let header = &lines[0];
    let after = &header["module ".len() + m.name.len()..];
    lines[0] = format!("module {self_name}{after}");
    let last = lines.len() - 1;
    let indent: String = lines[last]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    lines[last] = format!("{indent}endmodule // {self_name}");
    for (c, (k, kind)) in m.children.iter().enumerate() {
        let l = &lines[*k];
        let pos = l.find(kind.as_str()).expect("child kind on its line");
        lines[*k] = format!("{}{}{}", &l[..pos], child_name(c), &l[pos + kind.len()..]);
    }
    lines.join("\n")
}

/// The name without array indices: `top$lanes$0$acc_q` -> `top$lanes$acc_q`.
fn without_indices(name: &str) -> String {
    name.split('$')
        .filter(|s| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join("$")
}

/// rust-hdl's Verilog `text` with one module per distinct body (see the module docs). `Err`
/// says what in the text does not have rust-hdl's framing.
pub fn dedup(text: &str) -> Result<Deduped, String> {
    let (head, modules, tail) = split(text)?;
    let index: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(k, m)| (m.name.as_str(), k))
        .collect();
    // Keys bottom-up: a key is a small integer per distinct canonical text.
    let mut key_of: Vec<Option<usize>> = vec![None; modules.len()];
    let mut keys: HashMap<String, usize> = HashMap::new();
    fn key(
        k: usize,
        modules: &[Module],
        index: &HashMap<&str, usize>,
        key_of: &mut Vec<Option<usize>>,
        keys: &mut HashMap<String, usize>,
        depth: usize,
    ) -> Result<usize, String> {
        if let Some(v) = key_of[k] {
            return Ok(v);
        }
        if depth > modules.len() {
            return Err(format!("module `{}` instantiates itself", modules[k].name));
        }
        let m = &modules[k];
        let mut child_keys = Vec::with_capacity(m.children.len());
        for (_, kind) in &m.children {
            child_keys.push(key(
                index[kind.as_str()],
                modules,
                index,
                key_of,
                keys,
                depth + 1,
            )?);
        }
        let canon = rename(m, "@SELF@", &mut |c| format!("@K{}@", child_keys[c]));
        let n = keys.len();
        let v = *keys.entry(canon).or_insert(n);
        key_of[k] = Some(v);
        Ok(v)
    }
    for k in 0..modules.len() {
        key(k, &modules, &index, &mut key_of, &mut keys, 0)?;
    }
    let key_of: Vec<usize> = key_of.into_iter().map(|v| v.expect("keyed")).collect();
    // Members of each key, in rust-hdl's order.
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (k, &v) in key_of.iter().enumerate() {
        members.entry(v).or_default().push(k);
    }
    // Names: a shared body takes its first module's name without indices when that is free.
    let mut taken: std::collections::HashSet<String> =
        modules.iter().map(|m| m.name.clone()).collect();
    let mut name_of_key: HashMap<usize, String> = HashMap::new();
    let mut order: Vec<usize> = Vec::new();
    for (k, &v) in key_of.iter().enumerate() {
        if name_of_key.contains_key(&v) {
            continue;
        }
        order.push(v);
        let first = &modules[k].name;
        let name = if members[&v].len() > 1 {
            let plain = without_indices(first);
            if plain != *first && !taken.contains(&plain) {
                taken.insert(plain.clone());
                plain
            } else {
                first.clone()
            }
        } else {
            first.clone()
        };
        name_of_key.insert(v, name);
    }
    let mut out = head;
    for v in &order {
        let ms = &members[v];
        let m = &modules[ms[0]];
        let name = &name_of_key[v];
        let body = rename(m, name, &mut |c| {
            name_of_key[&key_of[index[m.children[c].1.as_str()]]].clone()
        });
        if ms.len() > 1 {
            let shown: Vec<&str> = ms
                .iter()
                .take(4)
                .map(|&k| modules[k].name.as_str())
                .collect();
            let more = if ms.len() > 4 {
                format!(" and {} more", ms.len() - 4)
            } else {
                String::new()
            };
            out.push_str(&format!(
                "// {name}: one module for {} instances ({}{more})\n",
                ms.len(),
                shown.join(", ")
            ));
        }
        out.push_str(&body);
        out.push_str("\n\n");
    }
    out.push_str(&tail);
    let d = Deduped {
        text: out,
        modules: order.len(),
        instances: modules.len(),
    };
    let back = expand(&d.text)?;
    if back != canonical_spacing(text)? {
        return Err("the deduplicated Verilog does not expand to rust-hdl's".into());
    }
    Ok(d)
}

/// rust-hdl's text re-framed as [`expand`] writes it (modules separated by one blank line).
fn canonical_spacing(text: &str) -> Result<String, String> {
    let (head, modules, tail) = split(text)?;
    let mut out = head;
    for m in &modules {
        out.push_str(&m.text);
        out.push_str("\n\n");
    }
    out.push_str(&tail);
    Ok(out)
}

/// The inverse of [`dedup`]: every instance's module written under its own name
/// (`PARENT$INSTANCE`, rust-hdl's naming), in alphabetical order, comments of [`dedup`]
/// dropped. The top module is the first module of `text`.
pub fn expand(text: &str) -> Result<String, String> {
    let (head, modules, tail) = split(text)?;
    let head: String = head
        .split_inclusive('\n')
        .filter(|l| !l.contains(": one module for "))
        .collect();
    let index: HashMap<&str, usize> = modules
        .iter()
        .enumerate()
        .map(|(k, m)| (m.name.as_str(), k))
        .collect();
    let top = modules.first().ok_or("no module")?;
    // Walk the hierarchy: (path name, module index).
    let mut written: BTreeMap<String, String> = BTreeMap::new();
    let mut stack = vec![(top.name.clone(), 0usize)];
    while let Some((path, k)) = stack.pop() {
        let m = &modules[k];
        let lines: Vec<&str> = m.text.split('\n').collect();
        let mut kids = Vec::new();
        let body = rename(m, &path, &mut |c| {
            let (line, kind) = &m.children[c];
            let inst = lines[*line]
                .trim_start()
                .split_once(' ')
                .map(|(_, r)| r.trim_end_matches('('))
                .unwrap_or("");
            let child = format!("{path}${inst}");
            kids.push((child.clone(), index[kind.as_str()]));
            child
        });
        stack.extend(kids);
        if written.insert(path.clone(), body).is_some() {
            return Err(format!("module `{path}` is reached twice"));
        }
    }
    // rust-hdl writes the comment lines we add between modules only in `head`; strip ours
    // from between modules too.
    let mut out = head;
    for body in written.values() {
        out.push_str(body);
        out.push_str("\n\n");
    }
    let tail: String = tail
        .split_inclusive('\n')
        .filter(|l| !l.contains(": one module for "))
        .collect();
    out.push_str(&tail);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: &str = "// header\n\n\nmodule top(a,b);\n    input wire a;\n    output reg b;\n    \
top$u$0 u$0(\n        .x(a)\n    );\n    top$u$1 u$1(\n        .x(a)\n    );\n    top$v v(\n        .x(a)\n    );\nendmodule // top\n\n\n\
module top$u$0(x);\n    input wire x;\n    top$u$0$q q(\n        .d(x)\n    );\nendmodule // top$u$0\n\n\n\
module top$u$0$q(d);\n    input wire d;\nendmodule // top$u$0$q\n\n\n\
module top$u$1(x);\n    input wire x;\n    top$u$1$q q(\n        .d(x)\n    );\nendmodule // top$u$1\n\n\n\
module top$u$1$q(d);\n    input wire d;\nendmodule // top$u$1$q\n\n\n\
module top$v(x);\n    input wire x;\n    top$v$q q(\n        .d(x)\n    );\nendmodule // top$v\n\n\n\
module top$v$q(d);\n    input wire d;\n    // different\nendmodule // top$v$q\n";

    #[test]
    fn equal_bodies_become_one_module_and_expand_back() {
        let d = dedup(PLAIN).unwrap();
        assert_eq!(d.instances, 7);
        // top, u (shared by u$0 and u$1), u's q, v, v's q
        assert_eq!(d.modules, 5, "{}", d.text);
        assert!(d.text.contains("module top$u(x);"), "{}", d.text);
        assert!(d.text.contains("    top$u u$1(\n"), "{}", d.text);
        assert!(d.text.contains("    top$u$q q(\n"), "{}", d.text);
        assert!(d.text.contains("module top$v$q(d);"), "{}", d.text);
        assert!(!d.text.contains("module top$u$1"), "{}", d.text);
        assert_eq!(expand(&d.text).unwrap(), canonical_spacing(PLAIN).unwrap());
    }

    #[test]
    fn a_module_without_its_end_is_an_error() {
        let bad = "module top(a);\n    input wire a;\n";
        assert!(dedup(bad).unwrap_err().contains("endmodule // top"));
    }

    #[test]
    fn names_without_indices_only_when_free() {
        assert_eq!(without_indices("top$lanes$0$acc_q"), "top$lanes$acc_q");
        assert_eq!(without_indices("top$a"), "top$a");
    }
}
