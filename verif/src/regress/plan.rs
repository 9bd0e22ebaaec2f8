//! A regression file (TOML) turned into typed jobs: matrix expansion, each job's kind and
//! its options ([`JobSpec`]), its expected outcome, the checks on the JSON it writes, and an
//! estimated cost in seconds (used to balance shards). The file is read with serde, one
//! struct per job kind (unknown keys are errors naming the job and the key); what a job runs
//! (the `edgelearn` command lines) and what its exit codes mean are the binary's
//! (src/commands/regress/). docs/regress.md is the user's reference.
//!
//! ```toml
//! [regress]
//! name = "nightly"
//! root = ".."            # job paths are relative to this (itself relative to the file)
//!
//! [[job]]
//! name = "block/{block}/{backend}"
//! kind = "block"
//! stimulus = "random"
//! matrix = { block = ["lel_loss", "lel_matmul"], backend = ["native", "icarus"] }
//! ```

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// A regression file that cannot be used: names the file, the job and the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanError(pub String);

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlanError {}

type Result<T> = std::result::Result<T, PlanError>;

/// The file every job kind except `block` and `cli` writes its JSON result to (relative to
/// the job's directory).
pub const REPORT: &str = "report.json";

/// The outcome a job's last step must have.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Success.
    #[default]
    Pass,
    /// A verification failure is the expected outcome (a negative test).
    Fail,
    /// The input must be refused with an error.
    Error,
}

/// What a check asks of one JSON value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Rule {
    /// Equal to this value.
    Equals(Json),
    /// A number at least this.
    Min(f64),
    /// A number at most this.
    Max(f64),
    /// SHA-256 (hex) of the value's compact JSON text.
    Sha256(String),
    /// Equal to the value at `pointer` in another file of the job.
    SameAs { file: String, pointer: String },
}

/// A check on a JSON file the job wrote (relative to the job's directory).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// File, relative to the job's directory.
    pub file: String,
    /// JSON pointer (RFC 6901), "" for the whole document.
    pub pointer: String,
    /// The rule.
    pub rule: Rule,
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = format!("{}#{}", self.file, self.pointer);
        match &self.rule {
            Rule::Equals(v) => write!(f, "{at} == {v}"),
            Rule::Min(v) => write!(f, "{at} >= {v}"),
            Rule::Max(v) => write!(f, "{at} <= {v}"),
            Rule::Sha256(h) => write!(f, "sha256({at}) == {h}"),
            Rule::SameAs { file, pointer } => write!(f, "{at} == {file}#{pointer}"),
        }
    }
}

/// One job: what it runs ([`JobSpec`]), how it must end and what it must have written.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Job {
    /// Unique name (the JUnit test case).
    pub id: String,
    /// The kind and its options.
    pub spec: JobSpec,
    /// Expected outcome of the last step.
    pub expect: Expect,
    /// Checks on the JSON the job wrote (only when the last step succeeds).
    pub checks: Vec<Check>,
    /// Estimated seconds (shard balancing).
    pub cost: f64,
    /// Seconds before the job is stopped and reported as an error.
    pub timeout: f64,
}

impl Job {
    /// The kind's name (`block`, `cnn`, ...).
    pub fn kind(&self) -> &'static str {
        self.spec.kind()
    }

    /// A digest of what the job runs and checks (not of the binary that runs it, nor of its
    /// cost or time limit).
    pub fn digest(&self) -> String {
        let what = serde_json::json!([self.id, self.spec, self.expect, self.checks]);
        hex::encode(Sha256::digest(what.to_string().as_bytes()))
    }
}

/// A job's kind and options, as the regression file gives them (paths relative to the
/// plan's root, checked to exist).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum JobSpec {
    /// A registered block's stimulus, simulated and compared with its golden model.
    Block(BlockJob),
    /// An ai8x network on the golden engine or the engine RTL.
    Cnn(CnnJob),
    /// A LEL core on its reactive bench.
    Core(CoreJob),
    /// The LEL platform trained on its bench.
    Platform(PlatformJob),
    /// The golden LEL training.
    Train(TrainJob),
    /// Last-layer fine-tuning on the CNN engine.
    Finetune(FinetuneJob),
    /// Any `edgelearn` command line.
    Cli(CliJob),
}

impl JobSpec {
    /// The kinds, as a regression file names them.
    pub const KINDS: &'static [&'static str] = &[
        "block", "cnn", "core", "platform", "train", "finetune", "cli",
    ];

    /// The kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            JobSpec::Block(_) => "block",
            JobSpec::Cnn(_) => "cnn",
            JobSpec::Core(_) => "core",
            JobSpec::Platform(_) => "platform",
            JobSpec::Train(_) => "train",
            JobSpec::Finetune(_) => "finetune",
            JobSpec::Cli(_) => "cli",
        }
    }

    /// Estimated seconds on the CI machine (docs/BENCHMARKS.md): what shards are balanced by
    /// until a summary's measured times replace it.
    pub fn cost(&self) -> f64 {
        match self {
            JobSpec::Block(b) => b.cost(),
            JobSpec::Cnn(c) => match c.backend {
                CnnBackend::Rtl => 12.0,
                CnnBackend::Golden => 1.5,
            },
            JobSpec::Core(c) => {
                let per = match c.backend {
                    BenchBackend::Native => 60.0,
                    BenchBackend::Verilator => 0.3,
                };
                20.0 + c.images as f64 * per
            }
            JobSpec::Platform(p) => 40.0 + (p.images.unwrap_or(8000) * p.epochs) as f64 * 0.25,
            JobSpec::Train(t) => 2.0 + (t.images.unwrap_or(8000) * t.epochs) as f64 * 0.0005,
            JobSpec::Finetune(f) => {
                let frozen = f.original_images.unwrap_or(2000) as f64 + 30.0;
                let per = match f.backend {
                    FinetuneBackend::Verilator => 0.25,
                    FinetuneBackend::Golden => 0.004,
                };
                3.0 + frozen * per + f.epochs as f64 * 0.2
            }
            JobSpec::Cli(_) => 5.0,
        }
    }
}

