//! Benches of the CNN engine's datapath blocks: `cnn_group_sum`, `cnn_acc_mem` and
//! `cnn_processor`.

use super::super::{blank, View};
use super::{bytes, CORNER_BYTES};
use crate::blocks::{port_row, PortRow};
use crate::golden::cnn_engine::{op, AccIn, Accumulators, GroupSums, ProcIn, ProcessorModel};
use edgelearn_sim::value::from_signed;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

port_row!(AccIn => m2_oc, bias_start, bias_en, busy, host_we, host_addr, host_wdata, m3_valid, m3_first, m3_oc, total);

/// Quads on the `cnn_group_sum` bench (the 64-processor engine's).
const GS_QUADS: usize = 16;
/// Quads per group there.
const GS_PER_GROUP: usize = 4;

/// `cnn_group_sum`: every quad's sum random or at a corner (the 22-bit extremes, a quad's
/// largest MAC sums 4 x 9 x 2^14, 0, -1), the used quads random, none, all, or one.
pub fn group_sum_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_GROUP_SUM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let corners: [i64; 7] = [
        -(1 << 21),
        (1 << 21) - 1,
        (4 * 9) << 14,
        -((4 * 9) << 14),
        0,
        -1,
        1,
    ];
    for k in 0..cycles {
        let extreme = k % 8 == 5;
        let mut packed = BigUint::from(0u8);
        for q in 0..GS_QUADS {
            let v: i64 = if extreme {
                corners[(k / 8 + q / 8) % 2]
            } else if rng.random_range(0..4) == 0 {
                corners[rng.random_range(0..corners.len())]
            } else {
                rng.random_range(-(1i64 << 21)..(1 << 21))
            };
            packed |= BigUint::from(v as u64 & 0x3f_ffff) << (22 * q);
        }
        let active: u32 = match k % 6 {
            0 => 0xffff,
            1 => 0,
            2 => 1 << (k / 6 % 16),
            _ => rng.random_range(0..0x1_0000u32),
        };
        s.row()
            .set("qsums", packed)?
            .set("active", active)?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_group_sum`: `total` after every edge.
pub fn group_sum_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut g = GroupSums::new(GS_QUADS / GS_PER_GROUP, GS_PER_GROUP);
    for c in 0..stim.len() {
        g.step(&v.lanes(c, "qsums"), v.unsigned(c, "active") as u32);
        e.set(c, "total", from_signed(g.total(), 26));
    }
    e
}

/// Bias bytes of the `cnn_acc_mem` bench.
pub const ACC_BENCH_BIAS: usize = 512;

/// `cnn_acc_mem`: the host writes every bias byte (corners among them) and reads some back;
/// then the MAC's pattern: per pixel, iterations over a run of channels, each channel read at
/// M2 and updated at M3 one edge later, the first iteration from the bias (with and without a
/// bias, bias addresses wrapping), sums at the 26-bit extremes; then random rows.
pub fn acc_mem_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_ACC_MEM, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for a in 0..ACC_BENCH_BIAS as u32 {
        let b: i64 = if a < 8 {
            [-128, -127, 127, -31, 31, 0, 1, -1][a as usize]
        } else {
            rng.random_range(-128..=127)
        };
        s.row()
            .bit("busy", false)?
            .bit("host_we", true)?
            .set("host_addr", a)?
            .set("host_wdata", b as u64 & 0xff)?
            .push()?;
    }
    for _ in 0..64 {
        s.row()
            .bit("host_we", false)?
            .set("host_addr", rng.random_range(0..2048u32))?
            .push()?;
    }
    let total = |rng: &mut Xoshiro256PlusPlus| -> u64 {
        let t: i64 = match rng.random_range(0..6) {
            0 => -(1 << 25),
            1 => (1 << 25) - 1,
            _ => rng.random_range(-(1i64 << 25)..(1 << 25)),
        };
        t as u64 & 0x3ff_ffff
    };
    // MAC pattern: (valid, first, oc) at M2 this row, at M3 the next.
    let mut m3: (bool, bool, u32) = (false, false, 0);
    let half = s.len() + cycles / 2;
    while s.len() < half {
        let channels = rng.random_range(1..40u32);
        let base = rng.random_range(0..1024u32);
        let iters = rng.random_range(1..4);
        let bias_en = rng.random_range(0..4) != 0;
        let bias_start = rng.random_range(0..4096u32);
        for it in 0..iters {
            for ch in 0..channels {
                let m2 = (true, it == 0, (base + ch) % 2048);
                s.row()
                    .bit("busy", true)?
                    .bit("host_we", false)?
                    .set("bias_start", bias_start)?
                    .bit("bias_en", bias_en)?
                    .set("m2_oc", m2.2)?
                    .bit("m3_valid", m3.0)?
                    .bit("m3_first", m3.1)?
                    .set("m3_oc", m3.2)?
                    .set("total", total(&mut rng))?
                    .push()?;
                m3 = m2;
            }
        }
    }
    while s.len() < ACC_BENCH_BIAS + 64 + cycles {
        s.row()
            .bit("busy", rng.random_range(0..8) != 0)?
            .bit("host_we", rng.random_range(0..8) == 0)?
            .set("host_addr", rng.random_range(0..2048u32))?
            .set("host_wdata", rng.random_range(0..256u32))?
            .set("bias_start", rng.random_range(0..4096u32))?
            .bit("bias_en", rng.random())?
            .set("m2_oc", rng.random_range(0..2048u32))?
            .bit("m3_valid", rng.random())?
            .bit("m3_first", rng.random())?
            .set("m3_oc", rng.random_range(0..2048u32))?
            .set("total", total(&mut rng))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_acc_mem`: `m4_acc` and `bias_rdata` after every edge.
pub fn acc_mem_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut a = Accumulators::new(ACC_BENCH_BIAS);
    for c in 0..stim.len() {
        a.step(&AccIn::read(&v, c));
        e.set(c, "m4_acc", from_signed(a.m4_acc, 48));
        e.set(c, "bias_rdata", from_signed(a.bias_read, 8));
    }
    e
}

