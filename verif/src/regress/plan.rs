//! A regression file (TOML) turned into jobs: matrix expansion, the `edgelearn` command lines
//! each job runs, its expected outcome, the checks on the JSON it writes, and an estimated
//! cost in seconds (used to balance shards). docs/regress.md is the user's reference.
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

use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
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

/// The placeholder for a job's own output directory in its command lines and check files.
pub const JOB_DIR: &str = "{job}";

/// The file every job kind except `block` and `cli` writes its JSON result to.
pub const REPORT: &str = "report.json";

/// The exit status a job's last step must end with.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expect {
    /// Exit 0.
    Pass,
    /// Exit 1: a verification failure is the expected outcome (a negative test).
    Fail,
    /// Exit 2: the input must be refused with an error.
    Error,
}

impl Expect {
    /// The exit code that means "as expected".
    pub fn exit_code(self) -> i32 {
        match self {
            Expect::Pass => 0,
            Expect::Fail => 1,
            Expect::Error => 2,
        }
    }
}

/// What a check asks of one JSON value.
#[derive(Clone, Debug, PartialEq)]
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
#[derive(Clone, Debug, PartialEq)]
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

/// One job: a few `edgelearn` command lines run in order in the job's own directory.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// Unique name (the JUnit test case).
    pub id: String,
    /// `block`, `cnn`, `core`, `platform`, `train`, `finetune` or `cli`.
    pub kind: String,
    /// `edgelearn` argument lists, [`JOB_DIR`] standing for the job's directory. Every step
    /// but the last must exit 0; the last must exit as `expect` says.
    pub steps: Vec<Vec<String>>,
    /// Expected exit of the last step.
    pub expect: Expect,
    /// Checks on the JSON the job wrote (only when the last step exits 0).
    pub checks: Vec<Check>,
    /// Estimated seconds (shard balancing).
    pub cost: f64,
    /// Seconds before the job is stopped and reported as an error.
    pub timeout: f64,
}

impl Job {
    /// A digest of what the job runs and checks (not of the binary that runs it).
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        h.update(self.id.as_bytes());
        for s in &self.steps {
            h.update(b"\0step");
            for a in s {
                h.update(b"\0");
                h.update(a.as_bytes());
            }
        }
        h.update(format!("{:?}{:?}", self.expect, self.checks).as_bytes());
        hex::encode(h.finalize())
    }
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
        let top: Table =
            toml::from_str(text).map_err(|e| PlanError(e.to_string().trim().into()))?;
        for k in top.keys() {
            if k != "regress" && k != "job" {
                return Err(PlanError(format!(
                    "unknown top-level key `{k}` (expected `[regress]` and `[[job]]`)"
                )));
            }
        }
        let head = match top.get("regress") {
            Some(Value::Table(t)) => t.clone(),
            Some(_) => return Err(PlanError("`regress` must be a table".into())),
            None => Table::new(),
        };
        let mut f = Fields::new("[regress]", head);
        let name = f.string("name")?.unwrap_or_else(|| "regress".into());
        let root_rel = f.string("root")?.unwrap_or_else(|| ".".into());
        let timeout = f.number("timeout")?.unwrap_or(3600.0);
        f.done()?;
        if timeout <= 0.0 {
            return Err(PlanError("[regress]: `timeout` must be positive".into()));
        }
        let root = dir.join(&root_rel).canonicalize().map_err(|e| {
            PlanError(format!(
                "[regress]: `root` {root_rel} (from {}): {e}",
                dir.display()
            ))
        })?;
        if !root.is_dir() {
            return Err(PlanError(format!(
                "[regress]: `root` {} is not a directory",
                root.display()
            )));
        }
        let entries = match top.get("job") {
            Some(Value::Array(a)) => a.clone(),
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
                jobs.push(build(t, &root, timeout)?);
            }
        }
        let mut seen = BTreeSet::new();
        for j in &jobs {
            if !seen.insert(j.id.clone()) {
                return Err(PlanError(format!(
                    "job `{}` appears twice (give each job or matrix entry its own name)",
                    j.id
                )));
            }
        }
        Ok(Plan {
            name,
            file: file.to_path_buf(),
            root,
            jobs,
        })
    }

    /// A digest of the job list (ids, commands, checks): shards of one plan agree on it.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for j in &self.jobs {
            h.update(j.digest().as_bytes());
        }
        hex::encode(h.finalize())
    }
}

