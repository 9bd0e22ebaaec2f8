//! The FC core's errors between the LC backward pass and the weight update (hdl
//! `lel::err_fetch::ErrFetch`): BK writes piece k's errors to cache k and keeps piece 0's
//! first L; WU reads the next pass's L errors during a pass (its words 2..L+2, two cycles
//! of latency) and switches to them at the next pass's start. Cycle model in the trace
//! convention (docs/decisions.md D-CYCLE): [`ErrFetch::step`] is the edge,
//! [`ErrFetch::outputs`] what is sampled after it.

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ErrFetchIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A state is entered.
    pub clear: bool,
    /// The tree adder's error is valid.
    pub grad_valid: bool,
    /// The error.
    pub grad: i8,
    /// LS_WU.
    pub wu: bool,
    /// A pass's first word reaches the update's read stage.
    pub pass_start: bool,
    /// The sequencer issues a word.
    pub seq_emit: bool,
    /// Its index in the pass.
    pub seq_index: u16,
    /// Its piece (2 bits).
    pub seq_piece: u8,
    /// Its pass.
    pub seq_pass: u16,
    /// The gradient cache's read port.
    pub gdata: i8,
    /// Passes per piece.
    pub passes: u16,
    /// Pieces - 1.
    pub last_piece: u8,
    /// Errors per piece - 1 (10 bits).
    pub grads: u16,
}

/// What is sampled after an edge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrFetchOut {
    /// The current pass's errors.
    pub err: Vec<i8>,
    /// The gradient cache's piece.
    pub g_sel: u8,
    /// Write the error.
    pub g_we: bool,
    /// Write address.
    pub g_addr0: u16,
    /// Read address.
    pub g_addr1: u16,
    /// The last error is being written.
    pub last_grad: bool,
}

/// The registers (power-up: all 0).
#[derive(Clone, Debug)]
pub struct ErrFetch {
    lanes: usize,
    gk: u8,
    ga: u16,
    cur: Vec<i8>,
    nxt: Vec<i8>,
    pf: [bool; 2],
    lane: [u16; 2],
}

impl ErrFetch {
    /// The errors of a core with `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        ErrFetch {
            lanes,
            gk: 0,
            ga: 0,
            cur: vec![0; lanes],
            nxt: vec![0; lanes],
            pf: [false; 2],
            lane: [0; 2],
        }
    }

    fn eval(&self, i: &ErrFetchIn) -> (ErrFetchOut, ErrFetch) {
        let mut n = self.clone();
        let l = self.lanes as u16;
        if i.grad_valid {
            n.ga = (self.ga + 1) & 0x3ff;
            if self.ga == i.grads {
                (n.ga, n.gk) = (0, (self.gk + 1) & 3);
            }
            if self.gk == 0 && self.ga < l {
                n.nxt[self.ga as usize] = i.grad;
            }
        }
        if i.clear {
            (n.gk, n.ga) = (0, 0);
        }
        if i.pass_start && i.wu {
            n.cur = self.nxt.clone();
        }
        let (mut pf_piece, mut pf_pass) = (i.seq_piece, i.seq_pass.wrapping_add(1));
        if pf_pass == i.passes {
            (pf_piece, pf_pass) = ((i.seq_piece + 1) & 3, 0);
        }
        let pf_idx = i.seq_index.wrapping_sub(2);
        let issue = i.wu
            && i.seq_emit
            && i.seq_index >= 2
            && i.seq_index < l + 2
            && !(i.seq_piece == i.last_piece && i.seq_pass.wrapping_add(1) == i.passes);
        let pf_addr = (pf_pass << l.trailing_zeros()).wrapping_add(pf_idx);
        n.pf = [issue, self.pf[0]];
        n.lane = [pf_idx & 15, self.lane[0]];
        if self.pf[1] && self.lane[1] < l {
            n.nxt[self.lane[1] as usize] = i.gdata;
        }
        if i.reset {
            n.pf = [false; 2];
        }
        let o = ErrFetchOut {
            err: self.cur.clone(),
            g_sel: if i.wu { pf_piece } else { self.gk },
            g_we: i.grad_valid,
            g_addr0: self.ga,
            g_addr1: pf_addr & 0x3ff,
            last_grad: i.grad_valid && self.gk == i.last_piece && self.ga == i.grads,
        };
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ErrFetchIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &ErrFetchIn) -> ErrFetchOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BK writes piece by piece and keeps piece 0's first errors; WU's first pass uses
    /// them, and the next pass's errors are read during it and switched to at its start.
    #[test]
    fn errors_reach_the_update_a_pass_ahead() {
        let (lanes, passes, pieces) = (2usize, 2u16, 2u8);
        let grads = passes * lanes as u16; // G per piece
        let mut m = ErrFetch::new(lanes);
        let base = ErrFetchIn {
            passes,
            last_piece: pieces - 1,
            grads: grads - 1,
            ..Default::default()
        };
        let mut writes = vec![];
        for e in 0..(grads * pieces as u16) {
            let i = ErrFetchIn {
                grad_valid: true,
                grad: e as i8 + 10,
                ..base
            };
            let o = m.outputs(&i);
            writes.push((o.g_sel, o.g_addr0));
            assert_eq!(o.last_grad, e == grads * pieces as u16 - 1);
            m.step(&i);
        }
        assert_eq!(writes[..5], [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]);
        // WU, pass 0 of piece 0 starts: errors 10, 11.
        m.step(&ErrFetchIn {
            clear: true,
            ..base
        });
        let wu = ErrFetchIn { wu: true, ..base };
        m.step(&ErrFetchIn {
            pass_start: true,
            ..wu
        });
        assert_eq!(m.outputs(&wu).err, [10, 11]);
        // Words 2 and 3 of pass 0 read pass 1's errors at 2, 3 (cache 0).
        let mut reads = vec![];
        for k in 0..6u16 {
            let i = ErrFetchIn {
                seq_emit: true,
                seq_index: k,
                gdata: 20 + k as i8,
                ..wu
            };
            let o = m.outputs(&i);
            if (2..4).contains(&k) {
                reads.push((o.g_sel, o.g_addr1));
            }
            m.step(&i);
        }
        assert_eq!(reads, [(0, 2), (0, 3)]);
        // The reads answered two cycles later: gdata at k = 4, 5.
        m.step(&ErrFetchIn {
            pass_start: true,
            ..wu
        });
        assert_eq!(m.outputs(&wu).err, [24, 25]);
    }
}
