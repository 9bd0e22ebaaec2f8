//! `edgelearn regress run | list | merge`: the jobs of a regression file run as `edgelearn`
//! processes (one single-threaded simulator each, J at a time), each in its own directory
//! with its log; results written as they finish, so a stopped shard resumes where it was.

use super::regress_steps::{exit_code, steps, JOB_DIR};
use crate::cli::RegressCommand;
use anyhow::{bail, Context};
use edgelearn_verif::regress::plan::REPORT;
use edgelearn_verif::regress::report::{self, CheckResult, FORMAT};
use edgelearn_verif::regress::{partition, Expect, Job, JobResult, Plan, Shard, Summary, Verdict};
use indicatif::{ProgressBar, ProgressStyle};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// The file that marks a directory as a `regress run` output (safe to write into).
const MARKER: &str = ".edgelearn-regress";

pub fn run(cmd: RegressCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        RegressCommand::Run {
            file,
            shard,
            jobs,
            out,
            filter,
            timings,
            fresh,
            quiet,
            coverage,
        } => run_shard(RunArgs {
            file,
            shard: shard.unwrap_or(Shard::ALL),
            jobs: jobs.map_or_else(default_jobs, |j| j as usize),
            out,
            filter: filter.into_iter().collect(),
            timings,
            fresh,
            quiet,
            coverage,
        }),
        RegressCommand::List {
            file,
            shard,
            shards,
            timings,
            commands,
        } => list(&file, shard, shards, timings.as_deref(), commands),
        RegressCommand::Merge { dirs, out, force } => merge(&dirs, out.as_deref(), force),
    }
}

pub(super) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub(super) struct RunArgs {
    pub file: PathBuf,
    pub shard: Shard,
    pub jobs: usize,
    pub out: PathBuf,
    /// Only jobs whose name contains one of these (all without any).
    pub filter: Vec<String>,
    pub timings: Option<PathBuf>,
    pub fresh: bool,
    pub quiet: bool,
    /// Each job's in-process Verilator models count coverage into `<job>/coverage`.
    pub coverage: bool,
}

/// The plan with costs from `timings` where it has a time for a job.
fn load_plan(file: &Path, timings: Option<&Path>) -> anyhow::Result<Plan> {
    let mut plan = Plan::load(file)?;
    if let Some(t) = timings {
        let text =
            std::fs::read_to_string(t).with_context(|| format!("cannot read {}", t.display()))?;
        let j: serde_json::Value = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a summary.json", t.display()))?;
        let mut seconds = BTreeMap::new();
        for r in j["results"].as_array().into_iter().flatten() {
            if let (Some(id), Some(s)) = (r["id"].as_str(), r["seconds"].as_f64()) {
                if s > 0.0 {
                    seconds.insert(id.to_string(), s);
                }
            }
        }
        if seconds.is_empty() {
            bail!(
                "{} holds no job times (a regress summary.json)",
                t.display()
            );
        }
        for job in &mut plan.jobs {
            if let Some(&s) = seconds.get(&job.id) {
                job.cost = s;
            }
        }
    }
    Ok(plan)
}

/// Every job's shard (0-based) for `count` shards.
fn shards_of(plan: &Plan, count: usize) -> Vec<usize> {
    let costs: Vec<f64> = plan.jobs.iter().map(|j| j.cost).collect();
    partition(&costs, count)
}

/// The jobs of `shard` that pass `filter` (any of its texts), in plan order.
fn select<'a>(plan: &'a Plan, shard: Shard, filter: &[String]) -> Vec<&'a Job> {
    let of = shards_of(plan, shard.count);
    plan.jobs
        .iter()
        .zip(of)
        .filter(|(j, s)| {
            *s + 1 == shard.index
                && (filter.is_empty() || filter.iter().any(|f| j.id.contains(f.as_str())))
        })
        .map(|(j, _)| j)
        .collect()
}

/// A job's directory name: its name made safe, and a digest so two names never collide.
fn slug(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    format!(
        "{safe}-{}",
        &hex::encode(Sha256::digest(id.as_bytes()))[..8]
    )
}

