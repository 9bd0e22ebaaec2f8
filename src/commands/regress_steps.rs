//! What a regression job runs: the `edgelearn` command lines of each typed job
//! (`edgelearn_verif::regress::JobSpec`), and what their exit codes mean. Only the binary
//! knows argv and exit codes (ARCHITECTURE.md "Invariants"); the plan is data.

use edgelearn_verif::regress::plan::{
    BlockJob, CnnBackend, CnnJob, CoreJob, FinetuneJob, PlatformJob, TrainJob, GOLDEN_REPORT,
    REPORT,
};
use edgelearn_verif::regress::{Expect, Job, JobSpec};

/// The placeholder for a job's own output directory in its command lines.
pub const JOB_DIR: &str = "{job}";

/// The exit code that means "as expected" (0 ok, 1 verification failed, 2 error).
pub fn exit_code(e: Expect) -> i32 {
    match e {
        Expect::Pass => 0,
        Expect::Fail => 1,
        Expect::Error => 2,
    }
}

/// The job's `edgelearn` argument lists, run in order in the job's directory ([`JOB_DIR`]
/// standing for it). Every step but the last must exit 0; the last as the job expects.
pub fn steps(job: &Job) -> Vec<Vec<String>> {
    match &job.spec {
        JobSpec::Block(b) => block(b),
        JobSpec::Cnn(c) => vec![cnn(c)],
        JobSpec::Core(c) => vec![core(c)],
        JobSpec::Platform(p) => platform(p),
        JobSpec::Train(t) => vec![train(t)],
        JobSpec::Finetune(f) => vec![finetune(f)],
        JobSpec::Cli(c) => vec![c.args.clone()],
    }
}

/// An argument list under construction.
#[derive(Default)]
struct Args(Vec<String>);

impl Args {
    fn new(words: &[&str]) -> Self {
        Args(words.iter().map(|w| w.to_string()).collect())
    }

    fn words(mut self, words: &[&str]) -> Self {
        self.0.extend(words.iter().map(|w| w.to_string()));
        self
    }

    /// `--flag value`.
    fn arg(mut self, flag: &str, v: impl ToString) -> Self {
        self.0.push(flag.into());
        self.0.push(v.to_string());
        self
    }

    /// `--flag value` when there is a value.
    fn opt(self, flag: &str, v: Option<impl ToString>) -> Self {
        match v {
            Some(v) => self.arg(flag, v),
            None => self,
        }
    }

    /// `--flag` when `on`.
    fn flag(mut self, flag: &str, on: bool) -> Self {
        if on {
            self.0.push(flag.into());
        }
        self
    }
}

/// A file in the job's directory.
fn out(file: &str) -> String {
    format!("{JOB_DIR}/{file}")
}

/// `stimulus` then `sim --check`.
fn block(b: &BlockJob) -> Vec<Vec<String>> {
    let stimulus = out("stimulus.csv");
    let gen = Args::new(&["stimulus", &b.block])
        .arg("--kind", b.stimulus.as_str())
        .arg("--seed", b.seed)
        .opt("--cycles", b.cycles)
        .arg("--out", &stimulus)
        .words(&["--force"]);
    let sim = Args::new(&["sim", &b.block])
        .arg("--stimulus", &stimulus)
        .arg("--backend", b.backend.as_str())
        .words(&["--check"]);
    vec![gen.0, sim.0]
}

/// `cnn run` (golden) or `cnn sim` (RTL).
fn cnn(c: &CnnJob) -> Vec<String> {
    let rtl = c.backend == CnnBackend::Rtl;
    let mut a = Args::new(&["cnn", if rtl { "sim" } else { "run" }])
        .arg("--network", &c.network)
        .arg("--checkpoint", &c.checkpoint)
        .opt("--bias", c.bias.as_ref())
        .arg("--input", &c.input);
    a.0.extend(c.flags.iter().cloned());
    if rtl {
        a = a
            .opt("--processors", c.processors)
            .flag("--front-door", c.front_door);
    }
    a.arg("--output", out(REPORT)).words(&["--force"]).0
}

