//! A small YAML document tree with line numbers, built on `yaml-rust2`'s event parser.
//!
//! ai8x reads its network files with PyYAML (YAML 1.1), so plain scalars are resolved the way
//! PyYAML resolves them: `0x1f`, `0b101`, `017` (octal) and `1_000` are integers, `yes`/`no`/
//! `on`/`off`/`true`/`false` are booleans, `~`/`null`/empty are null, and everything else,
//! including `None` and `3x3`, is a string. Quoted scalars are always strings. Integers are
//! kept as `i128` so that 64-bit processor masks such as `0xffffffffffffffff` fit. Duplicate
//! mapping keys are an error, as they are in ai8x's loader.
//!
//! Every document is bounded, so that no file can make the kit hang or exhaust memory: at most
//! [`MAX_NODES`] values after alias expansion (a "billion laughs" alias bomb stops at the limit,
//! having built no more than that), nesting at most [`MAX_DEPTH`] deep, and at most
//! [`MAX_BYTES`] of text. The events are pulled one at a time, so parsing stops at the first
//! error and never recurses.

use super::error::{CnnError, Result};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// A YAML value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `~`, `null` or nothing.
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// A string (any quoted scalar, and plain scalars that are nothing else).
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping with string keys, in file order.
    Map(Vec<(String, Node)>),
}

/// A value and the line it starts on.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// 1-based line.
    pub line: usize,
}

impl Node {
    /// A short description of the kind of value, for error messages.
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    /// The value as it would be written, for error messages.
    pub fn show(&self) -> String {
        match &self.value {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Str(s) => format!("\"{s}\""),
            Value::Seq(v) => format!(
                "[{}]",
                v.iter().map(Node::show).collect::<Vec<_>>().join(", ")
            ),
            Value::Map(_) => "{...}".into(),
        }
    }
}

/// Most values a document may hold, counting every value an alias repeats. The largest ai8x
/// network description at hand has fewer than 3,000; a node is about 64 bytes, so the bound
/// keeps a document under about 4 MB however its aliases nest.
pub const MAX_NODES: usize = 50_000;

/// Deepest nesting of lists and mappings (ai8x descriptions nest 4 deep).
pub const MAX_DEPTH: usize = 64;

/// Largest text accepted (the largest ai8x network description at hand is under 40 kB).
pub const MAX_BYTES: usize = 4 << 20;

/// Parses a YAML document (the first one of the stream). An empty stream is `Null`.
///
/// Errors give the line and, for the bounds, the limit that was reached.
pub fn parse(text: &str) -> Result<Node> {
    if text.len() > MAX_BYTES {
        return Err(CnnError::new(format!(
            "the YAML text has {} bytes, more than the limit of {MAX_BYTES}",
            text.len()
        )));
    }
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| {
            CnnError::new(format!("malformed YAML: {}", e.info())).at_line(e.marker().line())
        })?;
        let end = matches!(ev, Event::StreamEnd | Event::DocumentEnd);
        builder.on_event(ev, mark);
        if let Some(err) = builder.error.take() {
            return Err(err);
        }
        if end {
            break;
        }
    }
    Ok(builder.root.unwrap_or(Node {
        value: Value::Null,
        line: 1,
    }))
}

/// A list or mapping being built, with its anchor, its line and the node count at its start.
enum Frame {
    Seq(Vec<Node>, usize, usize, usize),
    /// Entries, pending key (with its line), anchor, line, node count at the start.
    Map(
        Vec<(String, Node)>,
        Option<(String, usize)>,
        usize,
        usize,
        usize,
    ),
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    root: Option<Node>,
    /// Anchor id, the anchored value and its size in nodes.
    anchors: Vec<(usize, Node, usize)>,
    error: Option<CnnError>,
    /// Values built so far, aliases counted by the size of what they repeat.
    nodes: usize,
}

