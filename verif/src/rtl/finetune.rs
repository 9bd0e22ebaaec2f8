//! Fine-tuning on the CNN engine RTL ([`crate::cnn::finetune::Engine`]): the frozen layers
//! of every image run on the engine and are compared, layer by layer, with the golden
//! model; the last layer's weights are written word by word through the host port into
//! its kernel-memory columns (the seed's "set weights in memory"), and every forward pass
//! of the last layer runs on the engine: the features are written into the data memory
//! where the layer before it leaves them, the layer's registers go into slot 0 of the
//! layer sequencer, one layer runs, and its 32-bit outputs are read back through the host
//! port.

use super::cnn::{simulate, CnnBench, Load};
use crate::cnn::engine::{data_location, output_location, EngineImage, KernelLayout};
use crate::cnn::error::{CnnError, Result};
use crate::cnn::finetune::{Engine, LastLayer};
use crate::cnn::{memory, Inference, Network, RunOptions, Tensor};
use edgelearn_hdl::cnn::{host, LAYER_WORDS};

/// The engine RTL as the fine-tuning engine.
pub struct RtlEngine {
    bench: CnnBench,
    net: Network,
    inf: Inference,
    image: EngineImage,
    last: LastLayer,
    /// Position of the last layer in run order.
    pos: usize,
    /// Images run through the whole network.
    pub images: usize,
    /// Forward passes of the last layer.
    pub forwards: usize,
    /// Cycles of all whole-network runs.
    pub network_cycles: u64,
    /// Cycles of all last-layer runs.
    pub last_layer_cycles: u64,
    /// The last layer as last written (decoded), for the golden check of every pass.
    w: Vec<i64>,
    b: Vec<i64>,
}

fn rtl(e: impl std::fmt::Display) -> CnnError {
    CnnError::new(format!("engine RTL: {e}"))
}

impl RtlEngine {
    /// The bench around an engine built for `image.shape`; `image` is `net` loaded by
    /// [`crate::cnn::engine::build`].
    pub fn new(
        bench: CnnBench,
        net: &Network,
        inf: &Inference,
        image: &EngineImage,
    ) -> Result<RtlEngine> {
        let last = LastLayer::from_network(net, inf)?;
        let pos = image
            .layers
            .iter()
            .position(|l| l.layer == last.layer)
            .ok_or_else(|| CnnError::layer(last.layer, "not in the engine image"))?;
        Ok(RtlEngine {
            bench,
            net: net.clone(),
            inf: inf.clone(),
            image: image.clone(),
            pos,
            images: 0,
            forwards: 0,
            network_cycles: 0,
            last_layer_cycles: 0,
            w: last.w.clone(),
            b: last.b.clone(),
            last,
        })
    }

    /// The bench (to finish a VCD, read counters).
    pub fn bench(&mut self) -> &mut CnnBench {
        &mut self.bench
    }
}

impl Engine for RtlEngine {
    fn name(&self) -> String {
        format!(
            "{} RTL",
            crate::rtl::designs::engine_name(&self.image.shape)
        )
    }

    fn features(&mut self, image: &Tensor) -> Result<Vec<i64>> {
        let inf = self.net.infer(image, &RunOptions::default(), None)?;
        let img = crate::cnn::engine::build(
            &self.net.desc,
            &self.net.weights,
            &inf.plan,
            image,
            &RunOptions::default(),
            &self.image.shape,
        )?;
        let rep = simulate(&mut self.bench, &self.net, &inf, &img, Load::Backdoor).map_err(rtl)?;
        if let Some(d) = rep.first_mismatch() {
            return Err(rtl(format!(
                "image {}: the frozen layers differ from the golden model: {d}",
                self.images
            )));
        }
        self.images += 1;
        self.network_cycles += rep.cycles;
        let l = rep
            .layers
            .iter()
            .find(|l| l.layer == self.last.source)
            .ok_or_else(|| rtl("the source layer did not run"))?;
        Ok(l.output.data.clone())
    }

    fn write_last_layer(
        &mut self,
        layout: &KernelLayout,
        mem: &[Vec<u128>],
        bias: &[i64],
    ) -> Result<()> {
        let b = &mut self.bench;
        for (p, words) in mem.iter().enumerate() {
            if layout.processors >> p & 1 == 0 {
                continue;
            }
            for (w, &k) in words
                .iter()
                .enumerate()
                .skip(layout.start)
                .take(layout.words)
            {
                for part in 0..3 {
                    b.write(host::kernel(p, w, part), (k >> (32 * part)) as u32)
                        .map_err(rtl)?;
                }
            }
        }
        self.w = layout.decode(mem).w;
        self.b = bias.to_vec();
        let start = self.image.layers[self.pos].bias_start;
        for (i, &v) in bias.iter().enumerate() {
            b.write(host::BIAS + start + i as u32, v as u8 as u32)
                .map_err(rtl)?;
        }
        Ok(())
    }

