//! Golden models of the AXI-Stream width adapters (hdl `lel::stream_resize`): K narrow beats
//! to one wide beat ([`Upsizer`]) and back ([`Downsizer`]), the first narrow beat in the low
//! bits, edge by edge in the trace convention (docs/decisions.md D-CYCLE): the outputs after
//! an edge, with that cycle's inputs still applied.

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResizeIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Input beat.
    pub s_tdata: u64,
    /// Input TUSER (4 bits).
    pub s_tuser: u8,
    /// Input TLAST.
    pub s_tlast: bool,
    /// Input valid.
    pub s_tvalid: bool,
    /// Consumer ready.
    pub m_tready: bool,
}

/// The outputs after an edge.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResizeOut {
    /// The input beat would be taken.
    pub s_tready: bool,
    /// Output beat.
    pub m_tdata: u64,
    /// Output TUSER.
    pub m_tuser: u8,
    /// Output TLAST.
    pub m_tlast: bool,
    /// Output valid.
    pub m_tvalid: bool,
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    }
}

/// K beats of `iw` bits to one of K `iw` bits (at most 64): the lanes before the last held,
/// the last passed through.
#[derive(Clone, Debug)]
pub struct Upsizer {
    iw: usize,
    k: usize,
    word: u64,
    n: usize,
}

impl Upsizer {
    /// An empty adapter (as after reset).
    pub fn new(iw: usize, k: usize) -> Self {
        assert!(k >= 1 && iw * k <= 64, "Upsizer: {k} x {iw} bits");
        Upsizer {
            iw,
            k,
            word: 0,
            n: 0,
        }
    }

    /// `s_tready` with `m_tready` applied (it is combinational): `m_tready`.
    pub fn ready(&self, m_tready: bool) -> bool {
        m_tready
    }

    /// The outputs with `i` applied to the current state (all but the held lanes are
    /// combinational).
    pub fn outputs(&self, i: &ResizeIn) -> ResizeOut {
        let completes = self.n + 1 == self.k || i.s_tlast;
        ResizeOut {
            s_tready: i.m_tready,
            m_tdata: self.word | (i.s_tdata & mask(self.iw)) << (self.n * self.iw),
            m_tuser: i.s_tuser & 15,
            m_tlast: i.s_tlast,
            m_tvalid: i.s_tvalid && completes,
        }
    }

    /// One rising edge with `i` applied; the outputs after it (with `i` still applied).
    pub fn step(&mut self, i: &ResizeIn) -> ResizeOut {
        if i.reset {
            *self = Upsizer::new(self.iw, self.k);
        } else if i.s_tvalid && i.m_tready {
            if self.n + 1 == self.k || i.s_tlast {
                (self.word, self.n) = (0, 0);
            } else {
                self.word |= (i.s_tdata & mask(self.iw)) << (self.n * self.iw);
                self.n += 1;
            }
        }
        self.outputs(i)
    }
}

/// One beat of K `ow` bits (at most 64) to K of `ow` bits.
#[derive(Clone, Debug)]
pub struct Downsizer {
    ow: usize,
    k: usize,
    held: (u64, u8, bool),
    valid: bool,
    lane: usize,
}

impl Downsizer {
    /// An empty adapter (as after reset).
    pub fn new(ow: usize, k: usize) -> Self {
        assert!(k >= 1 && ow * k <= 64, "Downsizer: {k} x {ow} bits");
        Downsizer {
            ow,
            k,
            held: (0, 0, false),
            valid: false,
            lane: 0,
        }
    }

    /// `s_tready` before the edge, with `m_tready` applied (it is combinational).
    pub fn ready(&self, m_tready: bool) -> bool {
        !self.valid || (m_tready && self.lane + 1 == self.k)
    }

    /// One rising edge with `i` applied; the outputs after it.
    pub fn step(&mut self, i: &ResizeIn) -> ResizeOut {
        let last_lane = self.lane + 1 == self.k;
        let take = i.s_tvalid && (!self.valid || (i.m_tready && last_lane));
        if i.reset {
            *self = Downsizer::new(self.ow, self.k);
        } else {
            if self.valid && i.m_tready {
                if last_lane {
                    (self.valid, self.lane) = (false, 0);
                } else {
                    self.lane += 1;
                }
            }
            if take {
                self.held = (i.s_tdata, i.s_tuser & 15, i.s_tlast);
                (self.valid, self.lane) = (true, 0);
            }
        }
        let (data, user, last) = self.held;
        let last_lane = self.lane + 1 == self.k;
        ResizeOut {
            s_tready: !self.valid || (i.m_tready && last_lane),
            m_tdata: (data >> (self.lane * self.ow)) & mask(self.ow),
            m_tuser: user,
            m_tlast: last && last_lane,
            m_tvalid: self.valid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A round trip through both adapters under random ready and valid keeps every beat,
    /// in order, with its TUSER and TLAST.
    #[test]
    fn up_then_down_returns_the_narrow_beats() {
        let mut up = Upsizer::new(32, 2);
        let mut down = Downsizer::new(32, 2);
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let beats: Vec<(u64, u8, bool)> = (0..400u64)
            .map(|n| (rnd() & 0xffff_ffff, (n / 2 % 16) as u8, n % 6 == 5))
            .collect();
        let (mut sent, mut got) = (0, Vec::new());
        let mut d_out = ResizeOut::default();
        for _ in 0..4000 {
            let offer = sent < beats.len() && rnd() % 3 != 0;
            let sink_ready = rnd() % 4 != 0;
            let (d, u, l) = beats.get(sent).copied().unwrap_or_default();
            // The upsizer's word this cycle feeds the downsizer's input.
            let up_in = ResizeIn {
                s_tdata: d,
                s_tuser: u,
                s_tlast: l,
                s_tvalid: offer,
                m_tready: down.ready(sink_ready),
                ..Default::default()
            };
            let word = up.outputs(&up_in);
            let down_in = ResizeIn {
                s_tdata: word.m_tdata,
                s_tuser: word.m_tuser,
                s_tlast: word.m_tlast,
                s_tvalid: word.m_tvalid,
                m_tready: sink_ready,
                ..Default::default()
            };
            if offer && up.ready(up_in.m_tready) {
                sent += 1;
            }
            if d_out.m_tvalid && sink_ready {
                got.push((d_out.m_tdata, d_out.m_tuser, d_out.m_tlast));
            }
            up.step(&up_in);
            d_out = down.step(&down_in);
        }
        assert_eq!(sent, beats.len());
        // TUSER is the completing beat's, on both halves of a wide beat.
        let expect: Vec<(u64, u8, bool)> = beats
            .chunks(2)
            .flat_map(|c| {
                let user = c.last().unwrap().1;
                c.iter()
                    .map(move |&(d, _, l)| (d, user, l))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(got, expect);
    }
}