/// A lower-case enum of a job's options, named as the regression file and the command line
/// spell it.
macro_rules! choice {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? } default $d:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $name {
            $(
                $(#[$vm])*
                #[serde(rename = $s)]
                $v,
            )+
        }
        impl $name {
            /// The name in the regression file and on the command line.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$v => $s,)+
                }
            }
        }
        impl Default for $name { fn default() -> Self { $name::$d } }
    };
}

choice! {
    /// The stimulus of a block job.
    StimulusKind { Thesis = "thesis", Random = "random" } default Thesis
}

choice! {
    /// The simulator of a block job.
    BlockBackend {
        Native = "native",
        Icarus = "icarus",
        Verilator = "verilator",
        VerilatorBench = "verilator-bench",
        Netlist = "netlist",
    } default Native
}

choice! {
    /// Where a CNN job runs the network: the golden engine or the engine RTL.
    CnnBackend { Golden = "golden", Rtl = "rtl" } default Golden
}

choice! {
    /// The simulator of a reactive bench (`core`, `platform`).
    BenchBackend { Verilator = "verilator", Native = "native" } default Verilator
}

choice! {
    /// Where a fine-tuning job runs its frozen layers.
    FinetuneBackend { Golden = "golden", Verilator = "verilator" } default Golden
}

fn one() -> u64 {
    1
}

fn yes() -> bool {
    true
}

fn twenty() -> u64 {
    20
}

/// `stimulus` then `sim --check`: block x stimulus kind x backend x seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockJob {
    /// A registered block.
    pub block: String,
    /// The stimulus kind.
    #[serde(default)]
    pub stimulus: StimulusKind,
    /// The simulator.
    #[serde(default)]
    pub backend: BlockBackend,
    /// The random stimulus's seed.
    #[serde(default = "one")]
    pub seed: u64,
    /// Cycles of a random stimulus.
    pub cycles: Option<u64>,
}

impl BlockJob {
    fn cost(&self) -> f64 {
        let (mut fixed, per_cycle) = backend_cost(self.backend.as_str());
        let entry = crate::rtl::designs::entry(&self.block).ok();
        if self.backend == BlockBackend::Netlist {
            fixed += entry.as_ref().map_or(0.0, |e| e.netlist_seconds);
        }
        let n = match self.stimulus {
            StimulusKind::Random => self.cycles.unwrap_or(10_000) as f64,
            StimulusKind::Thesis => 5_000.0,
        };
        // The cores are ~50x the logic of a unit block.
        let scale = if entry.is_some_and(|e| e.kind.is_large()) {
            50.0
        } else {
            1.0
        };
        fixed + n * per_cycle * scale
    }
}

/// A CNN job as the file gives it: a network's files, or a `case` of an ai8x-kat INDEX.tsv.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CnnToml {
    #[serde(default)]
    backend: CnnBackend,
    case: Option<String>,
    index: Option<String>,
    network: Option<String>,
    checkpoint: Option<String>,
    input: Option<String>,
    bias: Option<String>,
    #[serde(default)]
    flags: Vec<String>,
    processors: Option<u64>,
    #[serde(default)]
    front_door: bool,
    output_sha256: Option<OutputPin>,
}

/// `output_sha256`: one digest, or one per case.
#[derive(Deserialize)]
#[serde(untagged)]
enum OutputPin {
    One(String),
    PerCase(BTreeMap<String, String>),
}

/// `cnn run` (golden) or `cnn sim` (the engine RTL, every layer compared); a `case` resolved
/// to its files.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CnnJob {
    /// Golden engine or RTL.
    pub backend: CnnBackend,
    /// The network YAML.
    pub network: String,
    /// The weights (checkpoint, or .npy / .npz).
    pub checkpoint: String,
    /// The bias file, when the weights come without it.
    pub bias: Option<String>,
    /// The input sample.
    pub input: String,
    /// Further `cnn` options (INDEX.tsv's and the file's).
    pub flags: Vec<String>,
    /// Processors of the engine RTL.
    pub processors: Option<u64>,
    /// Load the engine RTL through its host port.
    pub front_door: bool,
}

/// `core run CORE` with its golden comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreJob {
    /// `fc0`, `fc1` or `conv`.
    pub core: String,
    /// The platform configuration.
    pub config: String,
    /// The dataset directory.
    pub data: String,
    /// Training images.
    #[serde(default = "one")]
    pub images: u64,
    /// Inference only.
    #[serde(default)]
    pub infer: bool,
    /// The simulator.
    #[serde(default)]
    pub backend: BenchBackend,
    /// Compare with the golden model (on unless `false`).
    #[serde(default = "yes")]
    pub check_golden: bool,
    /// Input stream gaps (a probability).
    pub input_gaps: Option<f64>,
    /// Output back-pressure (a probability).
    pub backpressure: Option<f64>,
    /// Seed of the stream traffic.
    pub traffic_seed: Option<u64>,
}