    fn last_layer(&mut self, x: &[i64]) -> Result<Vec<i64>> {
        let plan = &self.inf.plan;
        let src = self.last.source;
        let sp = plan.layer(src);
        let t = Tensor::from_vec(sp.out_ch, sp.out_dim[0], sp.out_dim[1], x.to_vec());
        let shape = self.image.shape;
        let b = &mut self.bench;
        // The features where the layer before leaves them.
        for c in memory::output_checks(&self.net.desc.layers[src], sp, &t, &plan.device) {
            let (inst, word) = data_location(&shape, c.address)
                .ok_or_else(|| rtl(format!("address 0x{:08x} outside the engine", c.address)))?;
            b.write(host::data(inst, word), c.value).map_err(rtl)?;
        }
        // The last layer alone: its registers in slot 0, one layer.
        for (k, &w) in self.image.layers[self.pos].encode().iter().enumerate() {
            b.write(host::LAYER_REGS + k as u32, w).map_err(rtl)?;
        }
        let cycles = b.run(1, 1_000_000, |_, _| Ok(())).map_err(rtl)?;
        self.forwards += 1;
        self.last_layer_cycles += cycles;
        // Put the whole network's slot 0 back.
        for (k, &w) in self.image.layers[0].encode().iter().enumerate() {
            b.write(host::LAYER_REGS + k as u32, w).map_err(rtl)?;
        }
        debug_assert!(LAYER_WORDS == self.image.layers[0].encode().len());
        // The 32-bit outputs.
        let ll = self.last.layer;
        let p = plan.layer(ll);
        let l = &self.net.desc.layers[ll];
        let hw = p.out_dim[0] * p.out_dim[1];
        let mut out = Vec::with_capacity(p.out_ch * hw);
        for c in 0..p.out_ch {
            for q in 0..hw {
                let (addr, _) = output_location(l, p, c, q, &plan.device);
                let (inst, word) = data_location(&shape, addr).ok_or_else(|| {
                    rtl(format!("output address 0x{addr:08x} outside the engine"))
                })?;
                out.push(b.read_data(inst, word).map_err(rtl)? as i32 as i64);
            }
        }
        // Every pass checked against the golden layer with the weights written.
        let want = crate::cnn::fc_update::forward(&self.w, &self.b, x);
        if let Some(o) = (0..want.len()).find(|&o| want[o] != out[o]) {
            return Err(rtl(format!(
                "{}, layer {ll}, forward pass {}: output {o} is {}, the golden layer gives {}",
                crate::rtl::designs::engine_name(&shape),
                self.forwards,
                out[o],
                want[o]
            )));
        }
        Ok(out)
    }
}

/// The `cnn_fc_update` RTL as the fine-tuning's fixed updater: every update runs on the
/// block, its error vector and weights compared with [`crate::cnn::fc_update::update_layer`]
/// (the first difference is an error naming the update, state, index, expected and got).
pub struct RtlUpdater {
    bench: super::fc_update::FcUpdateBench,
    /// Updates done.
    pub updates: usize,
    /// Cycles of all updates.
    pub cycles: u64,
}

impl RtlUpdater {
    /// The updater around a bench of the block.
    pub fn new(bench: super::fc_update::FcUpdateBench) -> RtlUpdater {
        RtlUpdater {
            bench,
            updates: 0,
            cycles: 0,
        }
    }
}

impl crate::cnn::finetune::Updater for RtlUpdater {
    fn name(&self) -> String {
        "cnn_fc_update RTL".into()
    }

    fn seed(&mut self, seed: u32) -> Result<()> {
        self.bench
            .seed(seed)
            .map_err(|e| CnnError::new(format!("cnn_fc_update RTL: {e}")))
    }

    fn update(
        &mut self,
        w: &mut [i64],
        b: &mut [i64],
        x: &[i64],
        acc: &[i64],
        label: usize,
        p: &crate::cnn::fc_update::UpdateParams,
    ) -> Result<(Vec<i64>, u64)> {
        let rep = self
            .bench
            .update_layer(w, b, x, acc, label, p)
            .map_err(|e| CnnError::new(format!("cnn_fc_update RTL: {e}")))?;
        if let Some(d) = rep.mismatch {
            return Err(CnnError::new(format!(
                "cnn_fc_update RTL differs from the golden update: {d}"
            )));
        }
        self.updates += 1;
        self.cycles += rep.cycles;
        Ok((rep.err, rep.cycles))
    }
}