/// Kernel words of the `cnn_processor` bench.
pub const PROC_BENCH_KERNEL_WORDS: usize = 768;

/// `cnn_processor`: kernel words written, then iterations as the gather and the MAC give
/// them: per tap an inner sequence of 1..4 items (pooling) inside outer sequences of 1..3
/// operands (element-wise), padding, the processor unused now and then, every operation
/// pair (pooling first or after), average divisors with their magic numbers, corner data;
/// the MAC reading the other window with kernel words of every weight width and tap count;
/// then random rows.
pub fn processor_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(crate::rtl::designs::name::CNN_PROCESSOR, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    for w in 0..64u32 {
        s.row()
            .bit("k_we", true)?
            .set("k_waddr", if w == 63 { 767 } else { w })?
            .set("k_wdata", BigUint::from(bytes(&mut rng)))?
            .push()?;
    }
    let data = |rng: &mut Xoshiro256PlusPlus| -> u32 {
        if rng.random_range(0..3) == 0 {
            CORNER_BYTES[rng.random_range(0..CORNER_BYTES.len())] as u32
        } else {
            rng.random_range(0..256u32)
        }
    };
    let mut it = 0usize;
    while s.len() < cycles * 3 / 4 {
        let pool_first = rng.random();
        let pool = [op::MAX, op::AVG][rng.random_range(0..2)];
        let elt = [op::ADD, op::SUB, op::OR, op::XOR, op::MAX][rng.random_range(0..5)];
        let (inner_op, outer_op) = if pool_first { (pool, elt) } else { (elt, pool) };
        let (n_in, n_out) = (rng.random_range(1..=4u32), rng.random_range(1..=3u32));
        let (round, d) = (rng.random(), if pool_first { n_in } else { n_out });
        let (m, sh) = crate::cnn::engine::avg_magic(if round { 2 * d } else { d });
        let taps = rng.random_range(1..=9u32);
        let wbits = [8u32, 4, 2, 1][rng.random_range(0..4)];
        let per_word = (72 / (wbits * taps)).max(1);
        let en = rng.random_range(0..8) != 0;
        let buf = it % 2 == 1;
        let slide = it > 0 && rng.random_range(0..2) == 0;
        let slide_same = rng.random_range(0..3) == 0;
        for t in 0..taps {
            for o in 0..n_out {
                for k in 0..n_in {
                    let (ifirst, ilast) = (k == 0, k + 1 == n_in);
                    s.row()
                        .bit("k_we", false)?
                        .bit("en", en)?
                        .set("data", data(&mut rng))?
                        .set("inner_op", inner_op)?
                        .set("outer_op", outer_op)?
                        .bit("avg_round", round)?
                        .set("avg_d", d)?
                        .set("avg_m", m)?
                        .set("avg_sh", sh)?
                        .bit("pool_first", pool_first)?
                        .set("wbits", wbits)?
                        .set("taps", taps)?
                        .bit("g_valid", true)?
                        .bit("g_pad", rng.random_range(0..10) == 0)?
                        .bit("g_ifirst", ifirst)?
                        .bit("g_ilast", ilast)?
                        .bit("g_ofirst", o == 0 && ilast)?
                        .bit("g_olast", o + 1 == n_out && ilast)?
                        .set("g_tap", t)?
                        .bit("g_buf", buf)?
                        .bit("g_slide", slide && t == 0 && o == 0 && k == 0)?
                        .bit("g_slide_same", slide_same)?
                        .bit("m_buf", !buf)?
                        .set("kshift", rng.random_range(0..per_word) * wbits * taps)?
                        .bit("k_re", rng.random_range(0..3) != 0)?
                        .set("k_raddr", rng.random_range(0..64u32))?
                        .push()?;
                }
            }
        }
        // The MAC reads the window just filled once its values are in.
        for _ in 0..4 {
            s.row().bit("g_valid", false)?.bit("m_buf", buf)?.push()?;
        }
        it += 1;
    }
    while s.len() < 64 + cycles {
        let wbits = [8u32, 4, 2, 1][rng.random_range(0..4)];
        s.row()
            .bit("en", rng.random_range(0..8) != 0)?
            .set("data", data(&mut rng))?
            .set("inner_op", rng.random_range(0..6u32))?
            .set("outer_op", rng.random_range(0..6u32))?
            .bit("pool_first", rng.random())?
            .set("wbits", wbits)?
            .set("taps", rng.random_range(0..16u32))?
            .bit("g_valid", rng.random())?
            .bit("g_pad", rng.random_range(0..5) == 0)?
            .bit("g_ifirst", rng.random())?
            .bit("g_ilast", rng.random())?
            .bit("g_ofirst", rng.random())?
            .bit("g_olast", rng.random())?
            .set("g_tap", rng.random_range(0..16u32))?
            .bit("g_buf", rng.random())?
            .bit("g_slide", rng.random_range(0..4) == 0)?
            .bit("g_slide_same", rng.random())?
            .bit("m_buf", rng.random())?
            .set("kshift", rng.random_range(0..72u32))?
            .bit("k_re", rng.random())?
            .set(
                "k_raddr",
                rng.random_range(0..PROC_BENCH_KERNEL_WORDS as u32),
            )?
            .bit("k_we", rng.random_range(0..6) == 0)?
            .set("k_waddr", rng.random_range(0..1024u32))?
            .set("k_wdata", BigUint::from(bytes(&mut rng)))?
            .push()?;
    }
    Ok(s)
}

