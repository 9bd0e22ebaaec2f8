//! Last-layer on-device fine-tuning (seed 003, Algorithm 1; issue 16; docs/finetune.md).
//!
//! The network's layers before the last run frozen on the engine (the golden model, or the
//! engine RTL through [`Engine`]); the last fully connected layer is trained image by image
//! with softmax cross-entropy (batch 1). After every update its weights are re-quantized to
//! the layer's bits, written into the processor-ordered kernel-memory layout
//! ([`KernelLayout`], the seed's Fig. 3b), decoded again, and the next forward pass uses
//! what the kernel memory holds, as on the device.
//!
//! * **float** (`Arith::Float`): `p = softmax(acc / 2^(14 - output_shift))`,
//!   `w <- clamp(round(w - lr (p_o - y_o) x_i))`, `b <- clamp(round(b - lr (p_o - y_o) 128))`,
//!   rounding half away from zero, clamped to the weight range (D-FT-REQUANT). No float
//!   shadow copy is kept: the device stores only the integers.
//! * **fixed** (`Arith::Fixed`): [`super::fc_update`], integers only, the arithmetic of the
//!   `cnn_fc_update` block; `lr = 2^-lr_shift`.
//!
//! The new class is horizontally mirrored MNIST 9s ([`mirrored_nines`]; they resemble a
//! lowercase "p", the letter the seed teaches from EMNIST), relabelled as output `C`.

use super::engine::{self, EngineImage, KernelLayout};
use super::error::{CnnError, Result};
use super::fc_update::{self, Rounding, UpdateParams};
use super::ops::Tensor;
use super::run::RunOptions;
use super::{Inference, Network};
use crate::datasets::ImageSet;
use crate::golden::lfsr::SerialLfsr;
use edgelearn_hdl::cnn::EngineShape;

/// The MNIST digit whose mirror image stands in for the new class.
pub const SOURCE_DIGIT: u8 = 9;

/// An MNIST image (`h x w` bytes, 0..255) as the network's input, the ai8x way
/// (`round((p / 255 - 0.5) * 256)`, clamped to -128..127; the vendored sample follows it).
pub fn mnist_input(pixels: &[u8], h: usize, w: usize) -> Tensor {
    let data = pixels
        .iter()
        .map(|&p| {
            ((p as f64 / 255.0 - 0.5) * 256.0)
                .round()
                .clamp(-128.0, 127.0) as i64
        })
        .collect();
    Tensor::from_vec(1, h, w, data)
}

/// The image mirrored left to right.
pub fn mirror(pixels: &[u8], h: usize, w: usize) -> Vec<u8> {
    (0..h)
        .flat_map(|y| (0..w).rev().map(move |x| pixels[y * w + x]))
        .collect()
}

/// The first `n` images of `set` labelled 9, mirrored: `(index in set, pixels)`.
pub fn mirrored_nines(set: &ImageSet, n: usize) -> Vec<(usize, Vec<u8>)> {
    (0..set.len())
        .filter(|&i| set.labels[i] == SOURCE_DIGIT)
        .take(n)
        .map(|i| (i, mirror(set.image(i), set.height, set.width)))
        .collect()
}

/// How the update computes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arith {
    /// Float gradient, re-quantized after every update.
    Float,
    /// Integers only (the `cnn_fc_update` arithmetic).
    Fixed,
}

impl Arith {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Arith::Float => "float",
            Arith::Fixed => "fixed",
        }
    }
}

/// Settings of a fine-tuning run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The output repurposed for the new class.
    pub new_class: usize,
    /// Epochs over the new training images.
    pub epochs: usize,
    /// Learning rate (a power of two 2^-k, k = 0..7, for the fixed mode).
    pub lr: f64,
    /// Float or fixed.
    pub arith: Arith,
    /// Rounding of the fixed update.
    pub rounding: Rounding,
    /// LFSR seed of the stochastic rounding.
    pub seed: u32,
}

