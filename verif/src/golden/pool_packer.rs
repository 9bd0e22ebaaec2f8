//! The conv core's output stage (hdl `lel::pool_packer::PoolPacker`): pooled values four to a
//! 32-bit beat, the first in the low byte, the image's last beat marked. Cycle model in the
//! trace convention (docs/decisions.md D-CYCLE): [`PoolPacker::step`] is the edge,
//! [`PoolPacker::outputs`] what is sampled after it (the beat is Mealy: it goes out with the
//! fourth value's own inputs).

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct PoolPackerIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A new image starts.
    pub clear: bool,
    /// A pooled value.
    pub valid: bool,
    /// Its value (two's complement).
    pub value: i8,
    /// Pooled values per image.
    pub total: u16,
}

/// What is sampled after an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolPackerOut {
    /// A beat is complete.
    pub push: bool,
    /// The beat.
    pub data: u32,
    /// It ends the image.
    pub last: bool,
}

/// The packer's state: three held values, the position in the beat, the values so far.
#[derive(Clone, Debug, Default)]
pub struct PoolPacker {
    held: [u8; 3],
    n: u8,
    count: u16,
}

impl PoolPacker {
    /// Reset state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Where this cycle's value goes and how many came before it: a `clear` starts over.
    fn now(&self, i: &PoolPackerIn) -> (u8, u16) {
        if i.clear {
            (0, 0)
        } else {
            (self.n, self.count)
        }
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &PoolPackerIn) {
        let (n, count) = self.now(i);
        (self.n, self.count) = (n, count);
        if i.valid {
            self.n = (n + 1) % 4;
            self.count = count.wrapping_add(1);
            if n < 3 {
                self.held[n as usize] = i.value as u8;
            }
        }
        if i.reset {
            self.n = 0;
            self.count = 0;
        }
    }

    /// The outputs of the state (the registers as they are) with the inputs `i` applied.
    pub fn outputs(&self, i: &PoolPackerIn) -> PoolPackerOut {
        let (n, count) = self.now(i);
        let data = self.held[0] as u32
            | (self.held[1] as u32) << 8
            | (self.held[2] as u32) << 16
            | (i.value as u8 as u32) << 24;
        PoolPackerOut {
            push: i.valid && n == 3,
            data,
            last: count.wrapping_add(1) == i.total,
        }
    }
}

/// The beats of one image's `values` in order: what the core sends (the last one marked).
pub fn beats(values: &[i8]) -> Vec<(u32, bool)> {
    values
        .chunks(4)
        .enumerate()
        .map(|(k, c)| {
            let word = c
                .iter()
                .enumerate()
                .fold(0u32, |w, (j, &v)| w | (v as u8 as u32) << (8 * j));
            (word, (k + 1) * 4 >= values.len())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_model_packs_as_the_beats_do() {
        // Corner values, two images (a clear between them), a pause inside a beat.
        let values: Vec<i8> = vec![-128, -127, 127, -31, 31, 0, 1, -1];
        let mut m = PoolPacker::new();
        let mut got = vec![];
        for image in 0..2 {
            for (k, &v) in values.iter().enumerate() {
                let i = PoolPackerIn {
                    clear: k == 0 && image == 1,
                    valid: true,
                    value: v,
                    total: values.len() as u16,
                    ..Default::default()
                };
                // During the cycle (before its edge) the fourth value completes the beat.
                let o = m.outputs(&i);
                if o.push {
                    got.push((o.data, o.last));
                }
                m.step(&i);
                if k == 5 {
                    let idle = PoolPackerIn {
                        value: 99,
                        total: values.len() as u16,
                        ..Default::default()
                    };
                    assert!(!m.outputs(&idle).push);
                    m.step(&idle);
                }
            }
        }
        let want = beats(&values);
        assert_eq!(want, vec![(0xe17f_8180, false), (0xff01_001f, true)]);
        assert_eq!(got, [want.clone(), want].concat());
    }
}