impl Builder {
    /// Counts `n` more values; false (with the error set) past [`MAX_NODES`].
    fn count(&mut self, n: usize, line: usize) -> bool {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            self.fail(
                CnnError::new(format!(
                    "the document expands to more than {MAX_NODES} values (the limit; \
                     anchors and aliases repeated inside each other multiply)"
                ))
                .at_line(line),
            );
            return false;
        }
        true
    }

    fn open(&mut self, line: usize) -> bool {
        if self.stack.len() >= MAX_DEPTH {
            self.fail(
                CnnError::new(format!(
                    "lists and mappings nest deeper than {MAX_DEPTH} levels (the limit)"
                ))
                .at_line(line),
            );
            return false;
        }
        self.count(1, line)
    }

    fn push_value(&mut self, node: Node, anchor: usize, size: usize) {
        if anchor > 0 {
            self.anchors.push((anchor, node.clone(), size));
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq(items, ..)) => items.push(node),
            Some(Frame::Map(entries, pending, ..)) => match pending.take() {
                None => {
                    // A key. Keys must be scalars.
                    let key = match &node.value {
                        Value::Str(s) => s.clone(),
                        Value::Int(i) => i.to_string(),
                        Value::Bool(b) => b.to_string(),
                        Value::Float(x) => x.to_string(),
                        Value::Null => String::new(),
                        _ => {
                            let err = CnnError::new(
                                "a mapping key must be a plain value, not a list or mapping",
                            )
                            .at_line(node.line);
                            if self.error.is_none() {
                                self.error = Some(err);
                            }
                            return;
                        }
                    };
                    *pending = Some((key, node.line));
                }
                Some((key, line)) => {
                    if entries.iter().any(|(k, _)| *k == key) {
                        let err = CnnError::new(format!("duplicate key `{key}` in a mapping"))
                            .at_line(line);
                        self.fail(err);
                        return;
                    }
                    entries.push((key, node));
                }
            },
        }
    }

    fn fail(&mut self, err: CnnError) {
        if self.error.is_none() {
            self.error = Some(err);
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        let line = mark.line();
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                if !self.count(1, line) {
                    return;
                }
                let value = if style == TScalarStyle::Plain && tag.is_none() {
                    resolve_plain(&text)
                } else {
                    Value::Str(text)
                };
                self.push_value(Node { value, line }, anchor, 1);
            }
            Event::SequenceStart(anchor, _) if self.open(line) => {
                let start = self.nodes;
                self.stack.push(Frame::Seq(Vec::new(), anchor, line, start));
            }
            Event::SequenceEnd => {
                if let Some(Frame::Seq(items, anchor, line, start)) = self.stack.pop() {
                    let size = self.nodes - start + 1;
                    let value = Value::Seq(items);
                    self.push_value(Node { value, line }, anchor, size);
                }
            }
            Event::MappingStart(anchor, _) if self.open(line) => {
                let start = self.nodes;
                self.stack
                    .push(Frame::Map(Vec::new(), None, anchor, line, start));
            }
            Event::MappingEnd => {
                if let Some(Frame::Map(entries, _, anchor, line, start)) = self.stack.pop() {
                    let size = self.nodes - start + 1;
                    let value = Value::Map(entries);
                    self.push_value(Node { value, line }, anchor, size);
                }
            }
            Event::Alias(id) => {
                let Some(size) = self.anchors.iter().rev().find(|a| a.0 == id).map(|a| a.2) else {
                    self.fail(CnnError::new("alias to an unknown anchor").at_line(line));
                    return;
                };
                // Count before cloning, so a bomb stops before it allocates.
                if !self.count(size, line) {
                    return;
                }
                if let Some((_, node, _)) = self.anchors.iter().rev().find(|a| a.0 == id) {
                    let mut node = node.clone();
                    node.line = line;
                    self.push_value(node, 0, size);
                }
            }
            _ => {}
        }
    }
}

/// Resolves a plain scalar as PyYAML's YAML 1.1 resolver does (the subset that matters).
pub fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Value::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        _ => {}
    }
    if let Some(i) = parse_int(text) {
        return Value::Int(i);
    }
    if looks_like_float(text) {
        if let Ok(x) = text.replace('_', "").parse::<f64>() {
            return Value::Float(x);
        }
    }
    Value::Str(text.to_string())
}