/// `platform train` with its golden comparison; with `same_as_golden` the golden `train` of
/// the same options first, whose weights must be equal. The training keys repeat
/// [`TrainJob`]'s and the traffic keys [`CoreJob`]'s: serde's `flatten` does not combine
/// with `deny_unknown_fields`, and a misspelt key must be refused.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformJob {
    /// The platform configuration.
    pub config: String,
    /// The dataset directory.
    pub data: String,
    /// Training images per epoch.
    pub images: Option<u64>,
    /// Test images.
    pub test_images: Option<u64>,
    /// Epochs.
    #[serde(default = "one")]
    pub epochs: u64,
    /// The training seed.
    pub seed: Option<u64>,
    /// The simulator.
    #[serde(default)]
    pub backend: BenchBackend,
    /// Compare with the golden model (on unless `false`).
    #[serde(default = "yes")]
    pub check_golden: bool,
    /// Through the AXI wrapper.
    #[serde(default)]
    pub axi: bool,
    /// Before training, I_STOP in every state of every core (`--stop-sweep`).
    #[serde(default)]
    pub stop_sweep: bool,
    /// Each run's images fed as fast as the platform takes them (`--eager-input`).
    #[serde(default)]
    pub eager_input: bool,
    /// Input stream gaps (a probability).
    pub input_gaps: Option<f64>,
    /// Output back-pressure (a probability).
    pub backpressure: Option<f64>,
    /// Seed of the stream traffic.
    pub traffic_seed: Option<u64>,
    /// Also run the golden `train` and require equal weights.
    #[serde(default)]
    pub same_as_golden: bool,
    /// The final weights' digest (a check).
    #[serde(skip_serializing)]
    pub weights_sha256: Option<String>,
}

/// The golden `train`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainJob {
    /// The platform configuration.
    pub config: String,
    /// The dataset directory.
    pub data: String,
    /// Training images per epoch.
    pub images: Option<u64>,
    /// Test images.
    pub test_images: Option<u64>,
    /// Epochs.
    #[serde(default = "one")]
    pub epochs: u64,
    /// The training seed.
    pub seed: Option<u64>,
    /// The float reference instead of the fixed-point model.
    #[serde(default)]
    pub float: bool,
    /// Checkpoint every this many images.
    pub checkpoint_every: Option<u64>,
    /// The final weights' digest (a check).
    #[serde(skip_serializing)]
    pub weights_sha256: Option<String>,
}

/// `cnn finetune`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinetuneJob {
    /// The network YAML.
    pub network: String,
    /// Its checkpoint.
    pub checkpoint: String,
    /// The dataset directory.
    pub data: String,
    /// The class learnt.
    pub new_class: Option<u64>,
    /// Where its images come from.
    pub new_data: Option<String>,
    /// Epochs.
    #[serde(default = "twenty")]
    pub epochs: u64,
    /// Learning rate.
    pub lr: Option<f64>,
    /// Arithmetic of the update.
    pub arith: Option<String>,
    /// Rounding of the update.
    pub rounding: Option<String>,
    /// Seed.
    pub seed: Option<u64>,
    /// Where the frozen layers run.
    #[serde(default)]
    pub backend: FinetuneBackend,
    /// Training images.
    pub train_images: Option<u64>,
    /// Test images.
    pub test_images: Option<u64>,
    /// Images of the original classes.
    pub original_images: Option<u64>,
}

/// Any `edgelearn` command line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CliJob {
    /// The arguments.
    pub args: Vec<String>,
}

/// A parsed regression file.
#[derive(Clone, Debug)]
pub struct Plan {
    /// `[regress] name`.
    pub name: String,
    /// The file.
    pub file: PathBuf,
    /// The directory jobs run in and their paths are relative to (absolute).
    pub root: PathBuf,
    /// Jobs in file order (matrix entries in sorted key order).
    pub jobs: Vec<Job>,
}

/// `[regress]`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Head {
    #[serde(default = "default_name")]
    name: String,
    #[serde(default = "default_root")]
    root: String,
    #[serde(default = "default_timeout")]
    timeout: f64,
}

fn default_name() -> String {
    "regress".into()
}

fn default_root() -> String {
    ".".into()
}

fn default_timeout() -> f64 {
    3600.0
}

/// The keys every job has, whatever its kind.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Common {
    #[serde(default)]
    expect: Expect,
    timeout: Option<f64>,
    cost: Option<f64>,
    #[serde(default)]
    checks: Vec<CheckToml>,
}

/// The names of [`Common`]'s keys (with `name` and `kind`), taken out of a job's table
/// before its kind's keys are read.
const COMMON_KEYS: &[&str] = &["expect", "timeout", "cost", "checks"];

/// One `checks` entry: a file and pointer, and one or more rules.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckToml {
    file: Option<String>,
    #[serde(default)]
    pointer: String,
    equals: Option<Value>,
    min: Option<f64>,
    max: Option<f64>,
    sha256: Option<String>,
    same_as: Option<String>,
}

/// `v` read as `T`, an error naming `at` and the key path of the fault.
fn typed<T: DeserializeOwned>(v: Value, at: &str) -> Result<T> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let mut path = e.path().to_string();
        let inner = e.into_inner().to_string().trim().to_string();
        // serde names an unknown key itself: the path shown is the table holding it.
        if inner.starts_with("unknown field") {
            path = path.rsplit_once('.').map_or("", |(p, _)| p).to_string();
        }
        if path.is_empty() || path == "." {
            PlanError(format!("{at}: {inner}"))
        } else {
            PlanError(format!("{at}: `{path}`: {inner}"))
        }
    })
}