impl Options {
    /// The fixed mode's learning-rate shift, or an error naming `--lr`.
    pub fn lr_shift(&self) -> Result<u32> {
        (0..=fc_update::LR_SHIFT_MAX)
            .find(|&k| self.lr == (-(k as f64)).exp2())
            .ok_or_else(|| {
                CnnError::new(format!(
                    "--lr {}: the fixed mode's learning rate is a shift, 2^-k with k = 0..7 (1, 0.5, 0.25, ..., 0.0078125)",
                    self.lr
                ))
                .with_key("lr")
            })
    }
}

/// The last layer as the update sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastLayer {
    /// Its YAML index.
    pub layer: usize,
    /// The layer whose output it reads.
    pub source: usize,
    /// Outputs.
    pub outputs: usize,
    /// Inputs (flattened).
    pub inputs: usize,
    /// Weights, `outputs x inputs`, output-major.
    pub w: Vec<i64>,
    /// 8-bit biases.
    pub b: Vec<i64>,
    /// Weight bits.
    pub bits: u32,
    /// The layer's output shift (`output_shift`; the float logit is `acc / 2^(14 - it)`).
    pub output_shift: i32,
}

impl LastLayer {
    /// The final layer of `inf`'s plan, which must be a fully connected (or flattening)
    /// layer with 8-bit weights and a 32-bit output, reading the layer before it.
    pub fn from_network(net: &Network, inf: &Inference) -> Result<LastLayer> {
        let plan = &inf.plan;
        let ll = plan.final_layer;
        let l = &net.desc.layers[ll];
        let lerr = |key: &str, m: String| CnnError::layer_key(ll, key, m);
        let pos = plan.order.iter().position(|&x| x == ll).unwrap_or(0);
        if pos == 0 {
            return Err(lerr("layers", "the network has one layer; fine-tuning trains the last layer on the output of the ones before it".into()));
        }
        let source = plan.order[pos - 1];
        if let Some(s) = &l.in_sequences {
            if s.as_slice() != [source as isize] {
                return Err(lerr(
                    "in_sequences",
                    "the last layer must read only the layer before it".into(),
                ));
            }
        }
        if l.output_width != 32 {
            return Err(lerr("output_width", "the last layer must give the 32-bit accumulator (`output_width: 32`), the logits the softmax needs".into()));
        }
        let lw = net.weights.layers[ll]
            .as_ref()
            .ok_or_else(|| lerr("op", "the last layer has no weights".into()))?;
        let k = &lw.kernels;
        let x = inf.result.outputs[source]
            .as_ref()
            .ok_or_else(|| lerr("layers", "the layer before the last did not run".into()))?;
        let n = x.data.len();
        let fc = l.flatten || (k.kh == 1 && k.kw == 1 && x.h == 1 && x.w == 1);
        if !fc || k.in_ch * k.kh * k.kw != n {
            return Err(lerr("op", format!("the last layer must be fully connected (`op: mlp` or `flatten: true`) over the {n} values of layer {source}")));
        }
        if lw.bits != 8 {
            return Err(lerr(
                "quantization",
                format!("{}-bit weights; the update re-quantizes to 8 bits", lw.bits),
            ));
        }
        if k.out_ch > fc_update::MAX_OUTPUTS {
            return Err(lerr(
                "out_channels",
                format!(
                    "{} outputs; the update handles at most {}",
                    k.out_ch,
                    fc_update::MAX_OUTPUTS
                ),
            ));
        }
        let b = lw.bias.clone().unwrap_or_else(|| vec![0; k.out_ch]);
        Ok(LastLayer {
            layer: ll,
            source,
            outputs: k.out_ch,
            inputs: n,
            w: k.w.clone(),
            b,
            bits: lw.bits,
            output_shift: lw.shift - 8 + lw.bits as i32,
        })
    }

    /// The fixed mode's logit shift.
    pub fn logit_shift(&self) -> Result<u32> {
        fc_update::logit_shift(self.output_shift).ok_or_else(|| {
            CnnError::layer_key(
                self.layer,
                "output_shift",
                format!(
                    "output shift {} puts the logits outside the update's range",
                    self.output_shift
                ),
            )
        })
    }

