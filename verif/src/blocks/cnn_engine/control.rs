//! Benches of the CNN engine's control blocks: `cnn_window_ctl`, `cnn_mac_pipe`,
//! `cnn_layer_seq`, `cnn_mac_ctl` and `cnn_host_port`.

use super::super::{blank, View};
use crate::blocks::{port_row, PortRow};
use crate::golden::cnn_engine::{
    FifoInIn, FifoWriter, HostIn, HostReadData, HostRegs, MacCtlIn, MacSeq, MacTag, MacTags, SeqIn,
    Sequencer, WindowCtlIn, WindowFlags,
};
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(WindowCtlIn => reset, load, run, gather_end, gather_buf, mac_end, mac_buf);

port_row!(FifoInIn => reset, start, stream, allow, s_tdata, s_tvalid);
port_row!(SeqIn => reset, start, nlayers, layer_end, lc_raddr, stream_layers, sched_w0, sched_w1, sched_w2, fifo_rows);

port_row!(MacCtlIn => reset, load, load_kstart, run, full, out_ch, kstart, kpw, kslot, out_thresh, out_map, in_passes, chunks, out_w, row_first, row_last, pix_first);

/// `cnn_window_ctl`: the gather's and the MAC's ends into either window, back to back (the
/// same window ending and arriving at one edge, the MAC freeing a window the gather ends
/// into), `run` dropping, loads and resets now and then.
pub fn window_ctl_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_WINDOW_CTL, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    for k in 0..cycles {
        // Dense phases (an end every cycle) alternate with sparse ones.
        let dense = (k / 200) % 2 == 1;
        let p = if dense { 2 } else { 5 };
        s.row()
            .bit("reset", rng.random_range(0..400) == 0)?
            .bit("load", rng.random_range(0..150) == 0)?
            .bit("run", rng.random_range(0..10) != 0)?
            .bit("gather_end", rng.random_range(0..p) == 0)?
            .bit("gather_buf", rng.random())?
            .bit("mac_end", rng.random_range(0..p) == 0)?
            .bit("mac_buf", rng.random())?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_window_ctl`: `full` and `pend` after every edge.
pub fn window_ctl_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut w = WindowFlags::default();
    for c in 0..stim.len() {
        w.step(&WindowCtlIn::read(&v, c));
        e.set(c, "full", BigUint::from(w.full));
        e.set(c, "pend", BigUint::from(w.pend));
    }
    e
}

/// `cnn_mac_pipe`: issues on most cycles with random flags, channels, processors, passes and
/// pixels (the largest of each among them), gaps, and resets with a channel in flight.
pub fn mac_pipe_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_MAC_PIPE, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for k in 0..cycles {
        let top = k % 16 == 3;
        s.row()
            .bit("reset", k < 4 || rng.random_range(0..100) == 0)?
            .bit("issue", rng.random_range(0..4) != 0)?
            .bit("first", rng.random())?
            .bit("last", rng.random())?
            .set(
                "oc",
                if top {
                    2047
                } else {
                    rng.random_range(0..2048u32)
                },
            )?
            .set(
                "oproc",
                if top {
                    127
                } else {
                    rng.random_range(0..128u32)
                },
            )?
            .set("oe", if top { 31 } else { rng.random_range(0..32u32) })?
            .set(
                "opix",
                if top {
                    (1 << 20) - 1
                } else {
                    rng.random_range(0..(1u32 << 20))
                },
            )?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_mac_pipe`: every output after every edge.
pub fn mac_pipe_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = MacTags::default();
    for c in 0..stim.len() {
        m.step(
            v.bit(c, "reset"),
            MacTag {
                valid: v.bit(c, "issue"),
                first: v.bit(c, "first"),
                last: v.bit(c, "last"),
                oc: v.unsigned(c, "oc") as u32,
                proc: v.unsigned(c, "oproc") as u32,
                oe: v.unsigned(c, "oe") as u32,
                pix: v.unsigned(c, "opix") as u32,
            },
        );
        let [_, m2, m3] = m.stage;
        e.set(c, "m2_oc", BigUint::from(m2.oc));
        e.set(c, "m3_valid", BigUint::from(m3.valid as u8));
        e.set(c, "m3_first", BigUint::from(m3.first as u8));
        e.set(c, "m3_oc", BigUint::from(m3.oc));
        e.set(c, "m4_valid", BigUint::from(m.m4.valid as u8));
        e.set(c, "m4_proc", BigUint::from(m.m4.proc));
        e.set(c, "m4_oe", BigUint::from(m.m4.oe));
        e.set(c, "m4_pix", BigUint::from(m.m4.pix));
    }
    e
}

