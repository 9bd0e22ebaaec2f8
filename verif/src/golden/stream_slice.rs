//! Golden model of the platform's AXI-Stream register slice
//! (`edgelearn_hdl::lel::stream_slice`): the output register and the skid entry, edge by
//! edge.

/// One beat: data, TUSER, TLAST.
pub type Beat = (u64, u64, bool);

/// The slice between edges: its two registers.
#[derive(Clone, Debug, Default)]
pub struct StreamSlice {
    out: Beat,
    out_valid: bool,
    skid: Beat,
    skid_valid: bool,
}

impl StreamSlice {
    /// An empty slice (as after reset).
    pub fn new() -> Self {
        Self::default()
    }

    /// `s_tready`, before the edge.
    pub fn ready(&self) -> bool {
        !self.skid_valid
    }

    /// `m_tvalid` and `(m_tdata, m_tuser, m_tlast)`, before the edge: the output register,
    /// which holds its last beat when not valid.
    pub fn output(&self) -> (bool, Beat) {
        (self.out_valid, self.out)
    }

    /// One rising edge with `s_tvalid` / the input beat (`offer`), `m_tready` and `reset`.
    /// Returns the beat that moved out (`m_tvalid & m_tready`), if any.
    pub fn edge(&mut self, offer: Option<Beat>, m_tready: bool, reset: bool) -> Option<Beat> {
        let moved = (self.out_valid && m_tready).then_some(self.out);
        if reset {
            *self = Self::default();
        } else if !self.out_valid || m_tready {
            if self.skid_valid {
                self.out = self.skid;
                self.out_valid = true;
                self.skid_valid = false;
            } else {
                self.out_valid = offer.is_some();
                if let Some(b) = offer {
                    self.out = b;
                }
            }
        } else if let (Some(b), false) = (offer, self.skid_valid) {
            self.skid = b;
            self.skid_valid = true;
        }
        if reset {
            None
        } else {
            moved
        }
    }
}
