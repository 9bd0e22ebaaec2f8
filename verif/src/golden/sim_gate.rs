//! Golden model of the simulation gate's bench design (`edgelearn_hdl::sim_gate::SimGateDemo`):
//! what the hardware computes whatever the gate does, a counter that counts while `en` is
//! high and word 0 of a RAM read one edge late. A gate itself is a wire (`gclock = clock`),
//! so this is also the model of every gated run: an honest gate may only skip edges at which
//! nothing changes.

/// The demo between edges.
#[derive(Clone, Debug, Default)]
pub struct SimGateDemo {
    count: u16,
    word: u8,
    ram0: u8,
}

impl SimGateDemo {
    /// The demo after its registers start at 0.
    pub fn new() -> Self {
        Self::default()
    }

    /// `(count, word)` after the last edge.
    pub fn outputs(&self) -> (u64, u64) {
        (self.count as u64, self.word as u64)
    }

    /// A backdoor write of RAM word 0 (between edges).
    pub fn write_ram0(&mut self, value: u8) {
        self.ram0 = value;
    }

    /// One rising edge with `en`.
    pub fn edge(&mut self, en: bool) {
        if en {
            self.count = self.count.wrapping_add(1);
        }
        self.word = self.ram0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_while_enabled_and_reads_word_zero_one_edge_late() {
        let mut d = SimGateDemo::new();
        d.edge(true);
        d.edge(false);
        d.write_ram0(7);
        assert_eq!(d.outputs(), (1, 0));
        d.edge(true);
        assert_eq!(d.outputs(), (2, 7));
    }
}