/// An integer in YAML 1.1 notation: decimal, `0x` hex, `0b` binary, `0` octal, `_` separators.
pub fn parse_int(text: &str) -> Option<i128> {
    let (neg, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if body.is_empty() || body.starts_with('_') {
        return None;
    }
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = body.strip_prefix("0b") {
        (2, b)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let clean: String = digits.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() || !clean.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = i128::from_str_radix(&clean, radix).ok()?;
    Some(if neg { -v } else { v })
}

fn looks_like_float(text: &str) -> bool {
    let t = text.trim_start_matches(['+', '-']);
    !t.is_empty()
        && t.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        && t.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-' | '_'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_resolve_like_pyyaml() {
        assert_eq!(resolve_plain("0x1f"), Value::Int(31));
        assert_eq!(
            resolve_plain("0xffffffffffffffff"),
            Value::Int(0xffff_ffff_ffff_ffff)
        );
        assert_eq!(resolve_plain("-3"), Value::Int(-3));
        assert_eq!(resolve_plain("010"), Value::Int(8));
        assert_eq!(resolve_plain("1_000"), Value::Int(1000));
        assert_eq!(resolve_plain("None"), Value::Str("None".into()));
        assert_eq!(resolve_plain("3x3"), Value::Str("3x3".into()));
        assert_eq!(resolve_plain("~"), Value::Null);
        assert_eq!(resolve_plain("True"), Value::Bool(true));
        assert_eq!(resolve_plain("off"), Value::Bool(false));
        assert_eq!(resolve_plain("0.5"), Value::Float(0.5));
        assert_eq!(
            resolve_plain("0xffff.ffff"),
            Value::Str("0xffff.ffff".into())
        );
    }

    #[test]
    fn lines_and_duplicates() {
        let doc = parse("a: 1\nb:\n  - x: 2\n    y: [1, 2]\n").unwrap();
        let Value::Map(m) = &doc.value else { panic!() };
        assert_eq!(m[1].0, "b");
        let Value::Seq(s) = &m[1].1.value else {
            panic!()
        };
        assert_eq!(s[0].line, 3);
        let e = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert!(e.to_string().contains("duplicate key `a`"), "{e}");
        assert_eq!(e.line, Some(3));
        let e = parse("a: [1, 2\n").unwrap_err();
        assert!(e.to_string().contains("malformed YAML"), "{e}");
    }

    /// The classic "billion laughs": nine levels of nine aliases would be 387 million values.
    pub(crate) fn alias_bomb(levels: usize) -> String {
        let names: Vec<String> = (0..levels).map(|i| format!("l{i}")).collect();
        let mut text = format!("{}: &{} [x, x, x, x, x, x, x, x, x]\n", names[0], names[0]);
        for w in names.windows(2) {
            let refs = vec![format!("*{}", w[0]); 9].join(", ");
            text += &format!("{}: &{} [{refs}]\n", w[1], w[1]);
        }
        text + "arch: x\n"
    }

    #[test]
    fn alias_bombs_stop_at_the_node_limit() {
        let t = std::time::Instant::now();
        let e = parse(&alias_bomb(9)).unwrap_err();
        assert!(t.elapsed().as_millis() < 500, "{:?}", t.elapsed());
        assert!(e.to_string().contains("50000 values (the limit"), "{e}");
        // 9^5 = 59,049 values on level 5 (line 5) crosses the limit first.
        assert_eq!(e.line, Some(5), "{e}");
        // A few levels are fine, and expand to the values they stand for.
        let doc = parse(&alias_bomb(3)).unwrap();
        let Value::Map(m) = &doc.value else { panic!() };
        let Value::Seq(l2) = &m[2].1.value else {
            panic!()
        };
        assert_eq!(l2.len(), 9);
        assert_eq!(l2[8].line, 3);
    }

    #[test]
    fn nesting_and_size_are_bounded() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        // yaml-rust2 stops this one itself, before our bound.
        let e = parse(&deep).unwrap_err();
        assert!(e.to_string().contains("recursion limit"), "{e}");
        let deep = "[".repeat(100) + &"]".repeat(100);
        let e = parse(&deep).unwrap_err();
        assert!(e.to_string().contains("deeper than 64 levels"), "{e}");
        let deep_map = (0..100)
            .map(|i| format!("{}k:\n", "  ".repeat(i)))
            .collect::<String>();
        assert!(parse(&deep_map)
            .unwrap_err()
            .to_string()
            .contains("nest deeper"));
        let big = "a: 1\n".repeat(1 << 20);
        assert!(parse(&big)
            .unwrap_err()
            .to_string()
            .contains("bytes, more than"));
        // Many plain values: stopped at the limit, not after building them all.
        let wide = format!("[{}]", vec!["1"; 60_000].join(","));
        assert!(parse(&wide)
            .unwrap_err()
            .to_string()
            .contains("50000 values"));
        assert!(parse(&format!("[{}]", vec!["1"; 40_000].join(","))).is_ok());
    }
}