impl Plan {
    /// Read and expand a regression file.
    pub fn load(path: &Path) -> Result<Plan> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| PlanError(format!("cannot read {}: {e}", path.display())))?;
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Plan::parse(&text, path, dir).map_err(|e| PlanError(format!("{}: {e}", path.display())))
    }

    /// Parse `text` (named `file`, relative paths against `dir`).
    pub fn parse(text: &str, file: &Path, dir: &Path) -> Result<Plan> {
        let mut top: Table =
            toml::from_str(text).map_err(|e| PlanError(e.to_string().trim().into()))?;
        if let Some(k) = top.keys().find(|k| *k != "regress" && *k != "job") {
            return Err(PlanError(format!(
                "unknown top-level key `{k}` (expected `[regress]` and `[[job]]`)"
            )));
        }
        let head: Head = typed(
            top.remove("regress")
                .unwrap_or_else(|| Value::Table(Table::new())),
            "[regress]",
        )?;
        if !(head.timeout.is_finite() && head.timeout > 0.0) {
            return Err(PlanError("[regress]: `timeout` must be positive".into()));
        }
        let root = dir.join(&head.root).canonicalize().map_err(|e| {
            PlanError(format!(
                "[regress]: `root` {} (from {}): {e}",
                head.root,
                dir.display()
            ))
        })?;
        if !root.is_dir() {
            return Err(PlanError(format!(
                "[regress]: `root` {} is not a directory",
                root.display()
            )));
        }
        let entries = match top.remove("job") {
            Some(Value::Array(a)) => a,
            Some(_) => {
                return Err(PlanError(
                    "`job` must be an array of tables (`[[job]]`)".into(),
                ))
            }
            None => vec![],
        };
        let mut jobs = vec![];
        for (i, e) in entries.iter().enumerate() {
            let Value::Table(t) = e else {
                return Err(PlanError(format!("job {}: must be a table", i + 1)));
            };
            for t in expand(t, i + 1)? {
                jobs.push(build(t, &root, head.timeout)?);
            }
        }
        let mut seen = BTreeSet::new();
        if let Some(j) = jobs.iter().find(|j| !seen.insert(j.id.clone())) {
            return Err(PlanError(format!(
                "job `{}` appears twice (give each job or matrix entry its own name)",
                j.id
            )));
        }
        Ok(Plan {
            name: head.name,
            file: file.to_path_buf(),
            root,
            jobs,
        })
    }

    /// A digest of the job list (ids, what they run, checks): shards of one plan agree on it.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for j in &self.jobs {
            h.update(j.digest().as_bytes());
        }
        hex::encode(h.finalize())
    }
}

/// One expanded `[[job]]` table as a [`Job`]: its name filled in, the common keys, then its
/// kind's keys (paths checked under `root`), the pins turned into checks.
fn build(mut t: Table, root: &Path, default_timeout: f64) -> Result<Job> {
    let template = match t.remove("name") {
        Some(Value::String(s)) => s,
        Some(_) => return Err(PlanError("a job's `name` must be a string".into())),
        None => return Err(PlanError("a job has no `name`".into())),
    };
    let id = fill(&template, &t)?;
    if id.is_empty() || id.chars().any(|c| c.is_control()) {
        return Err(PlanError(format!(
            "job `{id}`: the name must be printable and not empty"
        )));
    }
    let at = format!("job `{id}`");
    let kind = match t.remove("kind") {
        Some(Value::String(k)) => k,
        Some(v) => return Err(PlanError(format!("{at}: `kind` must be a string, not {v}"))),
        None => return Err(PlanError(format!("{at}: `kind` is missing"))),
    };
    let common: Table = COMMON_KEYS
        .iter()
        .filter_map(|k| t.remove(*k).map(|v| (k.to_string(), v)))
        .collect();
    let common: Common = typed(Value::Table(common), &at)?;
    let timeout = common.timeout.unwrap_or(default_timeout);
    if !(timeout.is_finite() && timeout > 0.0) {
        return Err(PlanError(format!("{at}: `timeout` must be positive")));
    }
    if common.cost.is_some_and(|c| !(c.is_finite() && c >= 0.0)) {
        return Err(PlanError(format!(
            "{at}: `cost` must be a number of seconds"
        )));
    }
    let mut checks = common
        .checks
        .into_iter()
        .enumerate()
        .map(|(i, c)| check(c, &format!("{at}, checks[{i}]")))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
    let spec = spec(&kind, Value::Table(t), root, &at, &mut checks)?;
    Ok(Job {
        cost: common.cost.unwrap_or_else(|| spec.cost()),
        id,
        spec,
        expect: common.expect,
        checks,
        timeout,
    })
}

