//! Job results, the per-shard summary (JSON), merging shards, and the reports CI systems
//! read: JUnit XML and a Markdown summary with timings.

use super::plan::{Check, Expect, Rule};
use super::shard::Shard;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};

/// The format version of `summary.json`.
pub const FORMAT: u32 = 1;

/// How a job ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// As expected, every check held.
    Pass,
    /// A verification failure: an unexpected exit 0/1, or a check that did not hold.
    Fail,
    /// The job could not run: exit 2 not expected, a crash, a timeout, a missing report, or
    /// (after a merge) no shard ran it.
    Error,
}

impl Verdict {
    /// `pass`, `fail`, `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Error => "error",
        }
    }
}

/// One check's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The check as text.
    pub check: String,
    /// Whether it held.
    pub ok: bool,
    /// What was found (the value, its digest, or why it could not be read).
    pub got: String,
}

/// One job's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobResult {
    /// Job name.
    pub id: String,
    /// Job kind.
    pub kind: String,
    /// The verdict.
    pub verdict: Verdict,
    /// What the last step was expected to exit with.
    pub expected: Expect,
    /// The exit code of the step that ended the job (none: killed or not started).
    pub exit_code: Option<i32>,
    /// One line: why it failed, or what it measured.
    pub message: String,
    /// Wall seconds.
    pub seconds: f64,
    /// The estimate it was scheduled with.
    pub cost: f64,
    /// The shard that ran it (1-based).
    pub shard: usize,
    /// Its log, relative to the shard's output directory.
    pub log: String,
    /// The checks.
    pub checks: Vec<CheckResult>,
    /// Digest of the job and of the binary that ran it (a resumed run reuses a result only
    /// when this matches).
    pub fingerprint: String,
    /// Taken from an earlier, interrupted run of the same shard.
    pub resumed: bool,
}

/// What one `regress run` wrote to `DIR/summary.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// [`FORMAT`].
    pub format: u32,
    /// `[regress] name`.
    pub regress: String,
    /// The regression file as given.
    pub file: String,
    /// [`super::Plan::digest`]: shards of one plan agree on it.
    pub plan_sha256: String,
    /// Which shard.
    pub shard: Shard,
    /// Every job of the plan, in plan order (to find jobs no shard ran).
    pub all_jobs: Vec<String>,
    /// The jobs of this shard (selected by `--filter` too), in plan order.
    pub planned: Vec<String>,
    /// Their results (a job that never finished has none).
    pub results: Vec<JobResult>,
    /// Wall seconds of the run.
    pub seconds: f64,
    /// The machine.
    pub host: String,
    /// The `--filter`, if any (merged shards must agree).
    pub filter: Option<String>,
}

impl Summary {
    /// Jobs per verdict.
    pub fn totals(&self) -> Totals {
        Totals::of(&self.results, self.planned.len())
    }
}

/// Counts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Totals {
    /// Planned jobs.
    pub jobs: usize,
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Errors (including jobs that have no result).
    pub error: usize,
}

impl Totals {
    fn of(results: &[JobResult], planned: usize) -> Totals {
        let mut t = Totals {
            jobs: planned,
            ..Totals::default()
        };
        for r in results {
            match r.verdict {
                Verdict::Pass => t.pass += 1,
                Verdict::Fail => t.fail += 1,
                Verdict::Error => t.error += 1,
            }
        }
        t.error += planned.saturating_sub(results.len());
        t
    }

    /// Every planned job passed.
    pub fn ok(&self) -> bool {
        self.pass == self.jobs
    }
}

