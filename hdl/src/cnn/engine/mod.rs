//! The MAX78000-style CNN engine in rust-hdl (issue 27; spec max78000-cnn-engine.md §1.17,
//! §2, §8; docs/cnn-engine-rtl.md; docs/decisions.md D-CNN-RTL-HDL). The top is
//! [`cnn_engine::CnnEngine`]; its sub-blocks each have a file of their own, from the
//! processor's pieces ([`reduce`], [`window_buf`], [`tap_mac`], the processor's halves
//! [`gather_unit`] and [`mac_unit`], [`processor`], [`quad`])
//! to the control ([`layer_seq`], [`addr_gen`] with its [`tap_pos`], [`elem_walk`] and [`word_addr`], [`window_ctl`], [`mac_ctl`], [`mac_pipe`])
//! and the output path ([`group_sum`], [`acc_mem`], [`out_stage`]), the host port
//! ([`host_port`]) and the input FIFOs' writer ([`fifo_in`]). [`regs`] and [`layer_decode`] are generated from
//! `hdl/regs/cnn_engine.toml` by `edgelearn regs`.

pub mod acc_mem;
pub mod addr_gen;
pub mod avg_div;
pub mod check;
pub mod cnn_engine;
pub mod elem_walk;
pub mod fifo_in;
pub mod gather_unit;
pub mod group_sum;
pub mod host_port;
pub mod iter_walk;
pub mod layer_decode;
pub mod layer_seq;
pub mod lowest_set;
pub mod mac_ctl;
pub mod mac_pipe;
pub mod mac_unit;
pub mod out_stage;
pub mod processor;
pub mod quad;
pub mod reduce;
#[rustfmt::skip]
pub mod regs;
pub mod tap_mac;
pub mod tap_pos;
pub mod window_buf;
pub mod window_ctl;
pub mod word_addr;

pub use cnn_engine::{
    CnnEngine, CnnEngine16, CnnEngine32, CnnEngine4, CnnEngine48, CnnEngine64, CnnEngine8,
};
