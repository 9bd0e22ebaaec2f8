//! Golden model of cache X4 (thesis §4.1.8; spec §3.8, §7-31): four zero-initialised word
//! arrays; a write goes to cache `p_sel`; a read returns cache `p_sel`'s word two edges
//! later (read-first on a same-edge write; out-of-range reads give 0).

/// Inputs in one cycle.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheX4In {
    /// Synchronous reset.
    pub reset: bool,
    /// Cache select.
    pub p_sel: usize,
    /// Write address.
    pub addr0: usize,
    /// Write data.
    pub data_in0: u64,
    /// Write enable.
    pub wr_en: bool,
    /// Read address.
    pub addr1: usize,
}

/// Cycle model.
#[derive(Clone, Debug)]
pub struct CacheX4 {
    mem: Vec<Vec<u64>>,
    read_s1: Option<u64>,
    out: u64,
}

impl CacheX4 {
    /// Four caches of `depth` zero words.
    pub fn new(depth: usize) -> Self {
        CacheX4 {
            mem: vec![vec![0; depth]; 4],
            read_s1: Some(0),
            out: 0,
        }
    }

    /// The stored word (for checks).
    pub fn word(&self, cache: usize, addr: usize) -> u64 {
        self.mem[cache][addr]
    }

    /// One clock edge: `data_out1` after it.
    pub fn step(&mut self, i: &CacheX4In) -> u64 {
        let depth = self.mem[0].len();
        self.out = if i.reset {
            0
        } else {
            self.read_s1.unwrap_or(0)
        };
        self.read_s1 = Some(if i.addr1 < depth {
            self.mem[i.p_sel][i.addr1]
        } else {
            0
        });
        if i.reset {
            // The select and in-range registers clear: the next output reads cache 0, word "out of range".
            self.read_s1 = Some(0);
        }
        if i.wr_en && i.addr0 < depth {
            self.mem[i.p_sel][i.addr0] = i.data_in0;
        }
        self.out
    }
}
