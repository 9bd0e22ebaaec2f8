//! What the FC core puts into its output FIFO (hdl `lel::fc_out::FcOut`): INF's pass
//! results with the label (and their LC-memory writes at the pass's index), READ's weight
//! words with each int6 lane sign-extended to a byte, and the credit that starts a pass or
//! a word only with room for its result. Cycle model in the trace convention
//! (docs/decisions.md D-CYCLE): [`FcOut::step`] is the edge, [`FcOut::outputs`] what is
//! sampled after it.

use edgelearn_hdl::lel::fc_out::FC_FIFO_DEPTH;

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct FcOutIn {
    /// A state is entered.
    pub clear: bool,
    /// LS_INF.
    pub inf: bool,
    /// LS_READ.
    pub read: bool,
    /// The matmul's pass result is valid.
    pub mm_valid: bool,
    /// Its outputs, lane by lane.
    pub mm_fc: Vec<i8>,
    /// The image's label.
    pub label: u8,
    /// Read stage 2 holds a word.
    pub rd_v2: bool,
    /// It is the sequence's last.
    pub rd_last2: bool,
    /// The weight cache's read port, lane by lane (int6).
    pub weight: Vec<i8>,
    /// The sequencer issues a word.
    pub seq_emit: bool,
    /// It is a pass's first.
    pub seq_first: bool,
    /// Beats in the output FIFO.
    pub fifo_count: u8,
    /// Passes - 1.
    pub out_passes: u16,
}

/// What is sampled after an edge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FcOutOut {
    /// A beat goes into the FIFO.
    pub push: bool,
    /// Its lanes.
    pub data: Vec<i8>,
    /// Its TUSER.
    pub user: u8,
    /// Its TLAST.
    pub last: bool,
    /// Write the LC memories.
    pub lc_we: bool,
    /// At this index.
    pub lc_addr: u16,
    /// The LC forward pass runs.
    pub lc_run: bool,
    /// Room for one more result.
    pub credit: bool,
    /// Nothing in flight, the FIFO empty.
    pub drained: bool,
}

/// The registers (power-up: all 0).
#[derive(Clone, Copy, Debug, Default)]
pub struct FcOut {
    pass: u16,
    run: bool,
    inflight: u8,
}

impl FcOut {
    fn eval(&self, i: &FcOutIn) -> (FcOutOut, FcOut) {
        let mut n = *self;
        let pass_out = i.mm_valid && i.inf;
        let word_out = i.read && i.rd_v2;
        let mut o = FcOutOut {
            data: i.mm_fc.clone(),
            user: i.label,
            lc_we: pass_out,
            lc_addr: self.pass,
            lc_run: self.run,
            credit: ((i.fifo_count + self.inflight) & 63) < FC_FIFO_DEPTH as u8,
            drained: self.inflight == 0 && i.fifo_count == 0,
            ..Default::default()
        };
        if pass_out {
            (o.push, o.last) = (true, self.pass == i.out_passes);
            n.pass = (self.pass + 1) & 0x3ff;
            n.run |= self.pass == i.out_passes;
        }
        if word_out {
            (o.push, o.user, o.last) = (true, 0, i.rd_last2);
            o.data = i.weight.clone();
        }
        let take = i.seq_emit && ((i.inf && i.seq_first) || i.read);
        let give = pass_out || word_out;
        match (take, give) {
            (true, false) => n.inflight = (self.inflight + 1) & 63,
            (false, true) => n.inflight = self.inflight.wrapping_sub(1) & 63,
            _ => {}
        }
        if i.clear {
            (n.pass, n.run, n.inflight) = (0, false, 0);
        }
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &FcOutIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &FcOutIn) -> FcOutOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two passes: each pushed with the label, the second last and starting the LC pass;
    /// a started pass holds a credit until its result is pushed.
    #[test]
    fn passes_are_pushed_and_credited() {
        let mut m = FcOut::default();
        let base = FcOutIn {
            inf: true,
            label: 7,
            mm_fc: vec![1, -2],
            weight: vec![-32, 31],
            out_passes: 1,
            ..Default::default()
        };
        for _ in 0..FC_FIFO_DEPTH {
            let start = FcOutIn {
                seq_emit: true,
                seq_first: true,
                ..base.clone()
            };
            assert!(m.outputs(&start).credit);
            m.step(&start);
        }
        assert!(
            !m.outputs(&base).credit,
            "eight passes on their way fill the FIFO"
        );
        let res = FcOutIn {
            mm_valid: true,
            ..base.clone()
        };
        let o = m.outputs(&res);
        assert_eq!((o.push, o.user, o.last, o.lc_addr), (true, 7, false, 0));
        m.step(&res);
        let o = m.outputs(&res);
        assert!(o.credit && o.last);
        m.step(&res);
        assert!(m.outputs(&base).lc_run);
        // READ: the weight word, sign-extended, TUSER 0.
        let rd = FcOutIn {
            inf: false,
            read: true,
            rd_v2: true,
            rd_last2: true,
            ..base
        };
        let o = m.outputs(&rd);
        assert_eq!((o.data, o.user, o.last), (vec![-32, 31], 0, true));
    }
}
