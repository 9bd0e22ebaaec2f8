//! The conv core's LOAD phase (hdl `lel::conv_load::ConvLoad`): the image stream, four
//! pixels a beat, written one cycle later into the image cache at `{channel, row, word}`,
//! the label from the image's first beat. Cycle model in the trace convention
//! (docs/decisions.md D-CYCLE): [`ConvLoad::step`] is the edge, [`ConvLoad::outputs`] what is
//! sampled after it.

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvLoadIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A new image.
    pub start: bool,
    /// The core is in CS_LOAD.
    pub active: bool,
    /// Input channels - 1 (2 bits).
    pub in_last: u8,
    /// Image rows - 1 (5 bits).
    pub rows_last: u8,
    /// Beats per row - 1 (3 bits).
    pub words_last: u8,
    /// The beat.
    pub s_tdata: u32,
    /// Beat valid.
    pub s_tvalid: bool,
    /// The image's label.
    pub s_tuser: u8,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvLoadOut {
    /// Beat taken.
    pub s_tready: bool,
    /// A write this cycle.
    pub wr_en: bool,
    /// Its address `{channel[1:0], row[4:0], word[2:0]}`.
    pub wr_addr: u16,
    /// Its data.
    pub wr_data: u32,
    /// The image's label.
    pub label: u8,
    /// LOAD is over.
    pub done: bool,
}

/// The walk's registers.
#[derive(Clone, Debug, Default)]
pub struct ConvLoad {
    loading: bool,
    got_label: bool,
    ch: u8,
    row: u8,
    word: u8,
    we: bool,
    addr: u16,
    data: u32,
    label: u8,
}

impl ConvLoad {
    /// Power-up state (all zero).
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ConvLoadIn) {
        let old = self.clone();
        self.we = false;
        if i.active && old.loading && i.s_tvalid {
            self.we = true;
            if !old.got_label {
                self.label = i.s_tuser & 15;
                self.got_label = true;
            }
            self.word = (old.word + 1) & 7;
            if old.word == i.words_last & 7 {
                self.word = 0;
                self.row = (old.row + 1) & 31;
                if old.row == i.rows_last & 31 {
                    self.row = 0;
                    self.ch = (old.ch + 1) & 3;
                    if old.ch == i.in_last & 3 {
                        self.loading = false;
                    }
                }
            }
        }
        if i.start {
            (self.loading, self.got_label) = (true, false);
            (self.ch, self.row, self.word) = (0, 0, 0);
        }
        self.addr = (old.ch as u16) << 8 | (old.row as u16) << 3 | old.word as u16;
        self.data = i.s_tdata;
        if i.reset {
            (self.loading, self.we, self.label) = (false, false, 0);
        }
    }

    /// The outputs of the state (the registers as they are) with the inputs `i` applied.
    pub fn outputs(&self, i: &ConvLoadIn) -> ConvLoadOut {
        ConvLoadOut {
            s_tready: i.active && self.loading,
            wr_en: self.we,
            wr_addr: self.addr,
            wr_data: self.data,
            label: self.label,
            done: i.active && !self.loading && !self.we,
        }
    }
}

/// The writes one image makes, in order, for `ci` channels of `h` rows of `w` pixels
/// (`w` a multiple of 4, CHW beats): `(address, beat)`.
pub fn writes(ci: usize, h: usize, w: usize, beats: &[u32]) -> Vec<(u16, u32)> {
    let words = w / 4;
    (0..ci * h * words)
        .map(|k| {
            let (c, r, x) = (k / (h * words), k / words % h, k % words);
            ((c << 8 | r << 3 | x) as u16, beats[k])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_model_writes_the_image_in_chw_order_then_is_done() {
        // 2 x 3 x 8 pixels: 12 beats, with a pause; the label from the first beat only.
        let beats: Vec<u32> = (0..12).map(|k| 0x8000_0000 | k).collect();
        let shape = ConvLoadIn {
            in_last: 1,
            rows_last: 2,
            words_last: 1,
            ..Default::default()
        };
        let mut m = ConvLoad::new();
        m.step(&ConvLoadIn {
            start: true,
            ..shape
        });
        let (mut got, mut k, mut cycles) = (vec![], 0, 0);
        loop {
            let valid = k < beats.len() && cycles != 5;
            let i = ConvLoadIn {
                active: true,
                s_tvalid: valid,
                s_tdata: if valid { beats[k] } else { 0 },
                s_tuser: 7 + k as u8,
                ..shape
            };
            let before = m.outputs(&i);
            if before.done {
                break;
            }
            if before.s_tready && valid {
                k += 1;
            }
            m.step(&i);
            let o = m.outputs(&i);
            if o.wr_en {
                got.push((o.wr_addr, o.wr_data));
            }
            cycles += 1;
        }
        assert_eq!(got, writes(2, 3, 8, &beats));
        assert_eq!(got[3].0, 1 << 3 | 1, "channel 0, row 1, word 1");
        assert_eq!(got[6].0, 1 << 8, "channel 1, row 0, word 0");
        assert_eq!(m.outputs(&ConvLoadIn::default()).label, 7);
        // 12 beats, a pause, the last write, then done.
        assert_eq!(cycles, 14);
    }
}
