//! What `edgelearn formal` proves: each stream block and the AXI4-Lite slave, the property
//! set its ports take (`props.v`), how deep, and the seeded mutants that must fail.

use edgelearn_hdl::design::{Design, Instance};
use edgelearn_hdl::lel::packet_fifo::PacketFifo;
use edgelearn_hdl::lel::platform_axi::AxiLiteRegs;
use edgelearn_hdl::lel::stream_fifo::CoreFifo;
use edgelearn_hdl::lel::stream_slice::StreamSlice;

/// One AXI-Stream side of a block: its handshake and its payload ports.
#[derive(Clone, Copy, Debug)]
pub struct StreamSide {
    /// Valid (or push) port.
    pub valid: &'static str,
    /// Ready port; `None` for a push port (no handshake back).
    pub ready: Option<&'static str>,
    /// TDATA, TUSER, TLAST ports.
    pub data: &'static str,
    /// TUSER port.
    pub user: &'static str,
    /// TLAST port.
    pub last: &'static str,
}

/// A stream block: beats in one side and out the other, in order.
#[derive(Clone, Copy, Debug)]
pub struct StreamProps {
    /// The side beats come in.
    pub input: StreamSide,
    /// When a beat comes in (a Verilog expression over the block's ports): the handshake,
    /// or for a push port its documented acceptance.
    pub accept: &'static str,
    /// The side beats leave (a ready/valid port).
    pub output: StreamSide,
    /// Beats it can hold.
    pub capacity: usize,
    /// Cycles a held beat may wait before it is offered.
    pub latency: usize,
    /// Its output counting the beats held, if any.
    pub count: Option<&'static str>,
    /// Its output counting the TLAST beats held, if any.
    pub packets: Option<&'static str>,
}

/// The property set a target's ports take.
#[derive(Clone, Copy, Debug)]
#[allow(clippy::large_enum_variant)] // a handful of targets, each built once
pub enum Props {
    /// `el_axis_rules` on both sides and `el_axis_scoreboard` between them.
    Stream(StreamProps),
    /// `el_axil_slave` on an AXI4-Lite slave with a register port.
    AxiLite {
        /// Address bits of the AXI side.
        addr_bits: usize,
        /// Word-address bits of the register port.
        reg_bits: usize,
    },
}

/// A change to a target's Verilog that breaks what its properties promise: the proof of
/// the mutant must fail.
#[derive(Clone, Copy, Debug)]
pub struct Mutant {
    /// Short name (`DIR/TARGET-NAME/`).
    pub name: &'static str,
    /// What the change breaks.
    pub breaks: &'static str,
    /// Text of the emitted Verilog, found exactly once.
    pub find: &'static str,
    /// What replaces it.
    pub replace: &'static str,
}

/// One proof: a block as the kit emits it, its properties, its depth and its mutants.
pub struct Target {
    /// The block's name (its file under `hdl/src/lel/`).
    pub name: &'static str,
    /// What is proved, in one line.
    pub summary: &'static str,
    /// Its properties.
    pub props: Props,
    /// Cycles of the bounded proof and of the induction step.
    pub depth: usize,
    /// Its seeded mutants.
    pub mutants: &'static [Mutant],
    build: fn(&str) -> Box<dyn Design>,
}

impl Target {
    /// The block, emitted under `name`.
    pub fn design(&self, name: &str) -> Box<dyn Design> {
        (self.build)(name)
    }
}

const SLICE_IN: StreamSide = StreamSide {
    valid: "s_tvalid",
    ready: Some("s_tready"),
    data: "s_tdata",
    user: "s_tuser",
    last: "s_tlast",
};

const SLICE_OUT: StreamSide = StreamSide {
    valid: "m_tvalid",
    ready: Some("m_tready"),
    data: "m_tdata",
    user: "m_tuser",
    last: "m_tlast",
};

/// Depth of the packet FIFO proved: the platform's are deeper, the logic is the same but
/// for the `depth` constant.
pub const PACKET_FIFO_DEPTH: usize = 4;