/// The kind's options, read as its struct; paths checked; pins added to `checks`.
fn spec(kind: &str, t: Value, root: &Path, at: &str, checks: &mut Vec<Check>) -> Result<JobSpec> {
    let exists = |key: &str, p: &str| exists(root, at, key, p);
    let spec = match kind {
        "block" => {
            let b: BlockJob = typed(t, at)?;
            // A block job runs a registered design with a golden model.
            let known = crate::rtl::designs::entry(&b.block)
                .ok()
                .is_some_and(|e| e.model.is_some());
            if !known {
                let blocks: Vec<String> = crate::rtl::designs::entries()
                    .into_iter()
                    .filter(|e| e.model.is_some())
                    .map(|e| e.name)
                    .collect();
                return Err(PlanError(format!(
                    "{at}: `block`: `{}` is not a registered block (the blocks: {})",
                    b.block,
                    blocks.join(", ")
                )));
            }
            JobSpec::Block(b)
        }
        "cnn" => JobSpec::Cnn(cnn(typed(t, at)?, root, at, checks)?),
        "core" => {
            let c: CoreJob = typed(t, at)?;
            exists("config", &c.config)?;
            exists("data", &c.data)?;
            JobSpec::Core(c)
        }
        "platform" => {
            let p: PlatformJob = typed(t, at)?;
            exists("config", &p.config)?;
            exists("data", &p.data)?;
            if p.same_as_golden {
                checks.push(Check {
                    file: REPORT.into(),
                    pointer: "/weights_sha256".into(),
                    rule: Rule::SameAs {
                        file: GOLDEN_REPORT.into(),
                        pointer: "/weights_sha256".into(),
                    },
                });
            }
            checks.extend(p.weights_sha256.as_deref().map(weights_pin));
            JobSpec::Platform(p)
        }
        "train" => {
            let tr: TrainJob = typed(t, at)?;
            exists("config", &tr.config)?;
            exists("data", &tr.data)?;
            checks.extend(tr.weights_sha256.as_deref().map(weights_pin));
            JobSpec::Train(tr)
        }
        "finetune" => {
            let f: FinetuneJob = typed(t, at)?;
            exists("network", &f.network)?;
            exists("checkpoint", &f.checkpoint)?;
            exists("data", &f.data)?;
            JobSpec::Finetune(f)
        }
        "cli" => {
            let c: CliJob = typed(t, at)?;
            if c.args.is_empty() {
                return Err(PlanError(format!(
                    "{at}: `args` is empty (give the edgelearn arguments to run)"
                )));
            }
            JobSpec::Cli(c)
        }
        k => {
            return Err(PlanError(format!(
                "{at}: `kind` is `{k}`; one of {}",
                JobSpec::KINDS.join(", ")
            )))
        }
    };
    Ok(spec)
}

/// An error unless the path `p` (the job's `key`) exists under `root`. Paths stay as
/// written: jobs run in the root, so relative paths stay relative (and the plan's digest is
/// the same wherever the repository is checked out).
fn exists(root: &Path, at: &str, key: &str, p: &str) -> Result<()> {
    if root.join(p).exists() {
        Ok(())
    } else {
        Err(PlanError(format!(
            "{at}: `{key}` names {p}, which does not exist under {}",
            root.display()
        )))
    }
}

/// Where a `platform` job with `same_as_golden` has the golden run write its report.
pub const GOLDEN_REPORT: &str = "golden.json";

/// A `checks` entry as one check per rule it gives.
fn check(c: CheckToml, at: &str) -> Result<Vec<Check>> {
    let file = c.file.unwrap_or_else(|| REPORT.into());
    if !inside_job(&file) {
        return Err(PlanError(format!(
            "{at}: `file` must be a file of the job's directory (relative, no `..`)"
        )));
    }
    let pointer = c.pointer;
    if !pointer.is_empty() && !pointer.starts_with('/') {
        return Err(PlanError(format!(
            "{at}: `pointer` must start with `/` (a JSON pointer)"
        )));
    }
    let mut rules = vec![];
    if let Some(v) = c.equals {
        let j = serde_json::to_value(&v).map_err(|e| PlanError(format!("{at}: `equals`: {e}")))?;
        rules.push(Rule::Equals(j));
    }
    for (key, bound) in [("min", c.min), ("max", c.max)] {
        match bound {
            Some(x) if !x.is_finite() => {
                return Err(PlanError(format!("{at}: `{key}` must be a finite number")))
            }
            Some(x) if key == "min" => rules.push(Rule::Min(x)),
            Some(x) => rules.push(Rule::Max(x)),
            None => {}
        }
    }
    if let Some(h) = c.sha256 {
        rules.push(Rule::Sha256(h.to_lowercase()));
    }
    if let Some(other) = c.same_as {
        let (file, pointer) = match other.split_once('#') {
            Some((a, b)) => (a.to_string(), b.to_string()),
            None => (other.clone(), pointer.clone()),
        };
        if !inside_job(&file) {
            return Err(PlanError(format!(
                "{at}: `same_as` must name a file of the job's directory (relative, no `..`)"
            )));
        }
        rules.push(Rule::SameAs { file, pointer });
    }
    if rules.is_empty() {
        return Err(PlanError(format!(
            "{at}: give `equals`, `min`, `max`, `sha256` or `same_as`"
        )));
    }
    Ok(rules
        .into_iter()
        .map(|rule| Check {
            file: file.clone(),
            pointer: pointer.clone(),
            rule,
        })
        .collect())
}

fn weights_pin(h: &str) -> Check {
    Check {
        file: REPORT.into(),
        pointer: "/weights_sha256".into(),
        rule: Rule::Equals(Json::String(h.to_lowercase())),
    }
}

