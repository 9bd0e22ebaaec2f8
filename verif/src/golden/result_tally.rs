//! One FC core's classification counts on the platform (hdl `lel::result_tally::ResultTally`):
//! the label of each image the core takes, carried to its LC result, and per
//! classification (a rising edge of `done`) the count, the correct count and the last
//! `{label, class}`. Cycle model in the trace convention (docs/decisions.md D-CYCLE).

/// One cycle's inputs.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultTallyIn {
    /// Synchronous reset.
    pub reset: bool,
    /// A run starts.
    pub clear: bool,
    /// The core takes an image.
    pub start: bool,
    /// A beat enters the core.
    pub beat: bool,
    /// Its TUSER (4 bits).
    pub label: u8,
    /// The core's LC result is valid.
    pub lc_valid: bool,
    /// The classification is done (a level).
    pub done: bool,
    /// The class chosen (4 bits).
    pub class_num: u8,
}

/// What the tally shows: classifications, correct ones, the last `{label, class}`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResultTally {
    need: bool,
    label_now: u8,
    label_lc: u8,
    done_q: bool,
    /// Classifications since the run started.
    pub results: u32,
    /// Those equal to their image's label.
    pub correct: u32,
    /// The last one: class in [3:0], label in [7:4].
    pub last: u8,
}

impl ResultTally {
    /// Power-up state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The clock edge with `i` applied.
    pub fn step(&mut self, i: &ResultTallyIn) {
        let old = *self;
        if i.clear {
            (self.results, self.correct) = (0, 0);
        }
        if i.start {
            self.need = true;
        }
        if old.need && i.beat {
            self.label_now = i.label & 15;
            self.need = false;
        }
        if i.lc_valid {
            self.label_lc = old.label_now;
        }
        self.done_q = i.done;
        if i.done && !old.done_q {
            self.results = old.results.wrapping_add(1);
            self.last = (i.class_num & 15) | old.label_lc << 4;
            if i.class_num & 15 == old.label_lc {
                self.correct = old.correct.wrapping_add(1);
            }
        }
        if i.reset {
            (self.need, self.done_q) = (false, false);
            (self.results, self.correct, self.last) = (0, 0, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three images: labels 7, 2, 7 taken from their first beats, classified 7, 5, 7 (a
    /// `done` held high counts once): three results, two correct, the last `{7, 7}`; a new
    /// run clears the counts.
    #[test]
    fn counts_each_classification_against_its_images_label() {
        let mut m = ResultTally::new();
        for (label, class) in [(7u8, 7u8), (2, 5), (7, 7)] {
            m.step(&ResultTallyIn {
                start: true,
                ..Default::default()
            });
            for k in 0..3 {
                m.step(&ResultTallyIn {
                    beat: true,
                    label: label + k,
                    ..Default::default()
                });
            }
            m.step(&ResultTallyIn {
                lc_valid: true,
                ..Default::default()
            });
            for _ in 0..3 {
                m.step(&ResultTallyIn {
                    done: true,
                    class_num: class,
                    ..Default::default()
                });
            }
            m.step(&ResultTallyIn::default());
        }
        assert_eq!((m.results, m.correct, m.last), (3, 2, 0x77));
        m.step(&ResultTallyIn {
            clear: true,
            ..Default::default()
        });
        assert_eq!((m.results, m.correct, m.last), (0, 0, 0x77));
    }
}
