//! The conv core's POOL phase for one output channel (hdl `lel::pool_scan::PoolScan`): the
//! 3x3, stride-3 max-pool windows of the inter-FM cache, one a cycle from its three rows, a
//! row of windows at a time; three pops between rows; a row starts only with `room`.
//! Cycle model in the trace convention (docs/decisions.md D-CYCLE): [`PoolScan::step`] is
//! the edge, [`PoolScan::outputs`] what is sampled after it (the window is combinational).

use super::conv_scan::Row;

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct PoolScanIn {
    /// Synchronous reset.
    pub reset: bool,
    /// The core is in CS_POOL.
    pub active: bool,
    /// Pooled rows - 1 (4 bits).
    pub rows_last: u8,
    /// Pooled columns - 1 (4 bits).
    pub cols_last: u8,
    /// The cache's rows are valid.
    pub rows_valid: bool,
    /// The three rows, top first.
    pub rows: [Row; 3],
    /// The output has room for a row of windows.
    pub room: bool,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolScanOut {
    /// Restart the cache's rows.
    pub rows_clr: bool,
    /// Advance them one row.
    pub rows_pop: bool,
    /// The window, tap `3 r + d` (0 outside POOL).
    pub window: [u8; 9],
    /// It is one to pool.
    pub window_valid: bool,
    /// The channel's scan ends.
    pub done: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Clear,
    Pop,
    Window,
}

/// The scan's registers.
#[derive(Clone, Debug, Default)]
pub struct PoolScan {
    phase: Phase,
    py: u8,
    px: u8,
    pops: u8,
    shamt: u16,
}

impl PoolScan {
    /// Power-up state (all zero, the phase at Clear).
    pub fn new() -> Self {
        Self::default()
    }

    /// A row of windows starts this cycle.
    fn starts(&self, i: &PoolScanIn) -> bool {
        self.phase == Phase::Pop && i.rows_valid && self.pops == 0 && i.room
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &PoolScanIn) {
        let old = self.clone();
        if !i.active {
            self.phase = Phase::Clear;
        } else {
            match old.phase {
                Phase::Clear => {
                    (self.py, self.px, self.shamt, self.pops) = (0, 0, 0, 0);
                    self.phase = Phase::Pop;
                }
                Phase::Pop if i.rows_valid && old.pops != 0 => self.pops = old.pops - 1,
                Phase::Pop if old.starts(i) => {
                    (self.phase, self.px, self.shamt) = (Phase::Window, 1, 24);
                }
                Phase::Pop => {}
                Phase::Window => {
                    self.px = (old.px + 1) & 15;
                    self.shamt = (old.shamt + 24) & 511;
                    if old.px == i.cols_last & 15 {
                        (self.px, self.shamt) = (0, 0);
                        self.py = (old.py + 1) & 15;
                        self.pops = 3;
                        self.phase = Phase::Pop;
                        if old.py == i.rows_last & 15 {
                            self.phase = Phase::Clear;
                        }
                    }
                }
            }
        }
        if i.reset {
            self.phase = Phase::Clear;
        }
    }

    /// The outputs of the state (the registers as they are) with the inputs `i` applied.
    pub fn outputs(&self, i: &PoolScanIn) -> PoolScanOut {
        let on = |p: Phase| i.active && self.phase == p;
        // Row r shifted right by `shamt` bits: byte d of it is pixel shamt / 8 + d.
        let byte = |r: usize, d: usize| -> u8 {
            let bit = self.shamt as usize + 8 * d;
            match i.active && bit < 256 {
                true => i.rows[r][bit / 8],
                false => 0,
            }
        };
        PoolScanOut {
            rows_clr: on(Phase::Clear),
            rows_pop: on(Phase::Pop) && i.rows_valid && self.pops != 0,
            window: std::array::from_fn(|t| byte(t / 3, t % 3)),
            window_valid: on(Phase::Window) || (i.active && self.starts(i)),
            done: on(Phase::Window) && self.px == i.cols_last & 15 && self.py == i.rows_last & 15,
        }
    }
}

/// The 3x3, stride-3 pooling windows of an `h x w` channel in raster order, tap `3 r + d`:
/// what the scan hands the tree comparator.
pub fn windows(fm: &[Vec<u8>]) -> Vec<[u8; 9]> {
    let (ph, pw) = (fm.len() / 3, fm[0].len() / 3);
    let mut out = vec![];
    for y in 0..ph {
        for x in 0..pw {
            out.push(std::array::from_fn(|t| fm[3 * y + t / 3][3 * x + t % 3]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::triout_cache::{TrioutCache, TrioutGeometry, TrioutIn};

    /// The scan on the thesis inter-FM cache (as the core wires them) hands out every
    /// pooling window in raster order, in 5 + Ph Pw + 6 (Ph - 1) cycles with room.
    #[test]
    fn the_cycle_model_on_the_cache_gives_every_pooling_window() {
        let g = TrioutGeometry {
            channels: 1,
            rows: 30,
            words: 32,
            lanes: 1,
            row_bits: 5,
            channel_bits: 1,
        };
        let fm: Vec<Vec<u8>> = (0..30)
            .map(|y| (0..30).map(|x| (y * 29 + x * 13 + 7) as u8).collect())
            .collect();
        let mut cache = TrioutCache::new(g);
        for (y, row) in fm.iter().enumerate() {
            cache.write_row(0, y, row);
        }
        let mut m = PoolScan::new();
        let (mut valid, mut rows) = (false, [[0u8; 32]; 3]);
        let (mut got, mut cycles) = (vec![], 0);
        loop {
            let i = PoolScanIn {
                active: true,
                rows_last: 9,
                cols_last: 9,
                rows_valid: valid,
                rows,
                room: true,
                ..Default::default()
            };
            let o = m.outputs(&i);
            if o.window_valid {
                got.push(o.window);
            }
            let c = cache.step(&TrioutIn {
                clr_opt: o.rows_clr,
                pop_en: o.rows_pop,
                ..Default::default()
            });
            valid = c.valid_out;
            rows = c.row_bytes().unwrap_or(rows);
            m.step(&i);
            cycles += 1;
            if o.done {
                break;
            }
        }
        assert_eq!(got, windows(&fm));
        assert_eq!(
            cycles,
            5 + 100 + 6 * 9,
            "POOL per channel: 5 + Ph Pw + 6 (Ph - 1)"
        );
    }
}