/// A CNN job's files: its own, or those INDEX.tsv gives its `case`; `output_sha256` (one
/// digest, or one per case) becomes a check of the report's `/output`.
fn cnn(c: CnnToml, root: &Path, at: &str, checks: &mut Vec<Check>) -> Result<CnnJob> {
    let exists = |key: &str, p: &str| exists(root, at, key, p);
    let mut flags = vec![];
    let (network, checkpoint, bias, input) = if let Some(case) = &c.case {
        for (k, v) in [
            ("network", &c.network),
            ("checkpoint", &c.checkpoint),
            ("input", &c.input),
            ("bias", &c.bias),
        ] {
            if v.is_some() {
                return Err(PlanError(format!(
                    "{at}: `{k}` cannot be given with `case` (INDEX.tsv names it)"
                )));
            }
        }
        let index = c
            .index
            .clone()
            .unwrap_or_else(|| "data/ai8x-kat/INDEX.tsv".into());
        exists("index", &index)?;
        let row = kat_row(&root.join(&index), case)
            .map_err(|e| PlanError(format!("{at}: `case` {e}")))?;
        let dir = Path::new(&index).parent().unwrap_or(Path::new("."));
        let rel = |p: &str| dir.join(p.trim()).to_string_lossy().into_owned();
        let mut w = row[2].split(" + ");
        let weights = rel(w.next().unwrap_or(""));
        let bias = w.next().map(rel);
        flags.extend(
            row.get(3)
                .into_iter()
                .flat_map(|x| x.split_whitespace())
                .map(String::from),
        );
        let input = dir.join(case).join("input.npy");
        (
            rel(&row[1]),
            weights,
            bias,
            input.to_string_lossy().into_owned(),
        )
    } else {
        if c.index.is_some() {
            return Err(PlanError(format!("{at}: `index` needs `case`")));
        }
        let need = |key: &str, v: &Option<String>| -> Result<String> {
            let p = v
                .clone()
                .ok_or_else(|| PlanError(format!("{at}: `{key}` is missing")))?;
            exists(key, &p)?;
            Ok(p)
        };
        let network = need("network", &c.network)?;
        let checkpoint = need("checkpoint", &c.checkpoint)?;
        let input = need("input", &c.input)?;
        let bias = match &c.bias {
            Some(_) => Some(need("bias", &c.bias)?),
            None => None,
        };
        (network, checkpoint, bias, input)
    };
    flags.extend(c.flags);
    let pin = match c.output_sha256 {
        None => None,
        Some(OutputPin::One(h)) => Some(h),
        Some(OutputPin::PerCase(m)) => {
            let key = c.case.clone().unwrap_or_default();
            Some(m.get(&key).cloned().ok_or_else(|| {
                PlanError(format!(
                    "{at}: `output_sha256` has no entry for case `{key}`"
                ))
            })?)
        }
    };
    checks.extend(pin.map(|h| Check {
        file: REPORT.into(),
        pointer: "/output".into(),
        rule: Rule::Sha256(h.to_lowercase()),
    }));
    Ok(CnnJob {
        backend: c.backend,
        network,
        checkpoint,
        bias,
        input,
        flags,
        processors: c.processors,
        front_door: c.front_door,
    })
}

/// One table per matrix entry: the matrix's arrays' cartesian product (keys in sorted
/// order) written into copies of the job, and the entry's values appended to the name
/// where the name template does not use them.
fn expand(t: &Table, index: usize) -> Result<Vec<Table>> {
    let label = match t.get("name") {
        Some(Value::String(s)) => format!("job `{s}`"),
        _ => format!("job {index}"),
    };
    let mut base = t.clone();
    let matrix = match base.remove("matrix") {
        None => return Ok(vec![base]),
        Some(Value::Table(m)) => m,
        Some(_) => {
            return Err(PlanError(format!(
                "{label}: `matrix` must be a table of arrays"
            )))
        }
    };
    let mut out = vec![base];
    for (key, values) in &matrix {
        let Value::Array(values) = values else {
            return Err(PlanError(format!(
                "{label}: `matrix.{key}` must be an array"
            )));
        };
        if values.is_empty() {
            return Err(PlanError(format!("{label}: `matrix.{key}` is empty")));
        }
        if matches!(key.as_str(), "name" | "kind" | "matrix") {
            return Err(PlanError(format!(
                "{label}: `{key}` cannot be a matrix key"
            )));
        }
        let mut next = vec![];
        for t in &out {
            for v in values {
                let mut t = t.clone();
                if t.contains_key(key) {
                    return Err(PlanError(format!(
                        "{label}: `{key}` is both a key of the job and of its matrix"
                    )));
                }
                let name = t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                if !name.contains(&format!("{{{key}}}")) {
                    let sep = if name.is_empty() { "" } else { "/" };
                    t.insert(
                        "name".into(),
                        Value::String(format!("{name}{sep}{}", plain(v))),
                    );
                }
                t.insert(key.clone(), v.clone());
                next.push(t);
            }
        }
        out = next;
    }
    Ok(out)
}