/// `cnn_layer_seq`: runs of 1..6 layers (and of one and of 32), each layer ending after a
/// random number of RUN cycles (or at once), starts while busy (ignored), cycle counts read
/// back at random layers, a reset in the middle of a run; every third run streams (1..4
/// streaming layers, random schedule words, the END flag now and then, the FIFOs' rows
/// growing so WAIT both waits and passes at once).
pub fn layer_seq_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_LAYER_SEQ, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut run = 0usize;
    while s.len() < cycles {
        let nlayers: u32 = match run % 5 {
            0 => 1,
            1 => 32,
            _ => rng.random_range(1..=6),
        };
        let len = if nlayers == 32 {
            2
        } else {
            rng.random_range(0..30)
        };
        let idle = rng.random_range(1..6);
        let stream_layers: u32 = if run % 3 == 2 {
            rng.random_range(1..=nlayers.min(4))
        } else {
            0
        };
        let slices = if stream_layers > 0 { 8 } else { 0 };
        let mut rows = 0u32;
        for k in 0..(idle + (nlayers as usize + slices) * (len + 16) + 4) {
            if rng.random_range(0..4) == 0 {
                rows += 1;
            }
            let w0 =
                rng.random::<u32>() & 0x007f_ffff | u32::from(rng.random_range(0..6) == 0) << 31;
            let w1 = rng.random_range(0..=rows + 2) | rng.random_range(0..2048u32) << 16;
            s.row()
                .set("stream_layers", stream_layers)?
                .set("sched_w0", w0)?
                .set("sched_w1", w1)?
                .set("sched_w2", rng.random_range(0..1u32 << 20))?
                .set("fifo_rows", rows.min(2047))?
                .bit("reset", run == 3 && k == 40)?
                .bit("start", k == idle - 1 || rng.random_range(0..50) == 0)?
                .set("nlayers", nlayers)?
                .bit(
                    "layer_end",
                    len == 0 || rng.random_range(0..len.max(1)) == 0,
                )?
                .set("lc_raddr", rng.random_range(0..32u32))?
                .push()?;
        }
        run += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_layer_seq`: every output after every edge.
pub fn layer_seq_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut q = Sequencer::default();
    for c in 0..stim.len() {
        let i = SeqIn::read(&v, c);
        q.step(&i);
        let state = q.phase.index();
        e.set(c, "state", BigUint::from(state));
        e.set(c, "busy", BigUint::from((state != 0) as u8));
        e.set(c, "load", BigUint::from((state == 1) as u8));
        e.set(c, "run", BigUint::from((state == 2) as u8));
        e.set(c, "cfg_load", BigUint::from(q.loaded as u8));
        e.set(c, "layer", BigUint::from(q.layer));
        e.set(c, "next_layer", BigUint::from(q.next_layer(&i)));
        e.set(c, "done", BigUint::from(q.done as u8));
        e.set(c, "layer_done", BigUint::from(q.layer_done as u8));
        e.set(c, "cycles", BigUint::from(q.cycles));
        e.set(c, "lc_rdata", BigUint::from(q.lc_read));
        let (row_first, pix_first) = q.first();
        e.set(c, "sched_addr", BigUint::from(q.sched));
        e.set(c, "slice", BigUint::from(q.slice as u8));
        e.set(c, "row_first", BigUint::from(row_first));
        e.set(c, "row_last", BigUint::from(q.row_last));
        e.set(c, "pix_first", BigUint::from(pix_first));
        e.set(c, "allow", BigUint::from(q.allow));
    }
    e
}

/// `cnn_mac_ctl`: layers with random loop bounds (channels 1..70, up to 3 chunks, passes,
/// columns and rows), kernels per word and slots, output processor maps (all 64, the top
/// one, sparse, dense) and passes of 1..64 processors, each run until it ends or for a
/// while, the windows' `full` flags random (the MAC waits for its window), `run` dropping,
/// a reset now and then.
pub fn mac_ctl_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_MAC_CTL, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut k = 0usize;
    while s.len() < cycles {
        let out_map: u64 = match k % 4 {
            0 => u64::MAX,
            1 => 1 << 63 | rng.random_range(0..16u64),
            2 => rng.random::<u64>() & rng.random::<u64>() | 1,
            _ => rng.random::<u64>() | rng.random::<u64>(),
        };
        let thresh = (out_map.count_ones()).min(rng.random_range(1..=64));
        let out_ch = rng.random_range(1..70u32);
        let (chunks, passes) = (rng.random_range(1..=3u32), rng.random_range(1..=3u32));
        let (w, h) = (rng.random_range(1..=4u32), rng.random_range(1..=3u32));
        // Every other layer runs a slice of rows from a first pixel, as a schedule entry.
        let (row_first, pix_first) = if k % 2 == 1 {
            (rng.random_range(0..4u32), rng.random_range(0..1u32 << 20))
        } else {
            (0, 0)
        };
        let kpw = [1u32, 2, 4, 8][rng.random_range(0..4)];
        let kslot = 72 / kpw;
        let kstart = rng.random_range(0..1024u32);
        let cfg = |r: edgelearn_sim::stimulus::Row<'_>| -> Result<()> {
            r.set("out_ch", out_ch)?
                .set("kstart", kstart)?
                .set("kpw", kpw)?
                .set("kslot", kslot)?
                .set("out_thresh", thresh)?
                .set("out_map", out_map)?
                .set("in_passes", passes)?
                .set("chunks", chunks)?
                .set("out_w", w)?
                .set("row_first", row_first)?
                .set("row_last", row_first + h - 1)?
                .set("pix_first", pix_first)?
                .push()
        };
        cfg(s
            .row()
            .bit("reset", false)?
            .bit("load", true)?
            .set("load_kstart", kstart)?
            .bit("run", false)?)?;
        let issues = (out_ch * chunks * passes * w * h) as usize;
        for c in 0..(issues * 3 / 2 + 20).min(700) {
            cfg(s
                .row()
                .bit("load", false)?
                .bit("run", rng.random_range(0..12) != 0)?
                .set(
                    "full",
                    if rng.random_range(0..3) == 0 {
                        rng.random_range(0..4u32)
                    } else {
                        3
                    },
                )?
                .bit("reset", k == 5 && c == 30)?)?;
        }
        k += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_mac_ctl`: every output after every edge.
pub fn mac_ctl_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = MacSeq::default();
    for c in 0..stim.len() {
        let i = MacCtlIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        for (port, val) in [
            ("issue", o.issue as u32),
            ("first", o.first as u32),
            ("last", o.last as u32),
            ("read_buf", o.read_buf as u32),
            ("oc", o.oc),
            ("kaddr", o.kaddr),
            ("kshift", o.kshift),
            ("oproc", o.oproc),
            ("oe", o.oe),
            ("opix", o.opix),
            ("mac_end", o.mac_end as u32),
            ("layer_end", o.layer_end as u32),
        ] {
            e.set(c, port, BigUint::from(val));
        }
    }
    e
}

