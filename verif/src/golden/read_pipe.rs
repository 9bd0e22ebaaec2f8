//! The FC core's read pipeline (hdl `lel::read_pipe::ReadPipe`): a read word carried
//! stage by stage, and its activation (lane `index mod L` of word `index / L`) picked out
//! of the activation cache's answer at stage 2. Cycle model in the trace convention
//! (docs/decisions.md D-CYCLE): [`ReadPipe::step`] is the edge, [`ReadPipe::outputs`]
//! what is sampled after it.

/// One cycle's inputs.
#[derive(Clone, Debug, Default)]
pub struct ReadPipeIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A word is read.
    pub issue: bool,
    /// Its index in the pass.
    pub index: u16,
    /// Its pass's first.
    pub first: bool,
    /// The sequence's last.
    pub last: bool,
    /// Its weight-cache address.
    pub addr: u16,
    /// The activation cache's read port, lane by lane.
    pub act_data: Vec<i8>,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadPipeOut {
    /// The activation word to read (12 bits).
    pub act_addr: u16,
    /// A word at stage 1, 2, 4.
    pub v: [bool; 3],
    /// Stage 1 holds a pass's first word.
    pub start1: bool,
    /// Stage 2 holds the sequence's last word.
    pub last2: bool,
    /// The address at stage 4.
    pub addr4: u16,
    /// The activation at stage 2.
    pub act_lane: i8,
}

/// One stage's word.
#[derive(Clone, Copy, Debug, Default)]
struct Stage {
    valid: bool,
    lane: u16,
    first: bool,
    last: bool,
    addr: u16,
}

/// The pipeline's registers (power-up: all 0); `s[k]` is stage k + 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadPipe {
    lanes: usize,
    s: [Stage; 4],
}

impl ReadPipe {
    /// The pipeline of a core with `lanes` lanes.
    pub fn new(lanes: usize) -> Self {
        ReadPipe {
            lanes,
            ..Default::default()
        }
    }

    fn eval(&self, i: &ReadPipeIn) -> (ReadPipeOut, ReadPipe) {
        let l = self.lanes as u16;
        let mut n = *self;
        n.s = [
            Stage {
                valid: i.issue,
                lane: i.index & (l - 1),
                first: i.first,
                last: i.last,
                addr: i.addr,
            },
            self.s[0],
            self.s[1],
            self.s[2],
        ];
        if i.reset {
            n.s.iter_mut().for_each(|s| s.valid = false);
        }
        let o = ReadPipeOut {
            act_addr: (i.index >> l.trailing_zeros()) & 0xfff,
            v: [self.s[0].valid, self.s[1].valid, self.s[3].valid],
            start1: self.s[0].valid && self.s[0].first,
            last2: self.s[1].last,
            addr4: self.s[3].addr,
            act_lane: i.act_data[self.s[1].lane as usize],
        };
        (o, n)
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ReadPipeIn) {
        *self = self.eval(i).1;
    }

    /// The outputs of the registers as they are with the inputs `i` applied.
    pub fn outputs(&self, i: &ReadPipeIn) -> ReadPipeOut {
        self.eval(i).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word issued at cycle 0 is at stage 1 after the first edge, 2 after the second,
    /// 4 after the fourth; its activation is its lane of what the cache answers at stage 2.
    #[test]
    fn a_word_walks_the_stages_and_picks_its_lane() {
        let mut m = ReadPipe::new(4);
        let i = ReadPipeIn {
            issue: true,
            index: 6,
            first: true,
            addr: 77,
            act_data: vec![1, 2, 3, 4],
            ..Default::default()
        };
        assert_eq!(m.outputs(&i).act_addr, 1);
        m.step(&i);
        let idle = ReadPipeIn {
            act_data: vec![1, 2, 3, 4],
            ..Default::default()
        };
        assert!(m.outputs(&idle).start1);
        m.step(&idle);
        let o = m.outputs(&idle);
        assert_eq!((o.v, o.act_lane), ([false, true, false], 3));
        m.step(&idle);
        m.step(&idle);
        let o = m.outputs(&idle);
        assert_eq!((o.v, o.addr4), ([false, false, true], 77));
    }
}