/// Every target, in the order `--all` runs them.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "stream_fifo",
            summary: "the cores' output FIFO (CoreFifo: 32-bit beats, 8 deep): push port in, AXI-Stream out",
            props: Props::Stream(StreamProps {
                input: StreamSide {
                    valid: "push",
                    ready: None,
                    data: "in_data",
                    user: "in_user",
                    last: "in_last",
                },
                accept: "push && (count != 8 || (out_valid && out_ready))",
                output: StreamSide {
                    valid: "out_valid",
                    ready: Some("out_ready"),
                    data: "out_data",
                    user: "out_user",
                    last: "out_last",
                },
                capacity: 8,
                latency: 1,
                count: Some("count"),
                packets: None,
            }),
            depth: 20,
            mutants: &[
                Mutant {
                    name: "pop-without-ready",
                    breaks: "the head beat leaves although the consumer is not ready (loss)",
                    find: "wire pop = (fill != 6'd0) && out_ready;",
                    replace: "wire pop = (fill != 6'd0);",
                },
                Mutant {
                    name: "push-when-full",
                    breaks: "a push into a full FIFO overwrites the oldest beat",
                    find: "wire put = push && ((fill != depth) || pop);",
                    replace: "wire put = push;",
                },
            ],
            build: |n| Box::new(Instance::new(n, CoreFifo::default())),
        },
        Target {
            name: "stream_slice",
            summary: "the platform's register slice (StreamSlice<32, 4>): AXI-Stream in and out",
            props: Props::Stream(StreamProps {
                input: SLICE_IN,
                accept: "s_tvalid && s_tready",
                output: SLICE_OUT,
                capacity: 2,
                latency: 1,
                count: None,
                packets: None,
            }),
            depth: 16,
            mutants: &[Mutant {
                name: "skid-overwrite",
                breaks: "a beat offered while the skid entry is full overwrites it",
                find: "end else if (s_tvalid && !skid_valid) begin",
                replace: "end else if (s_tvalid) begin",
            }],
            build: |n| Box::new(Instance::new(n, StreamSlice::<32, 4>::default())),
        },
        Target {
            name: "packet_fifo",
            summary: "the platform's block-RAM packet FIFO (4 deep): AXI-Stream in and out, beats and packets counted",
            props: Props::Stream(StreamProps {
                input: SLICE_IN,
                accept: "s_tvalid && s_tready",
                output: SLICE_OUT,
                capacity: PACKET_FIFO_DEPTH,
                latency: 2,
                count: Some("count"),
                packets: Some("packets"),
            }),
            depth: 14,
            mutants: &[Mutant {
                name: "tlast-bit",
                breaks: "TLAST is read from the wrong bit of the RAM word",
                find: "m_tlast = ram$read_data[32'h24];",
                replace: "m_tlast = ram$read_data[32'h23];",
            }],
            build: |n| Box::new(Instance::new(n, PacketFifo::new(PACKET_FIFO_DEPTH))),
        },
        Target {
            name: "axi_lite_regs",
            summary: "the platform's AXI4-Lite slave onto its register port (AxiLiteRegs)",
            props: Props::AxiLite {
                addr_bits: 12,
                reg_bits: 8,
            },
            depth: 16,
            mutants: &[
                Mutant {
                    name: "bvalid-dropped",
                    breaks: "the write response is withdrawn before the master takes it",
                    find: "bvalid = 1'b1;\n                    if (bready) begin",
                    replace: "bvalid = 1'b1;\n                    if (1'b1) begin",
                },
                Mutant {
                    name: "strobe-byte",
                    breaks: "byte strobe 2 writes byte 1",
                    find: "m2 = c_byte$2;",
                    replace: "m2 = c_byte$1;",
                },
            ],
            build: |n| Box::new(Instance::new(n, AxiLiteRegs::default())),
        },
    ]
}