    /// `net`'s weights with this layer's weights and biases.
    pub fn apply(&self, net: &mut Network) {
        if let Some(lw) = net.weights.layers[self.layer].as_mut() {
            lw.kernels.w = self.w.clone();
            lw.bias = Some(self.b.clone());
        }
    }
}

/// `new_class` must be one of the last layer's outputs.
pub fn check_new_class(new_class: usize, last: &LastLayer) -> Result<()> {
    if new_class >= last.outputs {
        return Err(CnnError::new(format!(
            "--new-class {new_class}: the network has {} outputs (0..{})",
            last.outputs,
            last.outputs - 1
        ))
        .with_key("new-class"));
    }
    Ok(())
}

/// Where the layers run: the frozen ones, and the last one with the weights its kernel
/// memory holds.
pub trait Engine {
    /// What it is (for reports).
    fn name(&self) -> String;
    /// The frozen layers' output for `image`, flattened in the order the last layer reads
    /// it (channel, row, column).
    fn features(&mut self, image: &Tensor) -> Result<Vec<i64>>;
    /// Writes the last layer's kernel words (the columns of `layout` in every processor of
    /// `mem`) and its biases into the engine.
    fn write_last_layer(
        &mut self,
        layout: &KernelLayout,
        mem: &[Vec<u128>],
        bias: &[i64],
    ) -> Result<()>;
    /// The last layer's 32-bit outputs for features `x`, with the weights last written.
    fn last_layer(&mut self, x: &[i64]) -> Result<Vec<i64>>;
}

/// Where the fixed update runs.
pub trait Updater {
    /// What it is (for reports).
    fn name(&self) -> String;
    /// Seeds the LFSR.
    fn seed(&mut self, seed: u32) -> Result<()>;
    /// Updates `w`, `b` in place; returns the error vector (Q1.12) and the cycles it took
    /// (0 for the golden function).
    fn update(
        &mut self,
        w: &mut [i64],
        b: &mut [i64],
        x: &[i64],
        acc: &[i64],
        label: usize,
        p: &UpdateParams,
    ) -> Result<(Vec<i64>, u64)>;
}

/// The golden model as the engine.
pub struct GoldenEngine {
    net: Network,
    inf: Inference,
    last: LastLayer,
    w: Vec<i64>,
    b: Vec<i64>,
}

impl GoldenEngine {
    /// The golden engine for `net` (resolved by `inf`).
    pub fn new(net: &Network, inf: &Inference) -> Result<GoldenEngine> {
        let last = LastLayer::from_network(net, inf)?;
        Ok(GoldenEngine {
            w: last.w.clone(),
            b: last.b.clone(),
            net: net.clone(),
            inf: inf.clone(),
            last,
        })
    }
}

impl Engine for GoldenEngine {
    fn name(&self) -> String {
        "golden model".into()
    }

    fn features(&mut self, image: &Tensor) -> Result<Vec<i64>> {
        let r = super::run::run(
            &self.net.desc,
            &self.net.weights,
            &self.inf.plan,
            image,
            &RunOptions::default(),
        )?;
        Ok(r.outputs[self.last.source]
            .as_ref()
            .expect("the source layer ran")
            .data
            .clone())
    }

    fn write_last_layer(
        &mut self,
        layout: &KernelLayout,
        mem: &[Vec<u128>],
        bias: &[i64],
    ) -> Result<()> {
        // What the processors read: the kernel memory, decoded.
        self.w = layout.decode(mem).w;
        self.b = bias.to_vec();
        Ok(())
    }

    fn last_layer(&mut self, x: &[i64]) -> Result<Vec<i64>> {
        Ok(fc_update::forward(&self.w, &self.b, x))
    }
}

/// The golden fixed update.
pub struct GoldenUpdater {
    lfsr: SerialLfsr,
}

impl Default for GoldenUpdater {
    fn default() -> Self {
        GoldenUpdater {
            lfsr: SerialLfsr::new(1),
        }
    }
}

impl Updater for GoldenUpdater {
    fn name(&self) -> String {
        "golden model".into()
    }

    fn seed(&mut self, seed: u32) -> Result<()> {
        self.lfsr = SerialLfsr::new(seed);
        Ok(())
    }

