//! The stimulus file of `edgelearn sim` (docs/stimulus-format.md): CSV, one row per cycle,
//! one column per input port.
//!
//! ```text
//! # lel_matmul: one row of a burst
//! reset,data_in,weight,instr,alpha_fc,alpha_lc,valid_in
//! 1,0,0,0,0,0,0
//! 0,-5,1;2;-3;31,1,4,4,1
//! ```
//! The header names input ports in any order (the clock is driven by the bench and is not a
//! column). A value is a decimal integer (negative numbers are two's complement in the port
//! width), `0x` hex or `0b` binary; a packed multi-lane port may also be given as
//! `;`-separated lane values, lane 0 first. Empty cells repeat the previous row's value
//! (0 in the first row); ports without a column are 0. Blank lines and lines starting with
//! `#` are ignored.

use crate::stimulus::Stimulus;
use crate::value::mask;
use edgelearn_hdl::design::PortSpec;
use num_bigint::{BigInt, BigUint, Sign};
use std::fmt;

/// A stimulus file that does not fit the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StimFileError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for StimFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for StimFileError {}

fn parse_int(tok: &str) -> Option<BigInt> {
    let t = tok.trim().replace('_', "");
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, t.strip_prefix('+').unwrap_or(&t).to_string()),
    };
    let mag = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        BigUint::parse_bytes(h.as_bytes(), 16)?
    } else if let Some(b) = body.strip_prefix("0b").or_else(|| body.strip_prefix("0B")) {
        BigUint::parse_bytes(b.as_bytes(), 2)?
    } else {
        BigUint::parse_bytes(body.as_bytes(), 10)?
    };
    Some(BigInt::from_biguint(
        if neg { Sign::Minus } else { Sign::Plus },
        mag,
    ))
}

/// `v` in `width` bits: unsigned values must fit, negative ones are two's complement and
/// must not be below `-2^(width-1)`.
fn encode(v: &BigInt, width: usize) -> Option<BigUint> {
    let top = BigInt::from(1) << width;
    let min = -(BigInt::from(1) << (width.max(1) - 1));
    if v.sign() == Sign::Minus {
        if *v < min {
            return None;
        }
        (v + &top).to_biguint()
    } else {
        let u = v.to_biguint()?;
        (u < top.to_biguint()?).then_some(u)
    }
}