/// The keys of a `[[job]]` table, taken one by one; [`Fields::done`] rejects the rest.
struct Fields {
    at: String,
    t: Table,
}

impl Fields {
    fn new(at: &str, t: Table) -> Self {
        Fields { at: at.into(), t }
    }

    fn err(&self, key: &str, what: &str) -> PlanError {
        PlanError(format!("{}: `{key}` {what}", self.at))
    }

    fn string(&mut self, key: &str) -> Result<Option<String>> {
        match self.t.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(v) => Err(self.err(key, &format!("must be a string, not {}", v.type_str()))),
        }
    }

    fn need_string(&mut self, key: &str) -> Result<String> {
        self.string(key)?.ok_or_else(|| self.err(key, "is missing"))
    }

    fn int(&mut self, key: &str) -> Result<Option<u64>> {
        match self.t.remove(key) {
            None => Ok(None),
            Some(Value::Integer(i)) if i >= 0 => Ok(Some(i as u64)),
            Some(v) => Err(self.err(key, &format!("must be a non-negative integer, not {v}"))),
        }
    }

    fn number(&mut self, key: &str) -> Result<Option<f64>> {
        match self.t.remove(key) {
            None => Ok(None),
            Some(Value::Integer(i)) => Ok(Some(i as f64)),
            Some(Value::Float(x)) if x.is_finite() => Ok(Some(x)),
            Some(v) => Err(self.err(key, &format!("must be a number, not {v}"))),
        }
    }

    fn flag(&mut self, key: &str) -> Result<bool> {
        match self.t.remove(key) {
            None => Ok(false),
            Some(Value::Boolean(b)) => Ok(b),
            Some(v) => Err(self.err(key, &format!("must be true or false, not {v}"))),
        }
    }

    fn flag_or(&mut self, key: &str, default: bool) -> Result<bool> {
        Ok(if self.t.contains_key(key) {
            self.flag(key)?
        } else {
            default
        })
    }

    fn strings(&mut self, key: &str) -> Result<Vec<String>> {
        match self.t.remove(key) {
            None => Ok(vec![]),
            Some(Value::Array(a)) => a
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s),
                    v => Err(self.err(key, &format!("must hold strings, not {v}"))),
                })
                .collect(),
            Some(v) => Err(self.err(key, &format!("must be an array of strings, not {v}"))),
        }
    }

    fn one_of(&mut self, key: &str, allowed: &[&str], default: &str) -> Result<String> {
        let v = self.string(key)?.unwrap_or_else(|| default.into());
        if !allowed.contains(&v.as_str()) {
            return Err(self.err(key, &format!("is `{v}`; one of {}", allowed.join(", "))));
        }
        Ok(v)
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.t.remove(key)
    }

    fn done(self) -> Result<()> {
        match self.t.keys().next() {
            None => Ok(()),
            Some(k) => Err(PlanError(format!("{}: unknown key `{k}`", self.at))),
        }
    }
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

/// A path as written: jobs run in the root, so relative paths stay relative (and the plan's
/// digest is the same wherever the repository is checked out). It must exist.
fn path_arg(f: &mut Fields, key: &str, root: &Path) -> Result<Option<String>> {
    match f.string(key)? {
        None => Ok(None),
        Some(p) if root.join(&p).exists() => Ok(Some(p)),
        Some(p) => Err(f.err(
            key,
            &format!("names {p}, which does not exist under {}", root.display()),
        )),
    }
}