    fn update(
        &mut self,
        w: &mut [i64],
        b: &mut [i64],
        x: &[i64],
        acc: &[i64],
        label: usize,
        p: &UpdateParams,
    ) -> Result<(Vec<i64>, u64)> {
        let e = fc_update::update_layer(w, b, x, acc, label, p, &mut self.lfsr);
        Ok((e, 0))
    }
}

/// The float softmax of 32-bit outputs at logit scale `2^-scale_bits`.
pub fn softmax(acc: &[i64], scale_bits: i32) -> Vec<f64> {
    let s = (-(scale_bits as f64)).exp2();
    let z: Vec<f64> = acc.iter().map(|&a| a as f64 * s).collect();
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|v| v / sum).collect()
}

/// The float update of one layer in place (D-FT-REQUANT): `w <- clamp(round(w - lr (p_o -
/// y_o) x_i))`, biases as weights of the input 128. Returns `p - y`.
#[allow(clippy::too_many_arguments)] // the layer, its data and the three settings
pub fn float_update(
    w: &mut [i64],
    b: &mut [i64],
    x: &[i64],
    acc: &[i64],
    label: usize,
    lr: f64,
    scale_bits: i32,
    bits: u32,
) -> Vec<f64> {
    let (lo, hi) = (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1);
    let q = |v: f64| (v.round() as i64).clamp(lo, hi);
    let p = softmax(acc, scale_bits);
    let n = x.len();
    let e: Vec<f64> = p
        .iter()
        .enumerate()
        .map(|(o, &v)| v - if o == label { 1.0 } else { 0.0 })
        .collect();
    for (o, &eo) in e.iter().enumerate() {
        for (i, &xi) in x.iter().enumerate() {
            let k = o * n + i;
            w[k] = q(w[k] as f64 - lr * eo * xi as f64);
        }
        b[o] = q(b[o] as f64 - lr * eo * fc_update::BIAS_INPUT as f64);
    }
    e
}

/// A labelled input.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Its index in the MNIST split it came from.
    pub index: usize,
    /// Label (the new class for mirrored 9s).
    pub label: usize,
    /// Network input.
    pub input: Tensor,
}

/// The data of a fine-tuning run.
#[derive(Clone, Debug)]
pub struct Data {
    /// New-class training images (mirrored 9s from the training split).
    pub train: Vec<Sample>,
    /// New-class test images (mirrored 9s from the test split).
    pub test: Vec<Sample>,
    /// Original test images (forgetting), with their labels.
    pub original: Vec<Sample>,
}

impl Data {
    /// `train_n` and `test_n` mirrored 9s and the first `original_n` test images.
    pub fn from_mnist(
        train: &ImageSet,
        test: &ImageSet,
        new_class: usize,
        train_n: usize,
        test_n: usize,
        original_n: usize,
    ) -> Result<Data> {
        let conv = |set: &ImageSet, v: Vec<(usize, Vec<u8>)>| -> Vec<Sample> {
            v.into_iter()
                .map(|(index, px)| Sample {
                    index,
                    label: new_class,
                    input: mnist_input(&px, set.height, set.width),
                })
                .collect()
        };
        let tr = conv(train, mirrored_nines(train, train_n));
        let te = conv(test, mirrored_nines(test, test_n));
        if tr.len() < train_n || te.len() < test_n {
            return Err(CnnError::new(format!(
                "the data holds {} and {} 9s in its training and test splits; {train_n} and {test_n} are needed",
                tr.len(),
                te.len()
            )));
        }
        let original = (0..test.len().min(original_n))
            .map(|i| Sample {
                index: i,
                label: test.labels[i] as usize,
                input: mnist_input(test.image(i), test.height, test.width),
            })
            .collect();
        Ok(Data {
            train: tr,
            test: te,
            original,
        })
    }
}

