//! The conv core's CONV phase for one output channel (hdl `lel::conv_scan::ConvScan`): three
//! image rows at a time from the image cache into line registers, shifted one column a cycle
//! into a 3x3 window (complete from the third column), the cache popped for the next row;
//! and the inter-FM address `{y, x}` of each result as it comes back. Cycle model in the
//! trace convention (docs/decisions.md D-CYCLE): [`ConvScan::step`] is the edge,
//! [`ConvScan::outputs`] what is sampled after it.

/// A row of the cache: 32 int8 pixels, pixel 0 first.
pub type Row = [u8; 32];

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvScanIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The core is in CS_CONV.
    pub active: bool,
    /// Output rows - 1 (5 bits).
    pub rows_last: u8,
    /// Image columns - 1 (6 bits).
    pub shift_last: u8,
    /// Output columns - 1 (5 bits).
    pub cols_last: u8,
    /// The cache's rows are valid.
    pub rows_valid: bool,
    /// The three rows, top first.
    pub rows: [Row; 3],
    /// A result is written this cycle.
    pub result: bool,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvScanOut {
    /// Restart the cache's rows.
    pub rows_clr: bool,
    /// Advance them one row.
    pub rows_pop: bool,
    /// The window, tap `3 dy + dx`.
    pub window: [u8; 9],
    /// It is complete.
    pub window_valid: bool,
    /// The next result's inter-FM address.
    pub fm_addr: u16,
    /// The channel's scan ends.
    pub done: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Clear,
    Wait,
    Shift,
}

/// The scan's registers.
#[derive(Clone, Debug, Default)]
pub struct ConvScan {
    phase: Phase,
    row: u8,
    shift: u8,
    line: [Row; 3],
    win: [u8; 9],
    win_valid: bool,
    fy: u8,
    fx: u8,
}

impl ConvScan {
    /// Power-up state (all zero, the phase at Clear).
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ConvScanIn) {
        let old = self.clone();
        self.win_valid = false;
        if !i.active {
            self.phase = Phase::Clear;
        } else {
            match old.phase {
                Phase::Clear => {
                    (self.row, self.fy, self.fx) = (0, 0, 0);
                    self.phase = Phase::Wait;
                }
                Phase::Wait if i.rows_valid => {
                    self.line = i.rows;
                    self.shift = 0;
                    self.phase = Phase::Shift;
                }
                Phase::Wait => {}
                Phase::Shift => {
                    for r in 0..3 {
                        self.win[3 * r] = old.win[3 * r + 1];
                        self.win[3 * r + 1] = old.win[3 * r + 2];
                        self.win[3 * r + 2] = old.line[r][0];
                        self.line[r].copy_within(1.., 0);
                        self.line[r][31] = 0;
                    }
                    self.win_valid = old.shift >= 2;
                    self.shift = (old.shift + 1) & 63;
                    if old.shift == i.shift_last & 63 {
                        self.row = (old.row + 1) & 31;
                        self.phase = Phase::Wait;
                        if old.row == i.rows_last & 31 {
                            self.phase = Phase::Clear;
                        }
                    }
                }
            }
        }
        if i.result {
            self.fx = (old.fx + 1) & 31;
            if old.fx == i.cols_last & 31 {
                self.fx = 0;
                self.fy = (old.fy + 1) & 31;
            }
        }
        if i.reset {
            self.phase = Phase::Clear;
            self.win_valid = false;
        }
    }

    /// The outputs of the state (the registers as they are) with the inputs `i` applied.
    pub fn outputs(&self, i: &ConvScanIn) -> ConvScanOut {
        let on = |p: Phase| i.active && self.phase == p;
        ConvScanOut {
            rows_clr: on(Phase::Clear),
            rows_pop: on(Phase::Wait) && i.rows_valid && self.row != i.rows_last & 31,
            window: self.win,
            window_valid: self.win_valid,
            fm_addr: (self.fy as u16) << 5 | self.fx as u16,
            done: on(Phase::Shift)
                && self.shift == i.shift_last & 63
                && self.row == i.rows_last & 31,
        }
    }
}

/// The 3x3 windows of an `h x w` channel (no padding) in raster order, tap `3 dy + dx`:
/// what the scan hands the tree adder.
pub fn windows(image: &[Vec<u8>]) -> Vec<[u8; 9]> {
    let (h, w) = (image.len(), image[0].len());
    let mut out = vec![];
    for y in 0..h - 2 {
        for x in 0..w - 2 {
            out.push(std::array::from_fn(|t| image[y + t / 3][x + t % 3]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::triout_cache::{TrioutCache, TrioutGeometry, TrioutIn};

    /// The scan on the thesis image cache (as the core wires them) hands out every 3x3
    /// window of the channel in raster order, in 5 + Oh (W + 1) cycles.
    #[test]
    fn the_cycle_model_on_the_cache_gives_every_window_in_raster_order() {
        let g = TrioutGeometry::THESIS_IMAGE;
        let image: Vec<Vec<u8>> = (0..32)
            .map(|y| (0..32).map(|x| (y * 37 + x * 11 + 128) as u8).collect())
            .collect();
        let mut cache = TrioutCache::new(g);
        for (y, row) in image.iter().enumerate() {
            cache.write_row(1, y, row);
        }
        let mut m = ConvScan::new();
        let (mut valid, mut rows) = (false, [[0u8; 32]; 3]);
        let (mut got, mut cycles) = (vec![], 0);
        loop {
            let i = ConvScanIn {
                active: true,
                rows_last: 29,
                shift_last: 31,
                cols_last: 29,
                rows_valid: valid,
                rows,
                ..Default::default()
            };
            let o = m.outputs(&i);
            let c = cache.step(&TrioutIn {
                cur_channel: 1,
                clr_opt: o.rows_clr,
                pop_en: o.rows_pop,
                ..Default::default()
            });
            valid = c.valid_out;
            rows = c.row_bytes().unwrap_or(rows);
            m.step(&i);
            cycles += 1;
            let after = m.outputs(&i);
            if after.window_valid {
                got.push(after.window);
            }
            if o.done {
                break;
            }
        }
        assert_eq!(got, windows(&image));
        assert_eq!(cycles, 5 + 30 * 33, "CONV per channel: 5 + Oh (W + 1)");
    }
}
