//! The length of a core's last visit outside IDLE (hdl `lel::visit_cycles::VisitCycles`):
//! counted while busy, taken as `last` at the first idle cycle after it. Cycle model in the
//! trace convention (docs/decisions.md D-CYCLE).

/// The count and the last visit's length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VisitCycles {
    count: u32,
    /// The cycles of the last finished visit.
    pub last: u32,
}

impl VisitCycles {
    /// Power-up state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock edge with `busy` and `reset` applied.
    pub fn step(&mut self, busy: bool, reset: bool) {
        if busy {
            self.count = self.count.wrapping_add(1);
        } else if self.count != 0 {
            (self.last, self.count) = (self.count, 0);
        }
        if reset {
            *self = Self::default();
        }
    }
}

/// The lengths of the visits in a sequence of `busy` cycles, each as `last` shows it after
/// the visit ends (a visit still going at the end is not counted).
pub fn visits(busy: &[bool]) -> Vec<u32> {
    let (mut out, mut run) = (vec![], 0u32);
    for &b in busy {
        if b {
            run += 1;
        } else if run > 0 {
            out.push(run);
            run = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_is_each_visits_length_from_the_first_idle_cycle_on() {
        let busy = [
            false, true, true, true, false, false, true, false, true, true,
        ];
        let mut m = VisitCycles::new();
        let mut seen = vec![];
        for &b in &busy {
            m.step(b, false);
            if seen.last() != Some(&m.last) && m.last != 0 {
                seen.push(m.last);
            }
        }
        assert_eq!(seen, visits(&busy));
        assert_eq!(seen, vec![3, 1]);
        m.step(false, true);
        assert_eq!(m.last, 0);
    }
}
