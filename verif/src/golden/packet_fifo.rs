//! Golden model of the platform's block-RAM FIFO (`edgelearn_hdl::lel::packet_fifo`): a
//! bounded queue whose beats become readable one edge after they are taken (the RAM write,
//! then the RAM read), counting beats and TLAST beats.

use std::collections::VecDeque;

/// One beat: data, TUSER, TLAST.
pub type Beat = (u64, u64, bool);

/// The FIFO between edges.
#[derive(Clone, Debug)]
pub struct PacketFifo {
    depth: usize,
    /// Beats held, oldest first, with whether each is readable yet.
    q: VecDeque<(Beat, bool)>,
}

impl PacketFifo {
    /// An empty FIFO of `depth` beats.
    pub fn new(depth: usize) -> Self {
        PacketFifo {
            depth,
            q: VecDeque::new(),
        }
    }

    /// The head beat (`m_tvalid` and the outputs), before the edge.
    pub fn head(&self) -> Option<Beat> {
        self.q.front().filter(|(_, r)| *r).map(|(b, _)| *b)
    }

    /// `s_tready`, before the edge.
    pub fn ready(&self) -> bool {
        self.q.len() < self.depth
    }

    /// Beats held (`count`).
    pub fn count(&self) -> usize {
        self.q.len()
    }

    /// TLAST beats held (`packets`).
    pub fn packets(&self) -> usize {
        self.q.iter().filter(|((_, _, l), _)| *l).count()
    }

    /// One rising edge: the head leaves if readable and `ready`; `push` enters if there was
    /// room before the edge; beats taken earlier become readable. Returns the beat that left.
    pub fn edge(&mut self, push: Option<Beat>, ready: bool) -> Option<Beat> {
        let room = self.ready();
        let popped = if ready && self.head().is_some() {
            self.q.pop_front().map(|(b, _)| b)
        } else {
            None
        };
        for e in self.q.iter_mut() {
            e.1 = true;
        }
        if let Some(b) = push {
            if room {
                self.q.push_back((b, false));
            }
        }
        popped
    }
}
