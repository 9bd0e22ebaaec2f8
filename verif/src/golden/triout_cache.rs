//! Golden model of the triout cache, image variant (thesis §4.1.9; spec §3.9, §7-28):
//! channels of `rows` rows of `width` int8 pixels, written `lanes` pixels at a time at
//! address `{channel, row, word}`, read out three rows at a time.
//!
//! Protocol (docs/decisions.md D-TRIOUT): while `clr_opt` is high the cache is cleared;
//! at the first edge with it low, rows 0, 1, 2 of `cur_channel` are read on three
//! consecutive edges and `valid_out` rises one edge after the third read (4 cycles after
//! `clr_opt` falls). With `valid_out` high and not `eof`, `pop_en` reads the next row at
//! that edge (dropping `valid_out`) and shifts it in at the next (raising it): 2 cycles per
//! row. `eof` is high with `valid_out` when row `rows - 1` is the current row.

/// Geometry of a triout cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TrioutGeometry {
    /// Channels stored.
    pub channels: usize,
    /// Rows per channel.
    pub rows: usize,
    /// Words per row (a power of two).
    pub words: usize,
    /// Pixels per word.
    pub lanes: usize,
    /// Row address bits (rows <= 2^row_bits).
    pub row_bits: u32,
    /// Channel address bits.
    pub channel_bits: u32,
}

impl TrioutGeometry {
    /// The thesis image cache: 3 x 32 x 32, 4 pixels per write.
    pub const THESIS_IMAGE: TrioutGeometry = TrioutGeometry {
        channels: 3,
        rows: 32,
        words: 8,
        lanes: 4,
        row_bits: 5,
        channel_bits: 2,
    };

    /// Pixels per row.
    pub fn width(&self) -> usize {
        self.words * self.lanes
    }

    /// The write address of `(channel, row, word)`.
    pub fn address(&self, channel: usize, row: usize, word: usize) -> usize {
        (channel << (self.row_bits as usize + self.words.trailing_zeros() as usize))
            | (row << self.words.trailing_zeros())
            | word
    }
}

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrioutIn {
    /// Synchronous reset.
    pub reset: bool,
    /// Write address.
    pub addr_in: usize,
    /// Pixels to write.
    pub data_in: Vec<i64>,
    /// Write enable.
    pub wr_en: bool,
    /// Channel to read.
    pub cur_channel: usize,
    /// Restart.
    pub clr_opt: bool,
    /// Next row.
    pub pop_en: bool,
}

/// Outputs after one edge; the rows are defined while `valid_out`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrioutOut {
    /// `[row r-2, row r-1, row r]` when valid.
    pub rows: Option<[Vec<i64>; 3]>,
    /// `valid_out`.
    pub valid_out: bool,
    /// `eof`.
    pub eof: bool,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Idle,
    Clear,
    Load { left: usize },
    Ready,
    Fetch,
}

/// Cycle model.
#[derive(Clone, Debug)]
pub struct TrioutCache {
    g: TrioutGeometry,
    mem: Vec<Vec<Vec<i64>>>,
    state: State,
    channel: usize,
    next_row: usize,
    read: Option<Vec<i64>>,
    out: [Vec<i64>; 3],
    valid: bool,
    eof: bool,
}

impl TrioutCache {
    /// Empty (zero) cache.
    pub fn new(g: TrioutGeometry) -> Self {
        TrioutCache {
            g,
            mem: vec![vec![vec![0; g.width()]; 1 << g.row_bits]; g.channels],
            state: State::Idle,
            channel: 0,
            next_row: 0,
            read: None,
            out: [vec![0; g.width()], vec![0; g.width()], vec![0; g.width()]],
            valid: false,
            eof: false,
        }
    }

    fn row(&self, channel: usize, row: usize) -> Vec<i64> {
        self.mem
            .get(channel)
            .map(|c| c[row].clone())
            .unwrap_or_else(|| vec![0; self.g.width()])
    }

    /// One clock edge.
    pub fn step(&mut self, i: &TrioutIn) -> TrioutOut {
        let rb = self.g.row_bits as usize;
        let row_mask = (1 << rb) - 1;
        // The read issued at this edge (from the memory before this edge's write).
        let (rd_ch, rd_row) = if self.state == State::Clear {
            (i.cur_channel, 0)
        } else {
            (self.channel, self.next_row & row_mask)
        };
        let issued = self.row(rd_ch, rd_row);
        let shift = self.read.take();
        let mut read_now = false;
        match self.state {
            State::Clear => {
                self.channel = i.cur_channel;
                self.next_row = 1;
                self.state = State::Load { left: 2 };
                read_now = true;
            }
            State::Load { left } => {
                if left > 0 {
                    self.next_row += 1;
                    self.state = State::Load { left: left - 1 };
                    read_now = true;
                } else {
                    self.state = State::Ready;
                    self.valid = true;
                    self.eof = self.next_row == self.g.rows;
                }
            }
            State::Ready => {
                if i.pop_en && !self.eof {
                    self.next_row += 1;
                    self.valid = false;
                    self.state = State::Fetch;
                    read_now = true;
                }
            }
            State::Fetch => {
                self.valid = true;
                self.eof = self.next_row == self.g.rows;
                self.state = State::Ready;
            }
            State::Idle => {}
        }
        if let Some(r) = shift {
            self.out.rotate_left(1);
            self.out[2] = r;
        }
        if read_now {
            self.read = Some(issued);
        }
        if i.clr_opt || i.reset {
            self.state = if i.reset { State::Idle } else { State::Clear };
            self.valid = false;
            self.eof = false;
            self.read = None;
        }
        if i.wr_en {
            let wb = self.g.words.trailing_zeros() as usize;
            let word = i.addr_in & (self.g.words - 1);
            let row = (i.addr_in >> wb) & row_mask;
            let ch = i.addr_in >> (wb + rb);
            if ch < self.g.channels {
                for (j, &v) in i.data_in.iter().enumerate() {
                    self.mem[ch][row][word * self.g.lanes + j] = v;
                }
            }
        }
        TrioutOut {
            rows: self.valid.then(|| self.out.clone()),
            valid_out: self.valid,
            eof: self.eof,
        }
    }

    /// Write row `row` of `channel` (`pixels`, `lanes` a cycle, one edge each), as the
    /// core's load does.
    pub fn write_row(&mut self, channel: usize, row: usize, pixels: &[u8]) {
        let lanes = self.g.lanes;
        for (word, px) in pixels.chunks(lanes).enumerate() {
            self.step(&TrioutIn {
                addr_in: self.g.address(channel, row, word),
                data_in: px.iter().map(|&p| p as i64).collect(),
                wr_en: true,
                ..Default::default()
            });
        }
    }
}

impl TrioutOut {
    /// The three rows as bytes (32 a row, zero past the cache's width), while valid: what a
    /// block reading the cache's 256-bit row ports sees.
    pub fn row_bytes(&self) -> Option<[[u8; 32]; 3]> {
        self.rows.as_ref().map(|r| {
            r.clone()
                .map(|row| std::array::from_fn(|k| row.get(k).map_or(0, |&p| p as u8)))
        })
    }
}