/// Golden trace of `cnn_processor`: `k_rdata` and `psum` after every edge.
pub fn processor_expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut p = ProcessorModel::new(PROC_BENCH_KERNEL_WORDS);
    for c in 0..stim.len() {
        p.step(&ProcIn {
            en: v.bit(c, "en"),
            data: v.unsigned(c, "data") as u8,
            inner_op: v.unsigned(c, "inner_op") as u32,
            outer_op: v.unsigned(c, "outer_op") as u32,
            avg_round: v.bit(c, "avg_round"),
            avg_d: v.unsigned(c, "avg_d") as u32,
            avg_m: v.unsigned(c, "avg_m") as u32,
            avg_sh: v.unsigned(c, "avg_sh") as u32,
            pool_first: v.bit(c, "pool_first"),
            wbits: v.unsigned(c, "wbits") as u32,
            taps: v.unsigned(c, "taps") as u32,
            g_valid: v.bit(c, "g_valid"),
            g_pad: v.bit(c, "g_pad"),
            g_ifirst: v.bit(c, "g_ifirst"),
            g_ilast: v.bit(c, "g_ilast"),
            g_ofirst: v.bit(c, "g_ofirst"),
            g_olast: v.bit(c, "g_olast"),
            g_tap: v.unsigned(c, "g_tap") as u32,
            g_buf: v.bit(c, "g_buf"),
            g_slide: v.bit(c, "g_slide"),
            g_slide_same: v.bit(c, "g_slide_same"),
            m_buf: v.bit(c, "m_buf"),
            kshift: v.unsigned(c, "kshift") as u32,
            k_re: v.bit(c, "k_re"),
            k_raddr: v.unsigned(c, "k_raddr") as u32,
            k_we: v.bit(c, "k_we"),
            k_waddr: v.unsigned(c, "k_waddr") as u32,
            k_wdata: v.wide(c, "k_wdata"),
        });
        e.set(c, "k_rdata", BigUint::from(p.kread));
        e.set(c, "psum", from_signed(p.psum, 20));
    }
    e
}