/// `cnn_host_port`: writes and reads of every register and of every memory region (kernel
/// words part by part), addresses outside the map and aliases of the layer-cycle page,
/// writes while the engine is busy (ignored but for the start), back-to-back strobes, random
/// read data from the memories, and resets.
pub fn host_port_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    use edgelearn_hdl::cnn::engine::regs;
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_HOST_PORT, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    while s.len() < cycles {
        let addr: u32 = match rng.random_range(0..12) {
            0 => [
                regs::CTRL,
                regs::NLAYERS,
                regs::CYCLES,
                regs::LAYER,
                regs::PROCESSORS,
                regs::KERNEL_WORDS,
                regs::STREAM,
            ][rng.random_range(0..7)],
            1 => regs::LAYER_CYCLES + rng.random_range(0..32),
            2 => regs::LAYER_REGS + rng.random_range(0..512),
            3 => regs::BIAS + rng.random_range(0..2048),
            4 => regs::DATA + rng.random_range(0..131_072),
            5 | 6 => regs::KERNEL + rng.random_range(0..262_144),
            7 => regs::SCHEDULE + rng.random_range(0..8192),
            // Region 0 outside its registers (the layer-cycle page repeated higher up).
            8 => rng.random_range(0..0x10_0000) & !0x1f,
            _ => rng.random_range(0..0x100_0000),
        };
        let mut lregs = BigUint::from(0u8);
        for k in 0..16 {
            lregs |= BigUint::from(rng.random::<u32>()) << (32 * k);
        }
        let kword = BigUint::from(rng.random::<u64>()) | BigUint::from(rng.random::<u8>()) << 64;
        s.row()
            .bit("reset", rng.random_range(0..300) == 0)?
            .bit("host_we", rng.random_range(0..3) == 0)?
            .bit("host_re", rng.random_range(0..3) == 0)?
            .set("host_addr", addr)?
            .set("host_wdata", rng.random::<u32>())?
            .bit("busy", rng.random_range(0..4) == 0)?
            .bit("done", rng.random())?
            .set("layer", rng.random_range(0..32u32))?
            .set("cycles", rng.random::<u32>())?
            .set("lc_rdata", rng.random::<u32>())?
            .set("lreg_rdata", lregs)?
            .set("bias_rdata", rng.random_range(0..256u32))?
            .set("dm_rdata", rng.random::<u32>())?
            .set("k_rdata", kword)?
            .set(
                "sched_rdata",
                BigUint::from(rng.random::<u64>()) | BigUint::from(rng.random::<u32>()) << 64,
            )?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_host_port`: every output after every edge.
pub fn host_port_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    use edgelearn_hdl::cnn::engine::host_port::{BENCH_KERNEL_WORDS, BENCH_PROCESSORS};
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut h = HostRegs::new(BENCH_PROCESSORS as u32, BENCH_KERNEL_WORDS as u32);
    for c in 0..stim.len() {
        let busy = v.bit(c, "busy");
        h.step(&HostIn {
            reset: v.bit(c, "reset"),
            we: v.bit(c, "host_we"),
            re: v.bit(c, "host_re"),
            addr: v.unsigned(c, "host_addr") as u32,
            wdata: v.unsigned(c, "host_wdata") as u32,
            busy,
            done: v.bit(c, "done"),
            layer: v.unsigned(c, "layer") as u32,
            cycles: v.unsigned(c, "cycles") as u32,
        });
        let mut lregs = [0u32; 16];
        for (w, l) in lregs.iter_mut().zip(v.lanes(c, "lreg_rdata")) {
            *w = l as u32;
        }
        let o = h.outputs(
            busy,
            &HostReadData {
                lc: v.unsigned(c, "lc_rdata") as u32,
                lregs,
                bias: v.unsigned(c, "bias_rdata") as u8,
                dm: v.unsigned(c, "dm_rdata") as u32,
                kword: v.wide(c, "k_rdata"),
                sched: {
                    let l = v.lanes(c, "sched_rdata");
                    [l[0] as u32, l[1] as u32, l[2] as u32]
                },
            },
        );
        let (reset, _, re, addr, wdata) = h.stage;
        for (port, val) in [
            ("host_rdata", BigUint::from(o.rdata)),
            ("hr_addr", BigUint::from(h.read_addr)),
            ("start", BigUint::from(o.start as u8)),
            ("nlayers", BigUint::from(h.nlayers)),
            ("stream", BigUint::from(h.stream)),
            ("sched_we", BigUint::from(o.sched_we as u8)),
            ("lreg_we", BigUint::from(o.lreg_we as u8)),
            ("bias_we", BigUint::from(o.bias_we as u8)),
            ("dm_we", BigUint::from(o.dm_we as u8)),
            ("k_we", BigUint::from(o.k_we as u8)),
            ("k_wdata", BigUint::from(o.k_wdata)),
            ("reset_q", BigUint::from(reset as u8)),
            ("re", BigUint::from(re as u8)),
            ("addr", BigUint::from(addr)),
            ("wdata", BigUint::from(wdata)),
        ] {
            e.set(c, port, val);
        }
    }
    e
}

/// `cnn_fifo_in`: runs of 1..4 FIFOs, HWC and CHW (rows of 4..13 columns, a CHW word
/// reaching into the next row), the beats valid at random, `allow` held back and released
/// (the writer waits, then takes), a start in the middle of a run, and a reset.
pub fn fifo_in_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_FIFO_IN, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    s.row().bit("reset", true)?.push()?;
    let mut run = 0u32;
    while s.len() < cycles {
        let fifos = if run % 5 == 4 { 0 } else { run % 4 + 1 };
        let chw = run % 3 == 1;
        let width = rng.random_range(4..14u32);
        let mut allow = rng.random_range(0..3u32);
        for k in 0..200 {
            if rng.random_range(0..8) == 0 {
                allow += 1;
            }
            s.row()
                .bit("reset", run == 6 && k == 50)?
                .bit("start", k == 0 || rng.random_range(0..400) == 0)?
                .set("stream", fifos << 4 | u32::from(chw) << 7 | width << 8)?
                .set("allow", allow.min(2047))?
                .set("s_tdata", rng.random::<u32>())?
                .bit("s_tvalid", rng.random_range(0..4) != 0)?
                .push()?;
        }
        run += 1;
    }
    Ok(s)
}

/// Golden trace of `cnn_fifo_in`: every output after every edge.
pub fn fifo_in_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut w = FifoWriter::default();
    for c in 0..stim.len() {
        let i = FifoInIn::read(&v, c);
        w.step(&i);
        let (we, wf, waddr, wdata) = w.write;
        e.set(c, "s_tready", BigUint::from(w.ready(&i) as u8));
        e.set(c, "we", BigUint::from(we as u8));
        e.set(c, "wf", BigUint::from(wf));
        e.set(c, "waddr", BigUint::from(waddr));
        e.set(c, "wdata", BigUint::from(wdata));
        e.set(c, "rows", BigUint::from(w.rows));
    }
    e
}