/// Figures after one epoch (epoch 0: before training).
#[derive(Clone, Debug, PartialEq)]
pub struct EpochReport {
    /// Epoch (0 = the pre-trained network).
    pub epoch: usize,
    /// New-class test images with the new class on top.
    pub new_top1: f64,
    /// New-class test images with the new class in the top 5.
    pub new_top5: f64,
    /// New-class training images with the new class on top.
    pub train_top1: f64,
    /// Mean softmax probability of the new class on the new-class test images.
    pub p_new: f64,
    /// Mean softmax probability of the displaced class on them.
    pub p_displaced: f64,
    /// Accuracy on the original test images of the classes that keep their meaning.
    pub original_accuracy: f64,
    /// Accuracy on the original test images of the repurposed class (what it forgets).
    pub repurposed_accuracy: f64,
    /// Mean absolute weight change from the pre-trained layer (weight LSBs).
    pub mean_weight_change: f64,
}

/// A finished run.
#[derive(Clone, Debug)]
pub struct FinetuneReport {
    /// The repurposed output.
    pub new_class: usize,
    /// The class the pre-trained network gave most new-class test images.
    pub displaced_class: usize,
    /// Per epoch, from 0.
    pub epochs: Vec<EpochReport>,
    /// The trained last layer.
    pub last: LastLayer,
    /// Updates done.
    pub updates: usize,
    /// Cycles of the update block per update (measured on the RTL, or the block's cycle
    /// count from the golden cycle model).
    pub update_cycles: u64,
    /// Kernel-memory round trips checked (encode, decode, equal).
    pub codec_checks: usize,
}

impl FinetuneReport {
    /// The first epoch whose new-class top-1 reaches `level`.
    pub fn first_epoch_at(&self, level: f64) -> Option<usize> {
        self.epochs
            .iter()
            .find(|e| e.epoch > 0 && e.new_top1 >= level - 1e-12)
            .map(|e| e.epoch)
    }
}

/// Frozen features of every sample, computed once: the layers before the last do not
/// change, so each image's features are the same in every epoch.
pub fn all_features(
    engine: &mut dyn Engine,
    samples: &[Sample],
    mut progress: impl FnMut(),
) -> Result<Vec<Vec<i64>>> {
    samples
        .iter()
        .map(|s| {
            let f = engine.features(&s.input);
            progress();
            f
        })
        .collect()
}

fn argsort_desc(v: &[i64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    // Ties: the lower index first (what an argmax picks).
    idx.sort_by(|&a, &b| v[b].cmp(&v[a]).then(a.cmp(&b)));
    idx
}

/// The engine image the kernel layout comes from: the network loaded for a 64-processor
/// engine with `input`.
pub fn engine_image(net: &Network, inf: &Inference, input: &Tensor) -> Result<EngineImage> {
    engine::build(
        &net.desc,
        &net.weights,
        &inf.plan,
        input,
        &RunOptions::default(),
        &EngineShape::MAX78000,
    )
}

/// The fine-tuning loop (Algorithm 1). `features` holds the frozen features of
/// `data.train`, `data.test` and `data.original`, in that order. `on_epoch` sees each
/// epoch's figures as they come.
#[allow(clippy::too_many_arguments)]
pub fn finetune(
    net: &Network,
    inf: &Inference,
    image: &EngineImage,
    data: &Data,
    features: &[Vec<i64>],
    opts: &Options,
    engine: &mut dyn Engine,
    updater: &mut dyn Updater,
    mut on_epoch: impl FnMut(&EpochReport),
) -> Result<FinetuneReport> {
    let mut tuner = Tuner::new(net, inf, image, opts)?;
    let eval = Evaluator::new(data, features, &tuner);
    tuner.load(engine, updater)?;

    let (e0, displaced) = eval.eval(engine, &tuner.last, None, 0)?;
    on_epoch(&e0);
    let mut epochs = vec![e0];
    for epoch in 1..=opts.epochs {
        for (s, x) in data.train.iter().zip(eval.f_train) {
            tuner.step(engine, updater, epoch, s, x)?;
        }
        let (e, _) = eval.eval(engine, &tuner.last, Some(displaced), epoch)?;
        on_epoch(&e);
        epochs.push(e);
    }
    Ok(FinetuneReport {
        new_class: opts.new_class,
        displaced_class: displaced,
        epochs,
        last: tuner.last,
        updates: tuner.updates,
        update_cycles: tuner.update_cycles,
        codec_checks: tuner.codec_checks,
    })
}

/// The layer being fine-tuned, its kernel memory and the update settings, with the counts
/// the report gives.
struct Tuner<'a> {
    /// The run's settings.
    opts: &'a Options,
    /// The last layer, as trained so far.
    last: LastLayer,
    /// Where its weights sit in the kernel memory.
    layout: KernelLayout,
    /// The kernel memory (every processor's words).
    mem: Vec<Vec<u128>>,
    /// The fixed update's settings.
    params: UpdateParams,
    /// The float logit scale: `acc / 2^scale_bits`.
    scale_bits: i32,
    /// Updates done.
    updates: usize,
    /// Cycles of the last fixed update.
    update_cycles: u64,
    /// Kernel-memory round trips checked.
    codec_checks: usize,
}

