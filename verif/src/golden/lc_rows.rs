//! The FC core's walk over the local classifier's rows (hdl `lel::lc_rows::LcRows`): row r
//! is lane r mod L of word r / L; forward as soon as asked, backward after a two-cycle
//! wait; the row's input and mask bit a cycle after its read. Cycle model in the trace
//! convention (docs/decisions.md D-CYCLE): [`LcRows::step`] is the edge,
//! [`LcRows::outputs`] what is sampled after it.

use edgelearn_hdl::lel::lc_rows::BK_WAIT;

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct LcRowsIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A state is entered.
    pub clear: bool,
    /// Walk forward.
    pub fwd: bool,
    /// Walk backward.
    pub bk: bool,
    /// Rows O.
    pub rows: u16,
    /// The LC-input memory's word, lane by lane (int8).
    pub lcin: Vec<i8>,
    /// The mask memory's word, lane by lane.
    pub mask: Vec<bool>,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LcRowsOut {
    /// A row is read.
    pub step: bool,
    /// The read address.
    pub word: u16,
    /// `lc_in`, `lc_mask` hold the row read a cycle ago.
    pub valid: bool,
    /// Its LC input.
    pub lc_in: i8,
    /// Its mask bit.
    pub lc_mask: bool,
}

/// The walk's registers (power-up: all 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct LcRows {
    lanes: usize,
    row: u16,
    word: u16,
    lane: usize,
    wait: u64,
    valid: bool,
    lane_q: usize,
}

impl LcRows {
    /// The walk of a core with `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        LcRows {
            lanes,
            ..Default::default()
        }
    }

    fn eval(&self, i: &LcRowsIn) -> (LcRowsOut, LcRows) {
        let mut n = *self;
        let read = self.row != i.rows && (i.fwd || (i.bk && self.wait == BK_WAIT));
        if i.bk && self.wait != BK_WAIT {
            n.wait = self.wait + 1;
        }
        if read {
            n.row = self.row.wrapping_add(1);
            n.lane = (self.lane + 1) % self.lanes;
            if n.lane == 0 {
                n.word = (self.word + 1) & 0x3ff;
            }
        }
        (n.valid, n.lane_q) = (read, self.lane);
        if i.clear {
            (n.row, n.word, n.lane, n.wait) = (0, 0, 0, 0);
        }
        if i.reset {
            n.valid = false;
        }
        let o = LcRowsOut {
            step: read,
            word: self.word,
            valid: self.valid,
            lc_in: i.lcin[self.lane_q],
            lc_mask: i.mask[self.lane_q],
        };
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &LcRowsIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &LcRowsIn) -> LcRowsOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Forward: rows 0..O one a cycle, lane by lane through the words, then nothing; each
    /// row's lane picked a cycle later. Backward after a clear: two idle cycles first.
    #[test]
    fn rows_walk_lane_by_lane_and_backward_waits_two_cycles() {
        let mut m = LcRows::new(4);
        let mut i = LcRowsIn {
            fwd: true,
            rows: 6,
            lcin: vec![10, 11, 12, 13],
            mask: vec![false, true, false, true],
            ..Default::default()
        };
        let mut reads = vec![];
        for _ in 0..8 {
            let o = m.outputs(&i);
            if o.valid {
                reads.push((o.lc_in, o.lc_mask));
            }
            if o.step {
                reads.push((-(o.word as i8), false));
            }
            m.step(&i);
        }
        // Words 0, 0, 0, 0, 1, 1; lanes 0..3 then 0, 1.
        let lanes: Vec<i8> = reads.iter().map(|r| r.0).filter(|&v| v >= 10).collect();
        assert_eq!(lanes, [10, 11, 12, 13, 10, 11]);
        let words: Vec<i8> = reads.iter().map(|r| r.0).filter(|&v| v <= 0).collect();
        assert_eq!(words, [0, 0, 0, 0, -1, -1]);
        i.fwd = false;
        i.clear = true;
        m.step(&i);
        i.clear = false;
        i.bk = true;
        let steps: Vec<bool> = (0..4)
            .map(|_| {
                let s = m.outputs(&i).step;
                m.step(&i);
                s
            })
            .collect();
        assert_eq!(steps, [false, false, true, true]);
    }
}