/// Shell-style quoting for the log.
fn quote(a: &str) -> String {
    if !a.is_empty()
        && a.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
    {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', "'\\''"))
    }
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// SHA-256 of the running executable: a resumed run reuses only results of the same build.
pub(crate) fn exe_digest(exe: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(exe).with_context(|| format!("cannot read {}", exe.display()))?;
    Ok(hex::encode(Sha256::digest(&bytes)))
}

/// Make `out` a regress output directory: new, empty, or one we wrote before.
fn claim_dir(out: &Path, plan: &Plan) -> anyhow::Result<()> {
    if out.exists() {
        if !out.is_dir() {
            bail!("{} is not a directory", out.display());
        }
        let mut entries =
            std::fs::read_dir(out).with_context(|| format!("cannot read {}", out.display()))?;
        if !out.join(MARKER).is_file() && entries.next().is_some() {
            bail!(
                "{} is not empty and is not a `regress run` output; not writing into it (give a new directory)",
                out.display()
            );
        }
    }
    std::fs::create_dir_all(out.join("jobs"))
        .with_context(|| format!("cannot create {}", out.display()))?;
    std::fs::write(out.join(MARKER), format!("{}\n", plan.name))
        .with_context(|| format!("cannot write in {}", out.display()))?;
    Ok(())
}

/// Write a file through a temporary name, so a reader never sees half of it.
fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    edgelearn_sim::files::write_atomic(path, text)
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The directory a job's coverage counts go to (`regress run --coverage`).
pub(super) const JOB_COVERAGE: &str = "coverage";

pub(super) fn run_shard(a: RunArgs) -> anyhow::Result<ExitCode> {
    let t0 = Instant::now();
    let plan = load_plan(&a.file, a.timings.as_deref())?;
    let jobs = select(&plan, a.shard, &a.filter);
    let filter = (!a.filter.is_empty()).then(|| a.filter.join(" | "));
    claim_dir(&a.out, &plan)?;
    let out = std::path::absolute(&a.out)?;
    let exe = std::env::current_exe().context("cannot find the edgelearn executable")?;
    let exe_sha = exe_digest(&exe)?;
    // A run with coverage is another attempt than one without (its models differ).
    let cov = if a.coverage { " coverage" } else { "" };
    let fingerprint =
        |j: &Job| hex::encode(Sha256::digest(format!("{}{exe_sha}{cov}", j.digest())));

    let (mut done, mut todo) = earlier_results(&jobs, &out, &a, &fingerprint);
    let mut summary = Summary {
        format: FORMAT,
        regress: plan.name.clone(),
        file: a.file.display().to_string(),
        plan_sha256: plan.digest(),
        shard: a.shard,
        all_jobs: plan.jobs.iter().map(|j| j.id.clone()).collect(),
        planned: jobs.iter().map(|j| j.id.clone()).collect(),
        results: vec![],
        seconds: 0.0,
        host: host(),
        filter: filter.clone(),
    };
    let write_summary = |s: &mut Summary, done: &BTreeMap<String, JobResult>| {
        s.results = s
            .planned
            .iter()
            .filter_map(|id| done.get(id).cloned())
            .collect();
        s.seconds = t0.elapsed().as_secs_f64();
        write_atomic(
            &out.join("summary.json"),
            &(serde_json::to_string_pretty(s).expect("summary serializes") + "\n"),
        )
    };
    write_summary(&mut summary, &done)?;
    eprintln!(
        "regress `{}` shard {}: {} of {} jobs{}, {} resumed, {} to run with {} at a time; output in {}",
        plan.name,
        a.shard,
        jobs.len(),
        plan.jobs.len(),
        filter.as_deref().map(|f| format!(" matching `{f}`")).unwrap_or_default(),
        done.len(),
        todo.len(),
        a.jobs,
        out.display()
    );

    // Longest first, so the tail of the run is short jobs.
    todo.sort_by(|x, y| y.cost.total_cmp(&x.cost));
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(todo.len() as u64)
    };
    bar.set_style(
        ProgressStyle::with_template("[{elapsed_precise}] [{bar:30}] {pos}/{len} jobs {msg}")
            .expect("template")
            .progress_chars("=> "),
    );
    let queue = Arc::new(Mutex::new(todo.into_iter().cloned().collect::<Vec<Job>>()));
    let running = Arc::new(Mutex::new(BTreeSet::<String>::new()));
    let (tx, rx) = mpsc::channel::<anyhow::Result<JobResult>>();
    let mut failed = done.values().filter(|r| r.verdict != Verdict::Pass).count();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for _ in 0..a.jobs {
            let (queue, running, tx) = (queue.clone(), running.clone(), tx.clone());
            let ctx = JobContext {
                exe: &exe,
                root: &plan.root,
                out: &out,
                shard: a.shard.index,
                coverage: a.coverage,
            };
            let fingerprint = &fingerprint;
            scope.spawn(move || loop {
                let Some(job) = queue.lock().expect("queue").pop_front_longest() else {
                    break;
                };
                running.lock().expect("running").insert(job.id.clone());
                let r = ctx.run(&job, fingerprint(&job));
                running.lock().expect("running").remove(&job.id);
                if tx.send(r).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(r) => {
                    let r = match r {
                        Ok(r) => r,
                        Err(e) => {
                            // The shard cannot go on (its directory is unwritable): start
                            // nothing more, let the running jobs end.
                            queue.lock().expect("queue").clear();
                            return Err(e);
                        }
                    };
                    if r.verdict != Verdict::Pass {
                        failed += 1;
                        bar.println(format!(
                            "{} {}: {} ({})",
                            r.verdict.as_str().to_uppercase(),
                            r.id,
                            r.message,
                            r.log
                        ));
                    } else if a.quiet {
                        eprintln!("pass {} ({:.1} s)", r.id, r.seconds);
                    }
                    done.insert(r.id.clone(), r);
                    write_summary(&mut summary, &done)?;
                    bar.inc(1);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            let now = running_names(&running.lock().expect("running"));
            let sep = if now.is_empty() { "" } else { " | running " };
            bar.set_message(format!("{failed} failed{sep}{now}"));
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    write_summary(&mut summary, &done)?;
    write_reports(&out, &summary)
}

/// The results of an earlier run of this shard with the same jobs and the same edgelearn
/// (kept, marked resumed), and the jobs still to run. `--fresh` forgets them.
fn earlier_results<'p>(
    jobs: &[&'p Job],
    out: &Path,
    a: &RunArgs,
    fingerprint: &dyn Fn(&Job) -> String,
) -> (BTreeMap<String, JobResult>, Vec<&'p Job>) {
    let mut done = BTreeMap::new();
    let mut todo = vec![];
    for j in jobs {
        let dir = out.join("jobs").join(slug(&j.id));
        if a.fresh {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let prev = std::fs::read_to_string(dir.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<JobResult>(&t).ok())
            .filter(|r| r.fingerprint == fingerprint(j) && r.shard == a.shard.index);
        match prev {
            Some(mut r) => {
                r.resumed = true;
                done.insert(r.id.clone(), r);
            }
            None => todo.push(*j),
        }
    }
    (done, todo)
}

/// The first three running jobs, and how many more.
fn running_names(r: &BTreeSet<String>) -> String {
    let v: Vec<&str> = r.iter().map(String::as_str).take(3).collect();
    let more = r.len().saturating_sub(3);
    v.join(", ")
        + &if more > 0 {
            format!(" +{more}")
        } else {
            String::new()
        }
}

/// junit.xml and summary.md of one shard's run; exit 1 unless every job passed.
fn write_reports(out: &Path, summary: &Summary) -> anyhow::Result<ExitCode> {
    let merged = report::merge(std::slice::from_ref(summary)).map_err(anyhow::Error::msg)?;
    let xml = report::junit(&summary.regress, &summary.results, &|r| log_tail(out, r));
    write_atomic(&out.join("junit.xml"), &xml)?;
    let md = report::markdown(&merged);
    write_atomic(&out.join("summary.md"), &md)?;
    let t = summary.totals();
    println!(
        "regress `{}` shard {}: {} jobs, {} passed, {} failed, {} errors in {}; {}",
        summary.regress,
        summary.shard,
        t.jobs,
        t.pass,
        t.fail,
        t.error,
        report::duration(summary.seconds),
        out.join("junit.xml").display()
    );
    Ok(if t.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The last lines of a job's log (for JUnit's system-out).
fn log_tail(out: &Path, r: &JobResult) -> String {
    if r.log.is_empty() || r.verdict == Verdict::Pass {
        return String::new();
    }
    let text = std::fs::read_to_string(out.join(&r.log)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

trait PopLongest {
    fn pop_front_longest(&mut self) -> Option<Job>;
}

impl PopLongest for Vec<Job> {
    /// The queue is sorted longest first.
    fn pop_front_longest(&mut self) -> Option<Job> {
        (!self.is_empty()).then(|| self.remove(0))
    }
}

/// What a worker needs to run jobs.
#[derive(Copy, Clone)]
struct JobContext<'a> {
    exe: &'a Path,
    root: &'a Path,
    out: &'a Path,
    shard: usize,
    coverage: bool,
}

/// How one step ended.
enum Ended {
    Exit(i32),
    Signal(i32),
    TimedOut,
}

impl JobContext<'_> {
    /// Run a job's steps in its directory, log everything, check what it wrote.
    fn run(&self, job: &Job, fingerprint: String) -> anyhow::Result<JobResult> {
        let rel = Path::new("jobs").join(slug(&job.id));
        let dir = self.out.join(&rel);
        // What an earlier attempt left (checkpoints, reports) is kept only when it was the same
        // job run by the same edgelearn: another build must not resume a stale checkpoint.
        let mark = dir.join("fingerprint");
        if std::fs::read_to_string(&mark).ok().as_deref() != Some(fingerprint.as_str()) {
            let _ = std::fs::remove_dir_all(&dir);
        }
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        std::fs::write(&mark, &fingerprint)
            .with_context(|| format!("cannot write {}", mark.display()))?;
        // Reports of an earlier, interrupted attempt must not be read as this one's
        // (checkpoints stay: they are how a long job resumes).
        for c in &job.checks {
            let _ = std::fs::remove_file(dir.join(&c.file));
        }
        let _ = std::fs::remove_file(dir.join(REPORT));
        // Coverage counts of an interrupted attempt would be counted twice.
        let _ = std::fs::remove_dir_all(dir.join(JOB_COVERAGE));
        let log_path = dir.join("log.txt");
        let mut log = File::create(&log_path)
            .with_context(|| format!("cannot write {}", log_path.display()))?;
        let t = Instant::now();
        let dir_s = dir.to_string_lossy().into_owned();
        let mut result = JobResult {
            id: job.id.clone(),
            kind: job.kind().to_string(),
            verdict: Verdict::Pass,
            expected: job.expect,
            exit_code: None,
            message: String::new(),
            seconds: 0.0,
            cost: job.cost,
            shard: self.shard,
            log: rel.join("log.txt").to_string_lossy().into_owned(),
            checks: vec![],
            fingerprint,
            resumed: false,
        };
        let deadline = t + Duration::from_secs_f64(job.timeout);
        let steps = steps(job);
        for (i, step) in steps.iter().enumerate() {
            let last = i + 1 == steps.len();
            let args: Vec<String> = step.iter().map(|a| a.replace(JOB_DIR, &dir_s)).collect();
            let shown: Vec<String> = args.iter().map(|a| quote(a)).collect();
            writeln!(log, "$ edgelearn {}", shown.join(" "))?;
            log.flush()?;
            let ended = self.spawn(&args, &log, deadline, &dir)?;
            let want = if last { exit_code(job.expect) } else { 0 };
            let what = format!(
                "`edgelearn {}`",
                args.iter().take(2).cloned().collect::<Vec<_>>().join(" ")
            );
            match ended {
                Ended::Exit(code) => {
                    writeln!(log, "[exit {code}]")?;
                    result.exit_code = Some(code);
                    if code != want {
                        // A verification outcome (0, 1, or a refusal that was asked for) that
                        // is not the expected one is a failure; an unasked-for error or a
                        // panic means the job could not run.
                        result.verdict = match code {
                            0 | 1 => Verdict::Fail,
                            2 if want != 2 => Verdict::Error,
                            2 => Verdict::Fail,
                            _ => Verdict::Error,
                        };
                        result.message = format!(
                            "{what} exited {code}, expected {want}: {}",
                            last_message(&log_path)
                        );
                        break;
                    }
                }
                Ended::Signal(s) => {
                    writeln!(log, "[killed by signal {s}]")?;
                    result.verdict = Verdict::Error;
                    result.message = format!(
                        "{what} was killed by signal {s}: {}",
                        last_message(&log_path)
                    );
                    break;
                }
                Ended::TimedOut => {
                    writeln!(
                        log,
                        "[stopped after the job's timeout of {} s]",
                        job.timeout
                    )?;
                    result.verdict = Verdict::Error;
                    result.message =
                        format!("{what} timed out (the job's timeout is {} s)", job.timeout);
                    break;
                }
            }
        }
        if result.verdict == Verdict::Pass && job.expect == Expect::Pass {
            let read = |f: &str| -> Result<serde_json::Value, String> {
                let p = dir.join(f);
                let text =
                    std::fs::read_to_string(&p).map_err(|e| format!("cannot read {f}: {e}"))?;
                serde_json::from_str(&text).map_err(|e| format!("{f} is not JSON: {e}"))
            };
            result.checks = job
                .checks
                .iter()
                .map(|c| report::evaluate(c, &read))
                .collect();
            if let Some(bad) = result.checks.iter().find(|c| !c.ok) {
                result.verdict = Verdict::Fail;
                result.message = format!("check {} failed: got {}", bad.check, bad.got);
            }
            for c in &result.checks {
                writeln!(
                    log,
                    "[check {}: {} (got {})]",
                    c.check,
                    if c.ok { "ok" } else { "FAILED" },
                    c.got
                )?;
            }
        }
        if result.verdict == Verdict::Pass {
            result.message = pass_message(job, &result.checks);
        }
        result.seconds = t.elapsed().as_secs_f64();
        write_atomic(
            &dir.join("result.json"),
            &(serde_json::to_string_pretty(&result).expect("result serializes") + "\n"),
        )?;
        Ok(result)
    }

    /// One `edgelearn` process, output appended to the log, stopped at the deadline.
    fn spawn(
        &self,
        args: &[String],
        log: &File,
        deadline: Instant,
        dir: &Path,
    ) -> anyhow::Result<Ended> {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut cmd = Command::new(self.exe);
        // External tools get the job's time too; each process runs one simulator.
        cmd.arg("--tool-timeout")
            .arg(format!("{:.0}", left.as_secs_f64().max(1.0)));
        if self.coverage {
            cmd.arg("--coverage-dir").arg(dir.join(JOB_COVERAGE));
        }
        let mut child = cmd
            .args(args)
            .current_dir(self.root)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log.try_clone()?)
            .env("RUST_BACKTRACE", "1")
            .spawn()
            .with_context(|| format!("cannot start {}", self.exe.display()))?;
        let mut nap = Duration::from_millis(5);
        loop {
            if let Some(status) = child.try_wait()? {
                return Ok(ended(status));
            }
            if Instant::now() >= deadline {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(Ended::TimedOut);
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(100));
        }
    }
}

fn ended(status: ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(s) = status.signal() {
            return Ended::Signal(s);
        }
    }
    Ended::Exit(status.code().unwrap_or(-1))
}

/// The line of the log that says what went wrong: the last `error:` line, else the last
/// line with a mismatch or divergence, else the last line.
fn last_message(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("$ edgelearn") && !l.starts_with("[exit"))
        .collect();
    let pick = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("error"))
        .or_else(|| {
            lines.iter().rev().find(|l| {
                let l = l.to_lowercase();
                l.contains("mismatch") || l.contains("diverge") || l.contains("expected")
            })
        })
        .or(lines.last());
    let s = pick.copied().unwrap_or("(no output)");
    s.chars().take(300).collect()
}

fn pass_message(job: &Job, checks: &[CheckResult]) -> String {
    let mut m = match job.expect {
        Expect::Pass => "passed".to_string(),
        Expect::Fail => "failed as expected (exit 1)".to_string(),
        Expect::Error => "refused as expected (exit 2)".to_string(),
    };
    if !checks.is_empty() {
        m += &format!(", {} check(s) held", checks.len());
    }
    m
}

fn list(
    file: &Path,
    shard: Option<Shard>,
    shards: Option<usize>,
    timings: Option<&Path>,
    commands: bool,
) -> anyhow::Result<ExitCode> {
    let plan = load_plan(file, timings)?;
    let count = shard.map(|s| s.count).or(shards).unwrap_or(1);
    if count == 0 {
        bail!("--shards must be at least 1");
    }
    let of = shards_of(&plan, count);
    let mut load = vec![(0usize, 0.0f64); count];
    println!("{:<56} {:<9} {:>9} {:>6}", "job", "kind", "est. s", "shard");
    for (j, &s) in plan.jobs.iter().zip(&of) {
        load[s].0 += 1;
        load[s].1 += j.cost;
        if shard.is_some_and(|x| x.index != s + 1) {
            continue;
        }
        println!(
            "{:<56} {:<9} {:>9.1} {:>6}",
            j.id,
            j.kind(),
            j.cost,
            format!("{}/{count}", s + 1)
        );
        if commands {
            for step in &steps(j) {
                let shown: Vec<String> = step.iter().map(|a| quote(a)).collect();
                println!("    edgelearn {}", shown.join(" "));
            }
        }
    }
    for (i, (n, c)) in load.iter().enumerate() {
        eprintln!(
            "shard {}/{count}: {n} jobs, about {}",
            i + 1,
            report::duration(*c)
        );
    }
    eprintln!(
        "{} jobs in `{}`, plan {}",
        plan.jobs.len(),
        plan.name,
        &plan.digest()[..12]
    );
    Ok(ExitCode::SUCCESS)
}

fn merge(dirs: &[PathBuf], out: Option<&Path>, force: bool) -> anyhow::Result<ExitCode> {
    let mut summaries = vec![];
    for d in dirs {
        let p = d.join("summary.json");
        let text = std::fs::read_to_string(&p).with_context(|| {
            format!(
                "cannot read {} (is {} a `regress run` output?)",
                p.display(),
                d.display()
            )
        })?;
        let mut s: Summary = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a regress summary", p.display()))?;
        // Logs are named relative to their shard's directory; the merged report names them
        // relative to where it is written (or absolute).
        for r in &mut s.results {
            if !r.log.is_empty() {
                let abs = std::path::absolute(d.join(&r.log))?;
                r.log = match out.and_then(|o| std::path::absolute(o).ok()) {
                    Some(o) => relative(&abs, &o),
                    None => abs.display().to_string(),
                };
            }
        }
        summaries.push(s);
    }
    let m = report::merge(&summaries).map_err(anyhow::Error::msg)?;
    let md = report::markdown(&m);
    if let Some(o) = out {
        let files = ["junit.xml", "summary.json", "summary.md"];
        if !force {
            if let Some(f) = files.iter().map(|f| o.join(f)).find(|p| p.exists()) {
                bail!("{} exists; not overwriting it (use --force)", f.display());
            }
        }
        std::fs::create_dir_all(o).with_context(|| format!("cannot create {}", o.display()))?;
        let abs = std::path::absolute(o)?;
        let xml = report::junit(&m.regress, &m.results, &|r| log_tail(&abs, r));
        write_atomic(&o.join("junit.xml"), &xml)?;
        write_atomic(
            &o.join("summary.json"),
            &(serde_json::to_string_pretty(&m).expect("merged serializes") + "\n"),
        )?;
        write_atomic(&o.join("summary.md"), &md)?;
    }
    println!("{md}");
    if let Some(o) = out {
        eprintln!("wrote {}/junit.xml, summary.json, summary.md", o.display());
        // The shards' coverage (`regress run --coverage`), merged beside the report.
        let jobs: Vec<PathBuf> = dirs.iter().map(|d| d.join("jobs")).collect();
        let with_coverage = jobs.iter().any(|j| {
            std::fs::read_dir(j)
                .into_iter()
                .flatten()
                .flatten()
                .any(|e| e.path().join(JOB_COVERAGE).is_dir())
        });
        if with_coverage {
            super::coverage::merge(&jobs, &o.join(JOB_COVERAGE), 3, None)?;
        }
    }
    Ok(if m.totals.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `path` relative to the directory `base` (both absolute).
fn relative(path: &Path, base: &Path) -> String {
    let p: Vec<_> = path.components().collect();
    let b: Vec<_> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut r = PathBuf::new();
    for _ in common..b.len() {
        r.push("..");
    }
    for c in &p[common..] {
        r.push(c);
    }
    r.display().to_string()
}