impl<'a> Tuner<'a> {
    /// The last layer of `net`, checked for `opts`, with the kernel memory of `image`.
    fn new(
        net: &Network,
        inf: &Inference,
        image: &EngineImage,
        opts: &'a Options,
    ) -> Result<Tuner<'a>> {
        let last = LastLayer::from_network(net, inf)?;
        check_new_class(opts.new_class, &last)?;
        let layout = image
            .layout(last.layer)
            .ok_or_else(|| CnnError::layer(last.layer, "the engine image has no kernels for it"))?
            .clone();
        let params = UpdateParams {
            lr_shift: match opts.arith {
                Arith::Fixed => opts.lr_shift()?,
                Arith::Float => 0,
            },
            rounding: opts.rounding,
            logit_shift: last.logit_shift()?,
        };
        let scale_bits = 14 - last.output_shift;
        Ok(Tuner {
            opts,
            last,
            layout,
            mem: image.kernels.clone(),
            params,
            scale_bits,
            updates: 0,
            update_cycles: 0,
            codec_checks: 0,
        })
    }

    /// Checks that the kernel memory decodes to the layer's weights, writes the layer into
    /// the engine and seeds the updater.
    fn load(&self, engine: &mut dyn Engine, updater: &mut dyn Updater) -> Result<()> {
        // The kernel memory as the loader wrote it must decode to the checkpoint's weights.
        if self.layout.decode(&self.mem).w != self.last.w {
            return Err(CnnError::layer(
                self.last.layer,
                "the kernel memory does not decode to the layer's weights",
            ));
        }
        engine.write_last_layer(&self.layout, &self.mem, &self.last.b)?;
        updater.seed(self.opts.seed)
    }

    /// One training image `s` with features `x`: forward with what the kernel memory holds,
    /// update, and write the new weights through the kernel memory into the engine.
    fn step(
        &mut self,
        engine: &mut dyn Engine,
        updater: &mut dyn Updater,
        epoch: usize,
        s: &Sample,
        x: &[i64],
    ) -> Result<()> {
        // Forward with what the kernel memory holds.
        let acc = engine.last_layer(x)?;
        self.update(updater, x, &acc, s.label)?;
        self.store(epoch, s)?;
        engine.write_last_layer(&self.layout, &self.mem, &self.last.b)
    }

    /// The float or fixed update of the layer for features `x`, outputs `acc` and `label`.
    fn update(
        &mut self,
        updater: &mut dyn Updater,
        x: &[i64],
        acc: &[i64],
        label: usize,
    ) -> Result<()> {
        let last = &mut self.last;
        match self.opts.arith {
            Arith::Float => {
                float_update(
                    &mut last.w,
                    &mut last.b,
                    x,
                    acc,
                    label,
                    self.opts.lr,
                    self.scale_bits,
                    last.bits,
                );
            }
            Arith::Fixed => {
                let (_, cycles) =
                    updater.update(&mut last.w, &mut last.b, x, acc, label, &self.params)?;
                self.update_cycles = cycles;
            }
        }
        self.updates += 1;
        Ok(())
    }

    /// Sets the weights in the kernel memory (Fig. 3b) and reads them back; an error names
    /// the first weight that does not survive the round trip (`epoch`, image `s`).
    fn store(&mut self, epoch: usize, s: &Sample) -> Result<()> {
        let last = &self.last;
        let k = super::ops::Kernels {
            out_ch: last.outputs,
            in_ch: self.layout.kernel_shape().1,
            kh: 1,
            kw: 1,
            w: last.w.clone(),
        };
        self.layout.encode(&k, &mut self.mem);
        let back = self.layout.decode(&self.mem);
        if back.w != last.w {
            let i = back
                .w
                .iter()
                .zip(&last.w)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(CnnError::layer(
                last.layer,
                format!(
                    "epoch {epoch}, image {}: kernel-memory round trip differs at weight {i} (output {}, input {}): wrote {}, read {}",
                    s.index,
                    i / last.inputs,
                    i % last.inputs,
                    last.w[i],
                    back.w[i]
                ),
            ));
        }
        self.codec_checks += 1;
        Ok(())
    }
}