/// Read a stimulus for `block` with these ports.
pub fn parse(
    block: &str,
    ports: &[PortSpec],
    text: &str,
) -> Result<(Stimulus, Vec<String>), StimFileError> {
    let mut stim = Stimulus::new(block, ports);
    let mut header: Option<Vec<usize>> = None;
    let mut previous = vec![BigUint::default(); stim.inputs.len()];
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = l.split(',').map(|c| c.trim()).collect();
        let Some(cols) = &header else {
            let mut cols = vec![];
            for c in &cells {
                let i = stim
                    .inputs
                    .iter()
                    .position(|p| p.name == *c)
                    .ok_or_else(|| StimFileError {
                        line,
                        message: format!(
                            "`{c}` is not an input of `{block}`; inputs: {}",
                            stim.inputs
                                .iter()
                                .map(|p| p.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    })?;
                if cols.contains(&i) {
                    return Err(StimFileError {
                        line,
                        message: format!("column `{c}` appears twice"),
                    });
                }
                cols.push(i);
            }
            header = Some(cols);
            continue;
        };
        if cells.len() != cols.len() {
            return Err(StimFileError {
                line,
                message: format!("{} values for {} columns", cells.len(), cols.len()),
            });
        }
        let mut row = previous.clone();
        for (cell, &i) in cells.iter().zip(cols) {
            if cell.is_empty() {
                continue;
            }
            let p = &stim.inputs[i];
            let bad = |m: String| StimFileError {
                line,
                message: format!("port `{}`: {m}", p.name),
            };
            row[i] = if cell.contains(';') {
                let lanes: Vec<&str> = cell.split(';').collect();
                if lanes.len() != p.lanes {
                    return Err(bad(format!(
                        "{} lane values for {} lanes",
                        lanes.len(),
                        p.lanes
                    )));
                }
                let mut word = BigUint::default();
                for (k, t) in lanes.iter().enumerate() {
                    let v = parse_int(t).ok_or_else(|| bad(format!("`{t}` is not a number")))?;
                    let e = encode(&v, p.lane_width).ok_or_else(|| {
                        bad(format!(
                            "lane {k} value {v} does not fit {} bits",
                            p.lane_width
                        ))
                    })?;
                    word |= e << (k * p.lane_width);
                }
                word
            } else {
                let v = parse_int(cell).ok_or_else(|| bad(format!("`{cell}` is not a number")))?;
                encode(&v, p.width)
                    .ok_or_else(|| bad(format!("{v} does not fit {} bits", p.width)))?
            };
            debug_assert!(row[i] <= mask(p.width));
        }
        stim.push(row.clone()).map_err(|e| StimFileError {
            line,
            message: e.to_string(),
        })?;
        previous = row;
    }
    let Some(cols) = header else {
        return Err(StimFileError {
            line: 1,
            message: "no header line naming the input ports".into(),
        });
    };
    let missing: Vec<String> = stim
        .inputs
        .iter()
        .enumerate()
        .filter(|(i, _)| !cols.contains(i))
        .map(|(_, p)| p.name.clone())
        .collect();
    Ok((stim, missing))
}

/// Write a stimulus in this format (every port, lanes as `;` lists, signed as decimal).
pub fn write(stim: &Stimulus) -> String {
    let mut s = format!("# {}: {} cycles\n", stim.block, stim.len());
    s.push_str(
        &stim
            .inputs
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(","),
    );
    s.push('\n');
    for row in &stim.rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&stim.inputs)
            .map(|(v, p)| {
                if p.lanes > 1 {
                    crate::value::unpack_lanes(v, p.lane_width, p.lanes, p.signed)
                        .iter()
                        .map(|x| x.to_string())
                        .collect::<Vec<_>>()
                        .join(";")
                } else if p.signed {
                    crate::value::to_signed(v, p.width).to_string()
                } else {
                    v.to_string()
                }
            })
            .collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

/// Keep `n` cycles: truncate, or repeat the last row.
pub fn resize(stim: &mut Stimulus, n: usize) {
    if stim.rows.len() > n {
        stim.rows.truncate(n);
    } else if let Some(last) = stim.rows.last().cloned() {
        stim.rows.resize(n, last);
    } else {
        stim.rows
            .resize(n, vec![BigUint::default(); stim.inputs.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use edgelearn_hdl::design::Direction;

    fn ports() -> Vec<PortSpec> {
        let p = |name: &str, width, signed, lanes| PortSpec {
            name: name.into(),
            direction: Direction::Input,
            width,
            signed,
            lanes,
            lane_width: width / lanes,
            clock: false,
        };
        vec![
            p("reset", 1, false, 1),
            p("data_in", 8, true, 1),
            p("weight", 24, true, 4),
        ]
    }

    #[test]
    fn parses_values_lanes_and_defaults() {
        let (s, missing) = parse(
            "b",
            &ports(),
            "# x\ndata_in,weight\n-128,1;-2;3;-32\n0x7f,\n",
        )
        .unwrap();
        assert_eq!(missing, vec!["reset".to_string()]);
        assert_eq!(s.rows[0][1], BigUint::from(0x80u32));
        assert_eq!(s.rows[1][1], BigUint::from(0x7fu32));
        assert_eq!(s.rows[1][2], s.rows[0][2], "empty cell repeats");
        assert_eq!(
            crate::value::unpack_lanes(&s.rows[0][2], 6, 4, true),
            vec![1, -2, 3, -32]
        );
        let text = write(&s);
        let (again, _) = parse("b", &ports(), &text).unwrap();
        assert_eq!(again.rows, s.rows);
    }

    #[test]
    fn errors_name_line_and_port() {
        let e = parse("b", &ports(), "data_in\n300\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("data_in"), "{e}");
        assert!(parse("b", &ports(), "nope\n1\n")
            .unwrap_err()
            .message
            .contains("not an input"));
        assert!(parse("b", &ports(), "weight\n1;2\n")
            .unwrap_err()
            .message
            .contains("lane"));
        assert!(parse("b", &ports(), "data_in\n-129\n").is_err());
        assert!(parse("b", &ports(), "data_in\nzz\n").is_err());
        assert!(parse("b", &ports(), "data_in,reset\n1\n").is_err());
        assert!(parse("b", &ports(), "").is_err());
    }

    // See: issue 10. Every prefix and random corruptions of a stimulus file: an error or a
    // stimulus, never a panic; huge numbers and widths included.
    #[test]
    fn corrupted_stimulus_files_never_panic() {
        use rand::{RngExt, SeedableRng};
        let good = "# x\nreset,data_in,weight\n1,-128,1;-2;3;-32\n0,0x7f,\n0,5,-31;31;0;7\n";
        for cut in 0..=good.len() {
            let _ = parse("b", &ports(), &good[..cut]);
        }
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(10);
        let alphabet = b"0123456789abcdefx-;,#\n \t;0x;99999999999999999999999999";
        for _ in 0..5000 {
            let mut b = good.as_bytes().to_vec();
            for _ in 0..rng.random_range(1..6) {
                let i = rng.random_range(0..b.len());
                b[i] = alphabet[rng.random_range(0..alphabet.len())];
            }
            let _ = parse("b", &ports(), &String::from_utf8_lossy(&b));
        }
        let huge = format!("data_in\n0x{}\n", "f".repeat(10_000));
        assert!(parse("b", &ports(), &huge).is_err());
    }
}
