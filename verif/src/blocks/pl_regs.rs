//! `lel_pl_regs`: the platform's writable registers as a host drives them (the thesis
//! setup: MODEL_CFG, the four seeds, N_TRAIN and N_TEST, a three-epoch learning-rate table
//! and EPOCH stepped through it, then LR_LEN 0 and a reset), random traffic (writes of
//! random values to every address 0x00..0x3f, rare resets), and the golden trace.

use super::{blank, out_row, port_row, OutRow, PortRow, View};
use crate::golden::pl_regs::{PlRegs, PlRegsIn, PlRegsOut};
use crate::rtl::designs::name::LEL_PL_REGS;
use edgelearn_hdl::lel::platform_regs as regs;
use edgelearn_sim::value::pack_lanes;
use edgelearn_sim::{Expected, PortSpec, Result, Stimulus};
use num_bigint::BigUint;
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

out_row!(PlRegsOut => ctrl, model_cfg, cfg_active, n_train, n_test, epoch, lr_len);

port_row!(PlRegsIn => reset, we, addr, wdata);

/// The thesis setup as the host writes it (module doc), an idle cycle after each write.
pub fn thesis_stimulus(ports: &[PortSpec], _seed: u64) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_PL_REGS, ports);
    let idle = PlRegsIn::default();
    PlRegsIn {
        reset: true,
        ..idle
    }
    .push(&mut s)?;
    let mut writes = vec![
        (regs::MODEL_CFG, 0xffff_ffff),
        (regs::MODEL_CFG, 0x0002_5a49),
        (regs::SEED_LC0, 0x1_2345),
        (regs::SEED_WU0, 0xfffe_0001),
        (regs::SEED_LC1, 0x0_beef),
        (regs::SEED_WU1, 0x1_cafe),
        (regs::N_TRAIN, 8000),
        (regs::N_TEST, 2000),
        (regs::CTRL, 2),
    ];
    for e in 0..3u8 {
        writes.push((regs::LR_TABLE + e, (e as u32 + 1) | ((e as u32 + 4) << 3)));
    }
    writes.push((regs::LR_LEN, 3));
    for epoch in 0..5 {
        writes.push((regs::EPOCH, epoch));
    }
    // Above the table: LR_LEN stores 16 (the map's `max`), whatever else the word holds.
    writes.push((regs::LR_LEN, 17));
    writes.push((regs::EPOCH, 20));
    writes.push((regs::LR_LEN, 0xffff_ffff));
    writes.push((regs::LR_LEN, 0x31));
    writes.push((regs::LR_LEN, 0));
    for (addr, wdata) in writes {
        PlRegsIn {
            we: true,
            addr,
            wdata,
            ..idle
        }
        .push(&mut s)?;
        idle.push(&mut s)?;
    }
    PlRegsIn {
        reset: true,
        ..idle
    }
    .push(&mut s)?;
    idle.push(&mut s)?;
    Ok(s)
}

/// Random traffic: writes on about half the cycles, to any address 0x00..0x3f, of random
/// values (small ones for EPOCH and LR_LEN so the table's index moves), rare resets.
pub fn random_stimulus(ports: &[PortSpec], seed: u64, cycles: usize) -> Result<Stimulus> {
    let mut s = Stimulus::new(LEL_PL_REGS, ports);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    PlRegsIn {
        reset: true,
        ..Default::default()
    }
    .push(&mut s)?;
    for _ in 0..cycles {
        let addr = rng.random_range(0..0x40u8);
        let wdata = match addr {
            regs::EPOCH | regs::LR_LEN => rng.random_range(0..20),
            _ => rng.random(),
        };
        let i = PlRegsIn {
            reset: rng.random_range(0..400) == 0,
            we: rng.random(),
            addr,
            wdata,
        };
        i.push(&mut s)?;
    }
    Ok(s)
}

/// Golden trace: every output on every cycle (sampled after the edge, the inputs held).
pub fn expected(ports: &[PortSpec], stim: &Stimulus) -> Expected {
    let v = View::new(stim);
    let mut e = blank(ports, stim);
    let mut m = PlRegs::default();
    for c in 0..stim.len() {
        let i = PlRegsIn::read(&v, c);
        m.step(&i);
        let o = m.outputs(&i);
        o.set_row(&mut e, c);
        for (k, p) in ["seed_lc0", "seed_wu0", "seed_lc1", "seed_wu1"]
            .iter()
            .enumerate()
        {
            e.set(c, p, BigUint::from(o.seeds[k]));
        }
        let lr: Vec<i64> = o.lr.iter().map(|&x| x as i64).collect();
        e.set(c, "lr", pack_lanes(&lr, 6));
    }
    e
}