/// Evaluate a check; `read` loads a JSON file of the job by its relative name.
pub fn evaluate(check: &Check, read: &dyn Fn(&str) -> Result<Json, String>) -> CheckResult {
    let fetch = |file: &str, pointer: &str| -> Result<Json, String> {
        let doc = read(file)?;
        doc.pointer(pointer)
            .cloned()
            .ok_or_else(|| format!("{file} has no `{pointer}`"))
    };
    let (ok, got) = match fetch(&check.file, &check.pointer) {
        Err(e) => (false, e),
        Ok(v) => match &check.rule {
            Rule::Equals(want) => (values_equal(&v, want), v.to_string()),
            Rule::Min(x) => match v.as_f64() {
                Some(g) => (g >= *x, g.to_string()),
                None => (false, format!("{v} is not a number")),
            },
            Rule::Max(x) => match v.as_f64() {
                Some(g) => (g <= *x, g.to_string()),
                None => (false, format!("{v} is not a number")),
            },
            Rule::Sha256(want) => {
                let h = json_sha256(&v);
                (&h == want, h)
            }
            Rule::SameAs { file, pointer } => match fetch(file, pointer) {
                Ok(other) => (values_equal(&v, &other), format!("{v} vs {other}")),
                Err(e) => (false, e),
            },
        },
    };
    CheckResult {
        check: check.to_string(),
        ok,
        got: shorten(&got, 200),
    }
}

/// Numbers compare by value (TOML's 1 equals JSON's 1.0); the rest structurally.
fn values_equal(a: &Json, b: &Json) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

/// SHA-256 (hex) of a value's compact JSON text: how `sha256` checks pin outputs.
pub fn json_sha256(v: &Json) -> String {
    hex::encode(Sha256::digest(v.to_string().as_bytes()))
}

fn shorten(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "..."
    }
}

/// Several shards' summaries as one regression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Merged {
    /// `[regress] name`.
    pub regress: String,
    /// The plan they share.
    pub plan_sha256: String,
    /// Per shard: which, its jobs, its wall seconds, its host.
    pub shards: Vec<ShardInfo>,
    /// Every job in plan order; jobs no shard ran are errors.
    pub results: Vec<JobResult>,
    /// Counts.
    pub totals: Totals,
}

/// One merged shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardInfo {
    /// Which.
    pub shard: Shard,
    /// Jobs planned.
    pub jobs: usize,
    /// Wall seconds.
    pub seconds: f64,
    /// Machine.
    pub host: String,
}

/// Merge shard summaries: they must come from one plan (same digest, filter and shard
/// count), no shard twice, no job in two shards. A job of the plan that no summary ran is
/// reported as an error naming the shards that are missing.
pub fn merge(summaries: &[Summary]) -> Result<Merged, String> {
    let first = summaries.first().ok_or("nothing to merge")?;
    let mut shards = BTreeMap::new();
    let mut results: BTreeMap<String, JobResult> = BTreeMap::new();
    let mut planned = BTreeSet::new();
    for s in summaries {
        if s.format != FORMAT {
            return Err(format!(
                "summary format {} (this edgelearn reads {FORMAT})",
                s.format
            ));
        }
        if s.plan_sha256 != first.plan_sha256 || s.all_jobs != first.all_jobs {
            return Err(format!(
                "shard {} ran another regression plan than shard {} ({} vs {}): merge shards of one file and one edgelearn",
                s.shard, first.shard, &s.plan_sha256[..12.min(s.plan_sha256.len())], &first.plan_sha256[..12.min(first.plan_sha256.len())]
            ));
        }
        if s.filter != first.filter {
            return Err(format!(
                "shard {} ran with filter {:?}, shard {} with {:?}",
                s.shard, s.filter, first.shard, first.filter
            ));
        }
        if s.shard.count != first.shard.count {
            return Err(format!(
                "shard {} and shard {} split the plan differently",
                s.shard, first.shard
            ));
        }
        if shards.insert(s.shard.index, s).is_some() {
            return Err(format!("shard {} is given twice", s.shard));
        }
        for id in &s.planned {
            if !planned.insert(id.clone()) {
                return Err(format!("job `{id}` is planned by two shards"));
            }
        }
        for r in &s.results {
            results.insert(r.id.clone(), r.clone());
        }
    }
    let missing_shards: Vec<String> = (1..=first.shard.count)
        .filter(|i| !shards.contains_key(i))
        .map(|i| format!("{i}/{}", first.shard.count))
        .collect();
    let filter = first.filter.as_deref();
    let mut out = vec![];
    for id in &first.all_jobs {
        if let Some(r) = results.remove(id) {
            out.push(r);
        } else if planned.contains(id) || filter.is_none_or(|f| id.contains(f)) {
            let why = if planned.contains(id) {
                "its shard stopped before it finished".to_string()
            } else {
                format!("not run: no results of shard {}", missing_shards.join(", "))
            };
            out.push(JobResult {
                id: id.clone(),
                kind: id.split('/').next().unwrap_or("").to_string(),
                verdict: Verdict::Error,
                expected: Expect::Pass,
                exit_code: None,
                message: why,
                seconds: 0.0,
                cost: 0.0,
                shard: 0,
                log: String::new(),
                checks: vec![],
                fingerprint: String::new(),
                resumed: false,
            });
        }
    }
    let totals = Totals::of(&out, out.len());
    Ok(Merged {
        regress: first.regress.clone(),
        plan_sha256: first.plan_sha256.clone(),
        shards: shards
            .values()
            .map(|s| ShardInfo {
                shard: s.shard,
                jobs: s.planned.len(),
                seconds: s.seconds,
                host: s.host.clone(),
            })
            .collect(),
        results: out,
        totals,
    })
}