/// The evaluation of an epoch: the frozen features of the three sample sets and what the
/// figures compare against.
struct Evaluator<'a> {
    /// The samples (labels of the original test images).
    data: &'a Data,
    /// Features of the new-class training images.
    f_train: &'a [Vec<i64>],
    /// Features of the new-class test images.
    f_test: &'a [Vec<i64>],
    /// Features of the original test images.
    f_orig: &'a [Vec<i64>],
    /// The pre-trained weights.
    w0: Vec<i64>,
    /// The new class.
    c: usize,
    /// The float logit scale: `acc / 2^scale_bits`.
    scale_bits: i32,
}

/// The new-class test images' outputs and how the network ranks the new class on them.
struct NewClassTest {
    /// Images with the new class on top.
    top1: usize,
    /// Images with the new class in the top 5.
    top5: usize,
    /// Per output: images it was on top for.
    votes: Vec<usize>,
    /// Per image: the last layer's outputs.
    accs: Vec<Vec<i64>>,
}

impl<'a> Evaluator<'a> {
    /// Splits `features` into the three sets of `data`; the pre-trained weights are
    /// `tuner`'s before any update.
    fn new(data: &'a Data, features: &'a [Vec<i64>], tuner: &Tuner<'_>) -> Evaluator<'a> {
        let (f_train, rest) = features.split_at(data.train.len());
        let (f_test, f_orig) = rest.split_at(data.test.len());
        Evaluator {
            data,
            f_train,
            f_test,
            f_orig,
            w0: tuner.last.w.clone(),
            c: tuner.opts.new_class,
            scale_bits: tuner.scale_bits,
        }
    }

    /// The figures of `epoch` with `last` in the engine. The displaced class is the one
    /// given, or (epoch 0) the one the network puts most new-class test images in; it is
    /// returned with the figures.
    fn eval(
        &self,
        engine: &mut dyn Engine,
        last: &LastLayer,
        displaced: Option<usize>,
        epoch: usize,
    ) -> Result<(EpochReport, usize)> {
        let (nt, ne) = (self.f_train.len(), self.f_test.len());
        let t = self.new_class_test(engine, last.outputs)?;
        let displaced = displaced.unwrap_or_else(|| displaced_class(&t.votes, self.c));
        let (mut p_new, mut p_disp) = (0.0, 0.0);
        for acc in &t.accs {
            let p = softmax(acc, self.scale_bits);
            p_new += p[self.c];
            p_disp += p[displaced];
        }
        let mut train_top1 = 0usize;
        for x in self.f_train {
            let acc = engine.last_layer(x)?;
            train_top1 += (argsort_desc(&acc)[0] == self.c) as usize;
        }
        let (keep_ok, keep_n, rep_ok, rep_n) = self.original(engine)?;
        let frac = |a: usize, n: usize| if n == 0 { 0.0 } else { a as f64 / n as f64 };
        let change = last
            .w
            .iter()
            .zip(&self.w0)
            .map(|(a, b)| (a - b).abs() as f64)
            .sum::<f64>()
            / self.w0.len().max(1) as f64;
        Ok((
            EpochReport {
                epoch,
                new_top1: frac(t.top1, ne),
                new_top5: frac(t.top5, ne),
                train_top1: frac(train_top1, nt),
                p_new: p_new / ne.max(1) as f64,
                p_displaced: p_disp / ne.max(1) as f64,
                original_accuracy: frac(keep_ok, keep_n),
                repurposed_accuracy: frac(rep_ok, rep_n),
                mean_weight_change: change,
            },
            displaced,
        ))
    }

    /// Runs the new-class test images through the last layer (`outputs` outputs).
    fn new_class_test(&self, engine: &mut dyn Engine, outputs: usize) -> Result<NewClassTest> {
        let c = self.c;
        let mut t = NewClassTest {
            top1: 0,
            top5: 0,
            votes: vec![0; outputs],
            accs: Vec::with_capacity(self.f_test.len()),
        };
        for x in self.f_test {
            let acc = engine.last_layer(x)?;
            let order = argsort_desc(&acc);
            t.votes[order[0]] += 1;
            t.top1 += (order[0] == c) as usize;
            t.top5 += order[..5.min(order.len())].contains(&c) as usize;
            t.accs.push(acc);
        }
        Ok(t)
    }

    /// The original test images: `(right, count)` of the classes that keep their meaning,
    /// then of the repurposed class.
    fn original(&self, engine: &mut dyn Engine) -> Result<(usize, usize, usize, usize)> {
        let (mut keep_ok, mut keep_n, mut rep_ok, mut rep_n) = (0, 0, 0, 0);
        for (s, x) in self.data.original.iter().zip(self.f_orig) {
            let acc = engine.last_layer(x)?;
            let ok = argsort_desc(&acc)[0] == s.label;
            if s.label == self.c {
                rep_n += 1;
                rep_ok += ok as usize;
            } else {
                keep_n += 1;
                keep_ok += ok as usize;
            }
        }
        Ok((keep_ok, keep_n, rep_ok, rep_n))
    }
}

/// The class the pre-trained network puts the new images in most (never the new class
/// `c`; ties: the lower class), from the per-output `votes`.
fn displaced_class(votes: &[usize], c: usize) -> usize {
    (0..votes.len())
        .filter(|&o| o != c)
        .max_by_key(|&o| (votes[o], std::cmp::Reverse(o)))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mirror_and_input_scale() {
        let px: Vec<u8> = (0..6).collect();
        assert_eq!(mirror(&px, 2, 3), vec![2, 1, 0, 5, 4, 3]);
        let t = mnist_input(&[0, 1, 128, 255], 2, 2);
        assert_eq!(t.data, vec![-128, -127, 1, 127]); // 128 / 255 * 256 - 128 = 0.502
    }

    #[test]
    fn float_update_follows_the_gradient_and_clamps() {
        let x = vec![127, 0, -31];
        let mut w = vec![0, 5, 127, 0, 0, -128];
        let mut b = vec![0, 0];
        // acc gives p = (0.5, 0.5): e = (-0.5, 0.5) for label 0.
        let e = float_update(&mut w, &mut b, &x, &[0, 0], 0, 1.0, 14, 8);
        assert_eq!(e, vec![-0.5, 0.5]);
        assert_eq!(w, vec![64, 5, 112, -64, 0, -113]);
        assert_eq!(b, vec![64, -64]);
        let mut w = vec![127, -128];
        let mut b = vec![127];
        float_update(&mut w, &mut b, &[127, 127], &[0], 0, 1.0, 14, 8);
        assert_eq!(w, vec![127, -128]); // p = 1: no change
    }

    #[test]
    fn fixed_lr_is_a_shift() {
        let mut o = Options {
            new_class: 0,
            epochs: 1,
            lr: 0.5,
            arith: Arith::Fixed,
            rounding: Rounding::Nearest,
            seed: 1,
        };
        assert_eq!(o.lr_shift().unwrap(), 1);
        o.lr = 0.0078125;
        assert_eq!(o.lr_shift().unwrap(), 7);
        o.lr = 0.3;
        let e = o.lr_shift().unwrap_err().to_string();
        assert!(e.contains("--lr 0.3") && e.contains("2^-k"), "{e}");
    }
}