/// A TOML value as it reads in a name.
fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// `{key}` in a name template replaced by the job's values.
fn fill(template: &str, t: &Table) -> Result<String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(a) = rest.find('{') {
        out.push_str(&rest[..a]);
        let Some(b) = rest[a..].find('}') else {
            return Err(PlanError(format!(
                "job `{template}`: unclosed `{{` in the name"
            )));
        };
        let key = &rest[a + 1..a + b];
        match t.get(key) {
            Some(v) => out.push_str(&plain(v)),
            None => {
                return Err(PlanError(format!(
                    "job `{template}`: the name uses `{{{key}}}`, which the job does not set"
                )))
            }
        }
        rest = &rest[a + b + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A relative path that stays in the job's directory (the runner removes these files before
/// the job runs, so a check never reads a stale one).
fn inside_job(file: &str) -> bool {
    let p = Path::new(file);
    !file.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// The row of `case` in an ai8x-kat INDEX.tsv (case, yaml, weights[ + bias], flags).
fn kat_row(index: &Path, case: &str) -> std::result::Result<Vec<String>, String> {
    let text = std::fs::read_to_string(index)
        .map_err(|e| format!("cannot read {}: {e}", index.display()))?;
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').map(String::from).collect::<Vec<_>>())
        .find(|r| r[0] == case && r.len() >= 3)
        .ok_or_else(|| format!("is `{case}`, which {} does not list", index.display()))
}

/// The seconds-per-cycle and fixed seconds of a block bench backend (rough, measured on
/// the CI machine; docs/BENCHMARKS.md).
fn backend_cost(backend: &str) -> (f64, f64) {
    match backend {
        "native" => (2.0, 2e-5),
        "icarus" => (2.0, 3e-5),
        "verilator" => (8.0, 2e-6),
        "verilator-bench" => (10.0, 2e-6),
        _ => (6.0, 1e-3), // netlist: Yosys, then Icarus on gates (lel_lc_forward: 4.5 ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repository root (the jobs' paths are relative to it).
    fn root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn parse(body: &str) -> Result<Plan> {
        let text = format!("[regress]\nname = \"t\"\nroot = \".\"\n{body}");
        Plan::parse(&text, Path::new("t.toml"), &root())
    }

    fn error(body: &str) -> String {
        parse(body).expect_err("the plan must be refused").0
    }

    #[test]
    fn every_kind_is_read_into_its_typed_options() {
        let plan = parse(
            r#"
[[job]]
name = "b"
kind = "block"
block = "lel_loss"
stimulus = "random"
backend = "verilator-bench"
cycles = 300

[[job]]
name = "c"
kind = "core"
core = "fc1"
config = "configs/thesis-cifar10.toml"
data = "data/mnist-10k"
check_golden = false
backpressure = 0.25

[[job]]
name = "p"
kind = "platform"
config = "configs/mnist.toml"
data = "data/mnist-10k"
images = 4
same_as_golden = true
weights_sha256 = "ABC"

[[job]]
name = "t"
kind = "train"
config = "configs/mnist.toml"
data = "data/mnist-10k"
epochs = 2
float = true

[[job]]
name = "x"
kind = "cli"
args = ["blocks"]
expect = "error"
timeout = 9
cost = 0.5
"#,
        )
        .unwrap();
        let kinds: Vec<_> = plan.jobs.iter().map(Job::kind).collect();
        assert_eq!(kinds, ["block", "core", "platform", "train", "cli"]);
        let JobSpec::Block(b) = &plan.jobs[0].spec else {
            panic!()
        };
        assert_eq!(
            (b.stimulus, b.backend, b.seed, b.cycles),
            (
                StimulusKind::Random,
                BlockBackend::VerilatorBench,
                1,
                Some(300)
            )
        );
        let JobSpec::Core(c) = &plan.jobs[1].spec else {
            panic!()
        };
        assert_eq!(
            (c.images, c.check_golden, c.backpressure),
            (1, false, Some(0.25))
        );
        assert_eq!(c.backend, BenchBackend::Verilator);
        // The platform's pins: equal to the golden run's weights, and to the digest given.
        let p = &plan.jobs[2];
        assert_eq!(p.checks.len(), 2, "{:?}", p.checks);
        assert!(matches!(&p.checks[0].rule, Rule::SameAs { file, .. } if file == GOLDEN_REPORT));
        assert_eq!(p.checks[1].rule, Rule::Equals(Json::String("abc".into())));
        let JobSpec::Train(t) = &plan.jobs[3].spec else {
            panic!()
        };
        assert_eq!((t.epochs, t.float, t.images), (2, true, None));
        let x = &plan.jobs[4];
        assert_eq!((x.expect, x.timeout, x.cost), (Expect::Error, 9.0, 0.5));
        assert_eq!(plan.jobs[3].timeout, 3600.0);
    }

    #[test]
    fn a_matrix_expands_in_key_order_and_names_its_entries() {
        let plan = parse(
            r#"
[[job]]
name = "blk/{block}"
kind = "block"
matrix = { block = ["lel_loss", "lel_matmul"], seed = [1, 2] }
"#,
        )
        .unwrap();
        let ids: Vec<_> = plan.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "blk/lel_loss/1",
                "blk/lel_loss/2",
                "blk/lel_matmul/1",
                "blk/lel_matmul/2"
            ]
        );
        let JobSpec::Block(b) = &plan.jobs[3].spec else {
            panic!()
        };
        assert_eq!((b.block.as_str(), b.seed), ("lel_matmul", 2));
    }

    #[test]
    fn a_case_resolves_to_the_files_index_tsv_names() {
        let index = std::fs::read_to_string(root().join("data/ai8x-kat/INDEX.tsv")).unwrap();
        let case = index
            .lines()
            .nth(1)
            .unwrap()
            .split('\t')
            .next()
            .unwrap()
            .to_string();
        let plan = parse(&format!(
            "[[job]]\nname = \"k\"\nkind = \"cnn\"\ncase = \"{case}\"\nbackend = \"rtl\"\n\
             output_sha256 = {{ {case:?} = \"FF\" }}\n"
        ))
        .unwrap();
        let JobSpec::Cnn(c) = &plan.jobs[0].spec else {
            panic!()
        };
        assert_eq!(c.backend, CnnBackend::Rtl);
        assert!(
            c.input.ends_with(&format!("{case}/input.npy")),
            "{}",
            c.input
        );
        for p in [&c.network, &c.checkpoint, &c.input] {
            assert!(root().join(p).exists(), "{p}");
        }
        assert_eq!(plan.jobs[0].checks[0].rule, Rule::Sha256("ff".into()));
        assert_eq!(plan.jobs[0].checks[0].pointer, "/output");
    }

    #[test]
    fn bad_jobs_are_refused_naming_the_job_and_the_key() {
        let cases: &[(&str, &str)] = &[
            ("name = \"x\"\nkind = \"block\"\nblok = \"lel_loss\"", "job `x`: unknown field `blok`"),
            ("name = \"x\"\nkind = \"blocks\"", "job `x`: `kind` is `blocks`; one of block, cnn"),
            (
                "name = \"x\"\nkind = \"block\"\nblock = \"a\"\nbackend = \"modelsim\"",
                "job `x`: `backend`: unknown variant `modelsim`",
            ),
            ("name = \"x\"\nkind = \"block\"\nblock = \"a\"\nseed = -1", "job `x`: `seed`"),
            ("name = \"x\"\nkind = \"block\"", "job `x`: missing field `block`"),
            ("name = \"x\"\nkind = \"cli\"\nargs = []", "job `x`: `args` is empty"),
            ("name = \"x\"\nkind = \"cli\"\nargs = [\"a\"]\nexpect = \"maybe\"", "`expect`: unknown variant `maybe`"),
            ("name = \"x\"\nkind = \"cli\"\nargs = [\"a\"]\ntimeout = 0", "job `x`: `timeout` must be positive"),
            (
                "name = \"t\"\nkind = \"train\"\nconfig = \"configs/nope.toml\"\ndata = \"data/mnist-10k\"",
                "job `t`: `config` names configs/nope.toml, which does not exist",
            ),
            ("name = \"c\"\nkind = \"cnn\"\nnetwork = \"data\"", "job `c`: `checkpoint` is missing"),
            ("name = \"c\"\nkind = \"cnn\"\ncase = \"t-nothing\"", "`case` is `t-nothing`, which"),
            ("name = \"c\"\nkind = \"cnn\"\nindex = \"data\"", "job `c`: `index` needs `case`"),
            ("name = \"a/{nope}\"\nkind = \"cli\"\nargs = [\"a\"]", "uses `{nope}`"),
            ("name = \"m\"\nkind = \"cli\"\nargs = [\"a\"]\nmatrix = { seed = [] }", "`matrix.seed` is empty"),
            ("name = \"k\"\nkind = \"cli\"\nargs = [\"a\"]\nchecks = [{ pointer = \"/a\" }]", "give `equals`, `min`"),
            ("name = \"k\"\nkind = \"cli\"\nargs = [\"a\"]\nchecks = [{ pointer = \"a\", min = 1 }]", "must start with `/`"),
            ("name = \"k\"\nkind = \"cli\"\nargs = [\"a\"]\nchecks = [{ min = 1, bogus = 2 }]", "job `k`: `checks[0]`: unknown field `bogus`"),
            (
                "name = \"k\"\nkind = \"cli\"\nargs = [\"a\"]\nchecks = [{ file = \"../x.json\", min = 1 }]",
                "must be a file of the job's directory",
            ),
        ];
        for (job, want) in cases {
            let e = error(&format!("[[job]]\n{job}\n"));
            assert!(e.contains(want), "{job}: want {want:?}, got {e:?}");
        }
        let e = error("[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"a\"]\n[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"a\"]\n");
        assert!(e.contains("job `x` appears twice"), "{e}");
        assert!(error("[regres]\n").contains("unknown top-level key `regres`"));
        assert!(
            error("[[job]\n").contains("TOML parse error")
                || error("[[job]\n").contains("expected")
        );
    }

    #[test]
    fn the_digest_follows_what_a_job_runs_and_checks_not_its_cost() {
        let a = parse("[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\"]\n").unwrap();
        let b = parse(
            "[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\"]\ncost = 7\ntimeout = 5\n",
        )
        .unwrap();
        let c =
            parse("[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\", \"-v\"]\n").unwrap();
        let d = parse(
            "[[job]]\nname = \"x\"\nkind = \"cli\"\nargs = [\"blocks\"]\nexpect = \"fail\"\n",
        )
        .unwrap();
        assert_eq!(a.digest(), b.digest());
        assert_ne!(a.digest(), c.digest());
        assert_ne!(a.digest(), d.digest());
    }

    #[test]
    fn a_block_job_names_a_registered_block() {
        let e = error("[[job]]\nname = \"b\"\nkind = \"block\"\nblock = \"lel_nope\"\n");
        assert!(
            e.contains("`block`: `lel_nope` is not a registered block") && e.contains("lel_loss"),
            "{e}"
        );
        // A core is registered, but has no golden model of its ports.
        let e = error("[[job]]\nname = \"b\"\nkind = \"block\"\nblock = \"lel_platform\"\n");
        assert!(
            e.contains("`lel_platform` is not a registered block"),
            "{e}"
        );
    }

    #[test]
    fn costs_follow_the_work() {
        let plan = parse(
            r#"
[[job]]
name = "n"
kind = "block"
block = "lel_cache_x4_weight"
backend = "netlist"
[[job]]
name = "s"
kind = "block"
block = "lel_loss"
"#,
        )
        .unwrap();
        assert!(plan.jobs[0].cost > 600.0 && plan.jobs[1].cost < 10.0);
    }
}