fn need_path(f: &mut Fields, key: &str, root: &Path) -> Result<String> {
    path_arg(f, key, root)?.ok_or_else(|| f.err(key, "is missing"))
}

/// Append `--flag value` when the value is set.
fn opt(args: &mut Vec<String>, flag: &str, v: Option<impl ToString>) {
    if let Some(v) = v {
        args.push(flag.into());
        args.push(v.to_string());
    }
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// The output path of a job file.
fn out(file: &str) -> String {
    format!("{JOB_DIR}/{file}")
}

/// Keys every job may have.
const COMMON_KEYS: &[&str] = &["name", "kind", "expect", "timeout", "cost", "checks"];

/// Each kind and its own keys.
const KIND_KEYS: &[(&str, &[&str])] = &[
    ("block", &["block", "stimulus", "backend", "seed", "cycles"]),
    (
        "cnn",
        &[
            "backend",
            "case",
            "index",
            "network",
            "checkpoint",
            "input",
            "bias",
            "flags",
            "processors",
            "front_door",
            "output_sha256",
        ],
    ),
    (
        "core",
        &[
            "core",
            "config",
            "data",
            "images",
            "backend",
            "check_golden",
            "infer",
            "input_gaps",
            "backpressure",
            "traffic_seed",
        ],
    ),
    (
        "platform",
        &[
            "config",
            "data",
            "images",
            "test_images",
            "epochs",
            "seed",
            "backend",
            "check_golden",
            "axi",
            "input_gaps",
            "backpressure",
            "traffic_seed",
            "same_as_golden",
            "weights_sha256",
        ],
    ),
    (
        "train",
        &[
            "config",
            "data",
            "images",
            "test_images",
            "epochs",
            "seed",
            "float",
            "checkpoint_every",
            "weights_sha256",
        ],
    ),
    (
        "finetune",
        &[
            "network",
            "checkpoint",
            "data",
            "new_class",
            "new_data",
            "epochs",
            "lr",
            "arith",
            "rounding",
            "seed",
            "backend",
            "train_images",
            "test_images",
            "original_images",
        ],
    ),
    ("cli", &["args"]),
];

fn build(t: Table, root: &Path, default_timeout: f64) -> Result<Job> {
    let template = match t.get("name") {
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(PlanError("a job's `name` must be a string".into())),
        None => return Err(PlanError("a job has no `name`".into())),
    };
    let id = fill(&template, &t)?;
    if id.is_empty() || id.chars().any(|c| c.is_control()) {
        return Err(PlanError(format!(
            "job `{id}`: the name must be printable and not empty"
        )));
    }
    let mut f = Fields::new(&format!("job `{id}`"), t);
    f.take("name");
    let kind = f.need_string("kind")?;
    // Unknown keys first: a misspelt key is named as such, not as the key it misses.
    if let Some((_, own)) = KIND_KEYS.iter().find(|(k, _)| *k == kind) {
        if let Some(k) =
            f.t.keys()
                .find(|k| !COMMON_KEYS.contains(&k.as_str()) && !own.contains(&k.as_str()))
        {
            return Err(f.err(
                k,
                &format!(
                    "is not a key of a `{kind}` job (its keys: {})",
                    own.join(", ")
                ),
            ));
        }
    }
    let expect = match f.string("expect")?.as_deref() {
        None | Some("pass") => Expect::Pass,
        Some("fail") => Expect::Fail,
        Some("error") => Expect::Error,
        Some(x) => return Err(f.err("expect", &format!("is `{x}`; one of pass, fail, error"))),
    };
    let timeout = f.number("timeout")?.unwrap_or(default_timeout);
    let cost_override = f.number("cost")?;
    let mut checks = match f.take("checks") {
        None => vec![],
        Some(v) => parse_checks(&id, v)?,
    };
    let (steps, cost) = match kind.as_str() {
        "block" => block(&mut f)?,
        "cnn" => cnn(&mut f, root, &id, &mut checks)?,
        "core" => core(&mut f, root)?,
        "platform" => platform(&mut f, root, &mut checks)?,
        "train" => train(&mut f, root, &mut checks)?,
        "finetune" => finetune(&mut f, root)?,
        "cli" => {
            let args = f.strings("args")?;
            if args.is_empty() {
                return Err(f.err("args", "is missing (the edgelearn arguments to run)"));
            }
            (vec![args], 5.0)
        }
        k => {
            return Err(f.err(
                "kind",
                &format!("is `{k}`; one of block, cnn, core, platform, train, finetune, cli"),
            ))
        }
    };
    f.done()?;
    if timeout <= 0.0 {
        return Err(PlanError(format!("job `{id}`: `timeout` must be positive")));
    }
    Ok(Job {
        id,
        kind,
        steps,
        expect,
        checks,
        cost: cost_override.unwrap_or(cost),
        timeout,
    })
}

fn parse_checks(id: &str, v: Value) -> Result<Vec<Check>> {
    let Value::Array(a) = v else {
        return Err(PlanError(format!(
            "job `{id}`: `checks` must be an array of tables"
        )));
    };
    a.into_iter()
        .enumerate()
        .map(|(i, v)| {
            let Value::Table(t) = v else {
                return Err(PlanError(format!(
                    "job `{id}`: checks[{i}] must be a table"
                )));
            };
            let mut f = Fields::new(&format!("job `{id}`, checks[{i}]"), t);
            let file = f.string("file")?.unwrap_or_else(|| REPORT.into());
            if !inside_job(&file) {
                return Err(f.err(
                    "file",
                    "must be a file of the job's directory (relative, no `..`)",
                ));
            }
            let pointer = f.string("pointer")?.unwrap_or_default();
            if !pointer.is_empty() && !pointer.starts_with('/') {
                return Err(f.err("pointer", "must start with `/` (a JSON pointer)"));
            }
            let mut rules = vec![];
            if let Some(v) = f.take("equals") {
                let j = serde_json::to_value(&v).map_err(|e| f.err("equals", &e.to_string()))?;
                rules.push(Rule::Equals(j));
            }
            if let Some(x) = f.number("min")? {
                rules.push(Rule::Min(x));
            }
            if let Some(x) = f.number("max")? {
                rules.push(Rule::Max(x));
            }
            if let Some(h) = f.string("sha256")? {
                rules.push(Rule::Sha256(h.to_lowercase()));
            }
            if let Some(other) = f.string("same_as")? {
                let (file, pointer) = match other.split_once('#') {
                    Some((a, b)) => (a.to_string(), b.to_string()),
                    None => (other.clone(), pointer.clone()),
                };
                if !inside_job(&file) {
                    return Err(f.err(
                        "same_as",
                        "must name a file of the job's directory (relative, no `..`)",
                    ));
                }
                rules.push(Rule::SameAs { file, pointer });
            }
            f.done()?;
            if rules.is_empty() {
                return Err(PlanError(format!(
                    "job `{id}`, checks[{i}]: give `equals`, `min`, `max`, `sha256` or `same_as`"
                )));
            }
            Ok(rules
                .into_iter()
                .map(|rule| Check {
                    file: file.clone(),
                    pointer: pointer.clone(),
                    rule,
                })
                .collect::<Vec<_>>())
        })
        .collect::<Result<Vec<_>>>()
        .map(|v| v.into_iter().flatten().collect())
}

/// A relative path that stays in the job's directory (the runner removes these files before
/// the job runs, so a check never reads a stale one).
fn inside_job(file: &str) -> bool {
    let p = Path::new(file);
    !file.is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// `stimulus` then `sim --check`: block x stimulus kind x backend x seed.
fn block(f: &mut Fields) -> Result<(Vec<Vec<String>>, f64)> {
    let block = f.need_string("block")?;
    let stim = f.one_of("stimulus", &["thesis", "random"], "thesis")?;
    let backend = f.one_of(
        "backend",
        &[
            "native",
            "icarus",
            "verilator",
            "verilator-bench",
            "netlist",
        ],
        "native",
    )?;
    let seed = f.int("seed")?.unwrap_or(1);
    let cycles = f.int("cycles")?;
    let mut gen = vec![
        "stimulus".into(),
        block.clone(),
        "--kind".into(),
        stim.clone(),
    ];
    opt(&mut gen, "--seed", Some(seed));
    opt(&mut gen, "--cycles", cycles);
    gen.extend(s(&["--out", &out("stimulus.csv"), "--force"]));
    let sim = vec![
        "sim".into(),
        block.clone(),
        "--stimulus".into(),
        out("stimulus.csv"),
        "--backend".into(),
        backend.clone(),
        "--check".into(),
    ];
    let (mut fixed, per_cycle) = backend_cost(&backend);
    if backend == "netlist" && block == "lel_cache_x4_weight" {
        // Yosys spends about ten minutes on the 72,000-word memory's initialisation loop
        // (tests/cache_x4.rs).
        fixed += 600.0;
    }
    let n = if stim == "random" {
        cycles.unwrap_or(10_000) as f64
    } else {
        5_000.0
    };
    // The cores are ~50x the logic of a unit block.
    let scale = if block.contains("core")
        || block.contains("platform")
        || block.starts_with("cnn_engine")
    {
        50.0
    } else {
        1.0
    };
    Ok((vec![gen, sim], fixed + n * per_cycle * scale))
}

/// `cnn run` (golden) or `cnn sim` (the engine RTL, every layer compared) of a network or of
/// a case of an ai8x-kat INDEX.tsv; `output_sha256` pins the output (a table: per case).
fn cnn(
    f: &mut Fields,
    root: &Path,
    id: &str,
    checks: &mut Vec<Check>,
) -> Result<(Vec<Vec<String>>, f64)> {
    let backend = f.one_of("backend", &["golden", "rtl"], "golden")?;
    let case = f.string("case")?;
    let index = path_arg(f, "index", root)?;
    let mut flags = f.strings("flags")?;
    let (network, weights, bias, input);
    if let Some(case) = &case {
        let index = index.unwrap_or_else(|| "data/ai8x-kat/INDEX.tsv".into());
        let row = kat_row(&root.join(&index), case).map_err(|e| f.err("case", &e))?;
        let dir = Path::new(&index).parent().unwrap_or(Path::new("."));
        let at = |p: &str| dir.join(p.trim()).to_string_lossy().into_owned();
        network = at(&row[1]);
        let mut w = row[2].split(" + ");
        weights = at(w.next().unwrap_or(""));
        bias = w.next().map(at);
        input = dir
            .join(case)
            .join("input.npy")
            .to_string_lossy()
            .into_owned();
        flags.extend(
            row.get(3)
                .into_iter()
                .flat_map(|x| x.split_whitespace())
                .map(String::from),
        );
        for k in ["network", "checkpoint", "input", "bias"] {
            if f.t.contains_key(k) {
                return Err(f.err(k, "cannot be given with `case` (INDEX.tsv names it)"));
            }
        }
    } else {
        if index.is_some() {
            return Err(f.err("index", "needs `case`"));
        }
        network = need_path(f, "network", root)?;
        weights = need_path(f, "checkpoint", root)?;
        input = need_path(f, "input", root)?;
        bias = path_arg(f, "bias", root)?;
    }
    let mut args = s(&["cnn", if backend == "rtl" { "sim" } else { "run" }]);
    args.extend(["--network".into(), network, "--checkpoint".into(), weights]);
    opt(&mut args, "--bias", bias);
    args.extend(["--input".into(), input]);
    args.extend(flags);
    if backend == "rtl" {
        opt(&mut args, "--processors", f.int("processors")?);
        if f.flag("front_door")? {
            args.push("--front-door".into());
        }
    }
    args.extend(["--output".into(), out(REPORT), "--force".into()]);
    match f.take("output_sha256") {
        None => {}
        Some(Value::String(h)) => checks.push(output_pin(&h)),
        Some(Value::Table(t)) => {
            let key = case.clone().unwrap_or_default();
            match t.get(&key) {
                Some(Value::String(h)) => checks.push(output_pin(h)),
                Some(v) => {
                    return Err(f.err(
                        "output_sha256",
                        &format!("`{key}` must be a string, not {v}"),
                    ))
                }
                None => {
                    return Err(PlanError(format!(
                        "job `{id}`: `output_sha256` has no entry for case `{key}`"
                    )))
                }
            }
        }
        Some(v) => {
            return Err(f.err(
                "output_sha256",
                &format!("must be a string or a table, not {v}"),
            ))
        }
    }
    Ok((vec![args], if backend == "rtl" { 12.0 } else { 1.5 }))
}

fn output_pin(h: &str) -> Check {
    Check {
        file: REPORT.into(),
        pointer: "/output".into(),
        rule: Rule::Sha256(h.to_lowercase()),
    }
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

/// The options every training kind shares.
fn train_common(f: &mut Fields, root: &Path, args: &mut Vec<String>) -> Result<(u64, u64)> {
    args.extend(["--config".into(), need_path(f, "config", root)?]);
    args.extend(["--data".into(), need_path(f, "data", root)?]);
    let images = f.int("images")?;
    let epochs = f.int("epochs")?.unwrap_or(1);
    opt(args, "--images", images);
    opt(args, "--test-images", f.int("test_images")?);
    args.extend(["--epochs".into(), epochs.to_string()]);
    opt(args, "--seed", f.int("seed")?);
    Ok((images.unwrap_or(8000), epochs))
}

/// The options of a reactive bench (`core run`, `platform train`): the simulator, the
/// golden comparison (on unless `check_golden = false`) and the stream traffic. The backend.
fn reactive(f: &mut Fields, args: &mut Vec<String>) -> Result<String> {
    let backend = f.one_of("backend", &["verilator", "native"], "verilator")?;
    args.extend(["--backend".into(), backend.clone()]);
    if f.flag_or("check_golden", true)? {
        args.push("--check-golden".into());
    }
    opt(args, "--input-gaps", f.number("input_gaps")?);
    opt(args, "--backpressure", f.number("backpressure")?);
    opt(args, "--traffic-seed", f.int("traffic_seed")?);
    Ok(backend)
}

/// `core run CORE --check-golden`.
fn core(f: &mut Fields, root: &Path) -> Result<(Vec<Vec<String>>, f64)> {
    let core = f.need_string("core")?;
    let mut args = s(&["core", "run", &core]);
    args.extend(["--config".into(), need_path(f, "config", root)?]);
    args.extend(["--data".into(), need_path(f, "data", root)?]);
    let images = f.int("images")?.unwrap_or(1);
    args.extend(["--images".into(), images.to_string()]);
    let backend = reactive(f, &mut args)?;
    if f.flag("infer")? {
        args.push("--infer".into());
    }
    args.extend(s(&["--report", &out(REPORT), "--force", "--quiet"]));
    let per = if backend == "native" { 60.0 } else { 0.3 };
    Ok((vec![args], 20.0 + images as f64 * per))
}

/// `platform train --check-golden`, and with `same_as_golden` the golden `train` of the same
/// configuration, seed and images, whose `weights_sha256` must be equal.
fn platform(
    f: &mut Fields,
    root: &Path,
    checks: &mut Vec<Check>,
) -> Result<(Vec<Vec<String>>, f64)> {
    let mut common = vec![];
    let (images, epochs) = train_common(f, root, &mut common)?;
    let mut args = s(&["platform", "train"]);
    args.extend(common.iter().cloned());
    reactive(f, &mut args)?;
    if f.flag("axi")? {
        args.push("--axi".into());
    }
    // Checkpointed after every epoch in the job's directory: a stopped job resumes.
    args.extend(s(&[
        "--checkpoint",
        &out("platform.ckpt"),
        "--report",
        &out(REPORT),
        "--force",
        "--quiet",
    ]));
    let mut steps = vec![];
    if f.flag("same_as_golden")? {
        let mut g = s(&["train"]);
        g.extend(common);
        g.extend(s(&["--report", &out("golden.json"), "--force", "--quiet"]));
        steps.push(g);
        checks.push(Check {
            file: REPORT.into(),
            pointer: "/weights_sha256".into(),
            rule: Rule::SameAs {
                file: "golden.json".into(),
                pointer: "/weights_sha256".into(),
            },
        });
    }
    if let Some(h) = f.string("weights_sha256")? {
        checks.push(weights_pin(&h));
    }
    steps.push(args);
    Ok((steps, 40.0 + (images * epochs) as f64 * 0.25))
}

fn weights_pin(h: &str) -> Check {
    Check {
        file: REPORT.into(),
        pointer: "/weights_sha256".into(),
        rule: Rule::Equals(Json::String(h.to_lowercase())),
    }
}

/// The golden `train`, checkpointed in the job's directory so a stopped job resumes.
fn train(f: &mut Fields, root: &Path, checks: &mut Vec<Check>) -> Result<(Vec<Vec<String>>, f64)> {
    let mut args = s(&["train"]);
    let (images, epochs) = train_common(f, root, &mut args)?;
    if f.flag("float")? {
        args.push("--float".into());
    }
    opt(&mut args, "--checkpoint-every", f.int("checkpoint_every")?);
    args.extend(s(&[
        "--checkpoint",
        &out("train.ckpt"),
        "--report",
        &out(REPORT),
        "--force",
        "--quiet",
    ]));
    if let Some(h) = f.string("weights_sha256")? {
        checks.push(weights_pin(&h));
    }
    Ok((vec![args], 2.0 + (images * epochs) as f64 * 0.0005))
}

/// `cnn finetune` with its report.
fn finetune(f: &mut Fields, root: &Path) -> Result<(Vec<Vec<String>>, f64)> {
    let mut args = s(&["cnn", "finetune"]);
    args.extend(["--network".into(), need_path(f, "network", root)?]);
    args.extend(["--checkpoint".into(), need_path(f, "checkpoint", root)?]);
    args.extend(["--data".into(), need_path(f, "data", root)?]);
    opt(&mut args, "--new-class", f.int("new_class")?);
    opt(&mut args, "--new-data", f.string("new_data")?);
    let epochs = f.int("epochs")?.unwrap_or(20);
    args.extend(["--epochs".into(), epochs.to_string()]);
    opt(&mut args, "--lr", f.number("lr")?);
    opt(&mut args, "--arith", f.string("arith")?);
    opt(&mut args, "--rounding", f.string("rounding")?);
    opt(&mut args, "--seed", f.int("seed")?);
    let backend = f.one_of("backend", &["golden", "verilator"], "golden")?;
    args.extend(["--backend".into(), backend.clone()]);
    opt(&mut args, "--train-images", f.int("train_images")?);
    opt(&mut args, "--test-images", f.int("test_images")?);
    let original = f.int("original_images")?;
    opt(&mut args, "--original-images", original);
    args.extend(s(&["--report", &out(REPORT), "--force"]));
    let frozen = original.unwrap_or(2000) as f64 + 30.0;
    let per = if backend == "verilator" { 0.25 } else { 0.004 };
    Ok((vec![args], 3.0 + frozen * per + epochs as f64 * 0.2))
}
