//! The burst protocol shared by the matmul and the local-classifier forward path: a burst
//! is a run of rows with `instr & valid_in`; its accumulators are finished at the first row
//! without, and presented (with a one-cycle `valid_out`) at the cycle after that.

use super::arith::wrap;

/// Per-lane accumulation over bursts, with the presentation latency of the hardware.
#[derive(Clone, Debug)]
pub struct BurstAccumulator {
    acc_bits: u32,
    acc: Vec<i64>,
    in_burst: bool,
    pending: Option<Vec<i64>>,
}

/// What a step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BurstStep {
    /// Accumulators presented after this edge (the burst that ended one row earlier).
    pub presented: Option<Vec<i64>>,
    /// This row was taken into a burst.
    pub taken: bool,
}

impl BurstAccumulator {
    /// `lanes` accumulators of `acc_bits` (two's complement, wrapping).
    pub fn new(lanes: usize, acc_bits: u32) -> Self {
        BurstAccumulator {
            acc_bits,
            acc: vec![0; lanes],
            in_burst: false,
            pending: None,
        }
    }

    /// One clock edge: `data` times each lane's `weights`, taken when `take`.
    pub fn step(&mut self, reset: bool, take: bool, data: i64, weights: &[i64]) -> BurstStep {
        let presented = self.pending.take();
        if reset {
            self.acc.iter_mut().for_each(|a| *a = 0);
            self.in_burst = false;
            return BurstStep {
                presented: None,
                taken: false,
            };
        }
        if take {
            for (a, w) in self.acc.iter_mut().zip(weights) {
                *a = wrap(*a + data * w, self.acc_bits);
            }
            self.in_burst = true;
        } else if self.in_burst {
            let lanes = self.acc.len();
            self.pending = Some(std::mem::replace(&mut self.acc, vec![0; lanes]));
            self.in_burst = false;
        }
        BurstStep {
            presented,
            taken: take,
        }
    }
}
