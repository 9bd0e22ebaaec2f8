//! Golden model of the FC core's word sequencer (`edgelearn_hdl::lel::word_seq`): which
//! word it issues in each cycle after `start`, with idle cycles after every pass (`gap`),
//! after every piece (`drain`) and wherever `stall` holds it.

/// One issued word.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Word {
    /// Piece (cache `p_sel`).
    pub piece: usize,
    /// Pass within the piece.
    pub pass: usize,
    /// Word within the pass.
    pub index: usize,
    /// `pass * words + index`.
    pub addr: usize,
    /// The sequence's final word.
    pub last: bool,
}

/// Dimensions of a sequence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SeqDims {
    /// Pieces.
    pub pieces: usize,
    /// Passes per piece.
    pub passes: usize,
    /// Words per pass.
    pub words: usize,
    /// One idle cycle after every pass.
    pub gap: bool,
    /// Idle cycles after every piece.
    pub drain: usize,
}

/// The words issued in each cycle from the cycle after `start` until the sequence is done
/// (`None` for an idle cycle). `stall(c)` holds the sequencer in cycle c while it is
/// issuing; it is not asked during gaps and drains.
pub fn word_seq(d: SeqDims, stall: &mut dyn FnMut(usize) -> bool) -> Vec<Option<Word>> {
    let mut out = Vec::new();
    for k in 0..d.pieces {
        for p in 0..d.passes {
            for i in 0..d.words {
                while stall(out.len()) {
                    out.push(None);
                }
                out.push(Some(Word {
                    piece: k,
                    pass: p,
                    index: i,
                    addr: p * d.words + i,
                    last: k + 1 == d.pieces && p + 1 == d.passes && i + 1 == d.words,
                }));
            }
            if d.gap {
                out.push(None);
            }
        }
        out.extend(std::iter::repeat_n(None, d.drain));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fc_core_counts() {
        // INF of FC core 1: 120 passes of 120 words with a gap: (120 + 1) x 120 cycles.
        let inf = SeqDims {
            pieces: 4,
            passes: 30,
            words: 120,
            gap: true,
            drain: 0,
        };
        assert_eq!(word_seq(inf, &mut |_| false).len(), 121 * 120);
        // WU: four drain cycles after each piece.
        let wu = SeqDims {
            gap: false,
            drain: 4,
            ..inf
        };
        let v = word_seq(wu, &mut |_| false);
        assert_eq!(v.len(), 14_400 + 16);
        assert!(v[14_400 + 15 - 4].is_some_and(|w| w.last));
    }
}
