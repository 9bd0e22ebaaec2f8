//! Regressions that outgrow one machine: a TOML file of jobs ([`plan`]), split into
//! deterministic shards balanced by estimated cost ([`shard`]), each job's outcome and the
//! reports CI engines read, merged across shards ([`report`]). Running the jobs (their command
//! lines, processes, exit codes, logs, resume) is the command line's part (`edgelearn regress`, src/commands/regress.rs).

pub mod plan;
pub mod report;
pub mod shard;

pub use plan::{Check, Expect, Job, JobSpec, Plan, PlanError, Rule};
pub use report::{JobResult, Merged, Summary, Totals, Verdict};
pub use shard::{partition, Shard};