/// XML 1.0 allows tab, newline and carriage return among the control characters.
fn xml_clean(s: &str) -> String {
    s.chars()
        .filter(|&c| c == '\t' || c == '\n' || c == '\r' || !c.is_control())
        .collect()
}

fn secs(x: f64) -> String {
    format!("{x:.3}")
}

/// JUnit XML (the schema Jenkins, GitHub and GitLab read): one `<testsuite>` per job kind,
/// one `<testcase>` per job, `<failure>` for a failed verification and `<error>` for a job
/// that could not run, the tail of its log in `<system-out>`. `log_tail` gives that text.
pub fn junit(name: &str, results: &[JobResult], log_tail: &dyn Fn(&JobResult) -> String) -> String {
    let mut kinds: BTreeMap<&str, Vec<&JobResult>> = BTreeMap::new();
    for r in results {
        kinds.entry(r.kind.as_str()).or_default().push(r);
    }
    let count = |rs: &[&JobResult], v: Verdict| rs.iter().filter(|r| r.verdict == v).count();
    let all: Vec<&JobResult> = results.iter().collect();
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    let io = |e: std::io::Error| e.to_string();
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))
        .map_err(io)
        .expect("writing to memory");
    w.create_element("testsuites")
        .with_attributes([
            ("name", name),
            ("tests", &all.len().to_string()),
            ("failures", &count(&all, Verdict::Fail).to_string()),
            ("errors", &count(&all, Verdict::Error).to_string()),
            ("time", &secs(results.iter().map(|r| r.seconds).sum())),
        ])
        .write_inner_content(|w| {
            for (kind, rs) in &kinds {
                let suite = format!("{name}.{kind}");
                w.create_element("testsuite")
                    .with_attributes([
                        ("name", suite.as_str()),
                        ("tests", &rs.len().to_string()),
                        ("failures", &count(rs, Verdict::Fail).to_string()),
                        ("errors", &count(rs, Verdict::Error).to_string()),
                        ("skipped", "0"),
                        ("time", &secs(rs.iter().map(|r| r.seconds).sum())),
                    ])
                    .write_inner_content(|w| {
                        for r in rs {
                            let case = w.create_element("testcase").with_attributes([
                                ("name", r.id.as_str()),
                                ("classname", suite.as_str()),
                                ("time", &secs(r.seconds)),
                            ]);
                            if r.verdict == Verdict::Pass {
                                case.write_empty()?;
                                continue;
                            }
                            case.write_inner_content(|w| {
                                let (tag, ty) = match r.verdict {
                                    Verdict::Fail => ("failure", "mismatch"),
                                    _ => ("error", "error"),
                                };
                                w.create_element(tag)
                                    .with_attributes([
                                        ("message", xml_clean(&r.message).as_str()),
                                        ("type", ty),
                                    ])
                                    .write_text_content(BytesText::new(&xml_clean(
                                        &failure_text(r),
                                    )))?;
                                let tail = log_tail(r);
                                if !tail.is_empty() {
                                    w.create_element("system-out")
                                        .write_text_content(BytesText::new(&xml_clean(&tail)))?;
                                }
                                Ok(())
                            })?;
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        })
        .expect("writing to memory");
    String::from_utf8(w.into_inner()).expect("UTF-8") + "\n"
}

/// The message, the exit code and the checks that did not hold.
fn failure_text(r: &JobResult) -> String {
    let mut t = format!(
        "{}\nexit code: {} (expected to {})\n",
        r.message,
        r.exit_code.map_or("none".into(), |c| c.to_string()),
        match r.expected {
            Expect::Pass => "pass",
            Expect::Fail => "fail",
            Expect::Error => "be refused",
        }
    );
    for c in r.checks.iter().filter(|c| !c.ok) {
        t += &format!("check {} failed: got {}\n", c.check, c.got);
    }
    if !r.log.is_empty() {
        t += &format!("log: {}\n", r.log);
    }
    t
}

/// `1h 02m`, `3m 04s`, `5.2 s`.
pub fn duration(s: f64) -> String {
    let t = s.round() as u64;
    if t >= 3600 {
        format!("{}h {:02}m", t / 3600, t % 3600 / 60)
    } else if t >= 60 {
        format!("{}m {:02}s", t / 60, t % 60)
    } else {
        format!("{s:.1} s")
    }
}

/// A Markdown report: verdicts, the shards with their wall times, what failed and why,
/// every job with its time, and the slowest jobs (where a shard's time went).
pub fn markdown(m: &Merged) -> String {
    let t = &m.totals;
    let busy: f64 = m.results.iter().map(|r| r.seconds).sum();
    let wall = m.shards.iter().map(|s| s.seconds).fold(0.0, f64::max);
    let mut o = format!(
        "# Regression `{}`: {} jobs, {} passed, {} failed, {} errors\n\n",
        m.regress, t.jobs, t.pass, t.fail, t.error
    );
    o += &format!(
        "{} shard(s); {} of job time; the longest shard took {}. Plan {}.\n\n",
        m.shards.len(),
        duration(busy),
        duration(wall),
        &m.plan_sha256[..12.min(m.plan_sha256.len())]
    );
    o += "| shard | jobs | wall time | host |\n|---|---:|---:|---|\n";
    for s in &m.shards {
        o += &format!(
            "| {} | {} | {} | {} |\n",
            s.shard,
            s.jobs,
            duration(s.seconds),
            s.host
        );
    }
    let bad: Vec<&JobResult> = m
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Pass)
        .collect();
    if !bad.is_empty() {
        o += "\n## Failures\n\n| job | verdict | why | log |\n|---|---|---|---|\n";
        for r in &bad {
            o += &format!(
                "| `{}` | {} | {} | {} |\n",
                r.id,
                r.verdict.as_str(),
                md_cell(&r.message),
                r.log
            );
        }
    }
    let mut slow: Vec<&JobResult> = m.results.iter().collect();
    slow.sort_by(|a, b| b.seconds.total_cmp(&a.seconds).then(a.id.cmp(&b.id)));
    o += "\n## Slowest jobs\n\n| job | seconds | estimate | shard |\n|---|---:|---:|---:|\n";
    for r in slow.iter().take(10) {
        o += &format!(
            "| `{}` | {:.1} | {:.1} | {} |\n",
            r.id, r.seconds, r.cost, r.shard
        );
    }
    o += "\n## All jobs\n\n| job | kind | verdict | seconds | shard | message |\n|---|---|---|---:|---:|---|\n";
    for r in &m.results {
        o += &format!(
            "| `{}` | {} | {} | {:.1} | {} | {} |\n",
            r.id,
            r.kind,
            r.verdict.as_str(),
            r.seconds,
            r.shard,
            md_cell(&r.message)
        );
    }
    o
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(pointer: &str, rule: Rule) -> Check {
        Check {
            file: "r.json".into(),
            pointer: pointer.into(),
            rule,
        }
    }

    fn result(id: &str, verdict: Verdict, message: &str) -> JobResult {
        JobResult {
            id: id.into(),
            kind: "cli".into(),
            verdict,
            expected: Expect::Pass,
            exit_code: Some(1),
            message: message.into(),
            seconds: 1.5,
            cost: 2.0,
            shard: 1,
            log: "jobs/x/log.txt".into(),
            checks: vec![],
            fingerprint: String::new(),
            resumed: false,
        }
    }

    #[test]
    fn rules() {
        let doc = json!({"a": 1, "b": [1, 2], "s": "x", "f": 0.5, "g": {"s": "x"}});
        let read = |f: &str| -> Result<Json, String> {
            match f {
                "r.json" | "g.json" => Ok(doc.clone()),
                _ => Err(format!("cannot read {f}")),
            }
        };
        let ok = |c: Check| evaluate(&c, &read).ok;
        // TOML's 1.0 equals JSON's 1.
        assert!(ok(check("/a", Rule::Equals(json!(1.0)))));
        assert!(!ok(check("/a", Rule::Equals(json!(2)))));
        assert!(ok(check("/f", Rule::Min(0.5))) && !ok(check("/f", Rule::Min(0.51))));
        assert!(ok(check("/f", Rule::Max(0.5))) && !ok(check("/f", Rule::Max(0.49))));
        assert!(!ok(check("/s", Rule::Min(0.0))), "a string is not a number");
        assert!(ok(check("/b", Rule::Sha256(json_sha256(&json!([1, 2]))))));
        let same = |p: &str| Rule::SameAs {
            file: "g.json".into(),
            pointer: p.into(),
        };
        assert!(ok(check("/s", same("/g/s"))) && !ok(check("/a", same("/g/s"))));
        let missing = evaluate(&check("/nope", Rule::Min(0.0)), &read);
        assert!(
            !missing.ok && missing.got.contains("has no `/nope`"),
            "{missing:?}"
        );
        let c = Check {
            file: "gone.json".into(),
            ..check("/a", Rule::Min(0.0))
        };
        assert!(evaluate(&c, &read).got.contains("cannot read gone.json"));
    }

    #[test]
    fn junit_escapes_names_messages_and_control_characters() {
        let rs = vec![
            result(
                "a<b>&\"c\"",
                Verdict::Fail,
                "got <1> & \u{1b}[31mred\u{1b}[0m",
            ),
            result("ok", Verdict::Pass, ""),
            result("gone", Verdict::Error, "not run"),
        ];
        let xml = junit("n&m", &rs, &|_| "tail \u{7} with a bell".into());
        let mut reader = quick_xml::Reader::from_str(&xml);
        let mut names = vec![];
        loop {
            match reader.read_event().expect("well-formed XML") {
                quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)
                    if e.name().as_ref() == "testcase" =>
                {
                    let a = e.try_get_attribute("name").unwrap().unwrap();
                    names.push(
                        a.normalized_value(quick_xml::XmlVersion::Explicit1_0)
                            .unwrap()
                            .into_owned(),
                    );
                }
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        assert_eq!(names, vec!["a<b>&\"c\"", "ok", "gone"]);
        assert!(xml.contains("<failure") && xml.contains("<error") && !xml.contains('\u{1b}'));
        assert!(
            xml.contains(r#"tests="3" failures="1" errors="1""#),
            "{xml}"
        );
    }

    #[test]
    fn merge_names_missing_shards_and_refuses_mixed_plans() {
        let summary = |index: usize, planned: &[&str], results: Vec<JobResult>| Summary {
            format: FORMAT,
            regress: "r".into(),
            file: "r.toml".into(),
            plan_sha256: "p".repeat(64),
            shard: Shard { index, count: 3 },
            all_jobs: ["a", "b", "c"].iter().map(|s| s.to_string()).collect(),
            planned: planned.iter().map(|s| s.to_string()).collect(),
            results,
            seconds: 1.0,
            host: "h".into(),
            filter: None,
        };
        let s1 = summary(1, &["a"], vec![result("a", Verdict::Pass, "")]);
        // Shard 2 planned b but was stopped before it finished; shard 3 never reported.
        let s2 = summary(2, &["b"], vec![]);
        let m = merge(&[s1.clone(), s2]).unwrap();
        assert_eq!(
            m.totals,
            Totals {
                jobs: 3,
                pass: 1,
                fail: 0,
                error: 2
            }
        );
        assert!(m.results[1].message.contains("stopped before it finished"));
        assert!(m.results[2].message.contains("no results of shard 3/3"));
        let mut other = s1.clone();
        other.shard.index = 2;
        other.plan_sha256 = "q".repeat(64);
        assert!(merge(&[s1.clone(), other])
            .unwrap_err()
            .contains("another regression plan"));
        assert!(merge(&[s1.clone(), s1])
            .unwrap_err()
            .contains("given twice"));
    }
}