/// The options of a reactive bench (`core run`, `platform train`).
fn reactive(
    a: Args,
    backend: &str,
    check_golden: bool,
    gaps: Option<f64>,
    backpressure: Option<f64>,
    seed: Option<u64>,
) -> Args {
    a.arg("--backend", backend)
        .flag("--check-golden", check_golden)
        .opt("--input-gaps", gaps)
        .opt("--backpressure", backpressure)
        .opt("--traffic-seed", seed)
}

/// `core run CORE`.
fn core(c: &CoreJob) -> Vec<String> {
    let a = Args::new(&["core", "run", &c.core])
        .arg("--config", &c.config)
        .arg("--data", &c.data)
        .arg("--images", c.images);
    let a = reactive(
        a,
        c.backend.as_str(),
        c.check_golden,
        c.input_gaps,
        c.backpressure,
        c.traffic_seed,
    );
    a.flag("--infer", c.infer)
        .arg("--report", out(REPORT))
        .words(&["--force", "--quiet"])
        .0
}

/// The options every training shares.
#[allow(clippy::too_many_arguments)]
fn training(
    command: &[&str],
    config: &str,
    data: &str,
    images: Option<u64>,
    test_images: Option<u64>,
    epochs: u64,
    seed: Option<u64>,
) -> Args {
    Args::new(command)
        .arg("--config", config)
        .arg("--data", data)
        .opt("--images", images)
        .opt("--test-images", test_images)
        .arg("--epochs", epochs)
        .opt("--seed", seed)
}

/// `platform train`, checkpointed after every epoch in the job's directory (a stopped job
/// resumes); with `same_as_golden` the golden `train` of the same options first.
fn platform(p: &PlatformJob) -> Vec<Vec<String>> {
    let with = |command: &[&str]| {
        training(
            command,
            &p.config,
            &p.data,
            p.images,
            p.test_images,
            p.epochs,
            p.seed,
        )
    };
    let a = reactive(
        with(&["platform", "train"]),
        p.backend.as_str(),
        p.check_golden,
        p.input_gaps,
        p.backpressure,
        p.traffic_seed,
    )
    .flag("--axi", p.axi)
    .flag("--stop-sweep", p.stop_sweep)
    .flag("--eager-input", p.eager_input)
    .arg("--checkpoint", out("platform.ckpt"))
    .arg("--report", out(REPORT))
    .words(&["--force", "--quiet"]);
    let mut steps = vec![];
    if p.same_as_golden {
        let g = with(&["train"])
            .arg("--report", out(GOLDEN_REPORT))
            .words(&["--force", "--quiet"]);
        steps.push(g.0);
    }
    steps.push(a.0);
    steps
}

/// The golden `train`, checkpointed in the job's directory so a stopped job resumes.
fn train(t: &TrainJob) -> Vec<String> {
    training(
        &["train"],
        &t.config,
        &t.data,
        t.images,
        t.test_images,
        t.epochs,
        t.seed,
    )
    .flag("--float", t.float)
    .opt("--checkpoint-every", t.checkpoint_every)
    .arg("--checkpoint", out("train.ckpt"))
    .arg("--report", out(REPORT))
    .words(&["--force", "--quiet"])
    .0
}

/// `cnn finetune` with its report.
fn finetune(f: &FinetuneJob) -> Vec<String> {
    Args::new(&["cnn", "finetune"])
        .arg("--network", &f.network)
        .arg("--checkpoint", &f.checkpoint)
        .arg("--data", &f.data)
        .opt("--new-class", f.new_class)
        .opt("--new-data", f.new_data.as_ref())
        .arg("--epochs", f.epochs)
        .opt("--lr", f.lr)
        .opt("--arith", f.arith.as_ref())
        .opt("--rounding", f.rounding.as_ref())
        .opt("--seed", f.seed)
        .arg("--backend", f.backend.as_str())
        .opt("--train-images", f.train_images)
        .opt("--test-images", f.test_images)
        .opt("--original-images", f.original_images)
        .arg("--report", out(REPORT))
        .words(&["--force"])
        .0
}
