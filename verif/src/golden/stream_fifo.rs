//! Golden model of the cores' output FIFO (`edgelearn_hdl::lel::stream_fifo`): a bounded
//! queue, first word falling through, updated at each rising edge.

use std::collections::VecDeque;

/// One beat: data, TUSER, TLAST.
pub type Beat = (u64, u64, bool);

/// The FIFO between edges.
#[derive(Clone, Debug)]
pub struct StreamFifo {
    depth: usize,
    q: VecDeque<Beat>,
}

impl StreamFifo {
    /// An empty FIFO of `depth` beats.
    pub fn new(depth: usize) -> Self {
        StreamFifo {
            depth,
            q: VecDeque::new(),
        }
    }

    /// The head beat (`out_valid` and the outputs), before the edge.
    pub fn head(&self) -> Option<Beat> {
        self.q.front().copied()
    }

    /// Beats held (`count`), before the edge.
    pub fn count(&self) -> usize {
        self.q.len()
    }

    /// One rising edge: the head leaves if `ready`; `push` enters if there is room (or the
    /// head leaves at the same edge). Returns the beat that left.
    pub fn edge(&mut self, push: Option<Beat>, ready: bool) -> Option<Beat> {
        let room = self.q.len() < self.depth;
        let popped = if ready { self.q.pop_front() } else { None };
        if let Some(b) = push {
            if room || popped.is_some() {
                self.q.push_back(b);
            }
        }
        popped
    }
}
