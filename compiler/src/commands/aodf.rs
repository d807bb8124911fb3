//! `pcc profile aodf TPP BL`: attribution of definite flow ([TPP] §5), the accuracy of a `tpp`
//! profile against a `bl` profile of the same program: `100% − %overcount − %undercount`,
//! each path weighted by its length in blocks, after splitting both profiles' paths at every
//! edge either one ends paths at ([TPP] footnote 5). TPP's numbering depends on the edge profile
//! it was made from, which the `tpp` profile records; the CFGs come from the program's source.

use std::path::Path;

use pcc_profiler::profile::{Kinship, MAX_COLUMN, Mode, Profile, clipped, printable};
use pcc_profiler::tpp::{Aodf, profile_aodf};
use serde::Serialize;

use super::print_json;
use super::print_text;
use crate::profile_view::input::{load, profiled_program, read};
use crate::profiling::{cfg_hash, function_cfg};
use crate::{driver, lower};

/// The AoDF of one function, or why it was not computed.
#[derive(Serialize)]
struct FunctionAodf {
    name: String,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    aodf: Option<Aodf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    percent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
}

#[derive(Serialize)]
struct Report {
    tpp: String,
    bl: String,
    program: String,
    functions: Vec<FunctionAodf>,
    #[serde(flatten)]
    total: Aodf,
    percent: f64,
}

/// `pcc profile aodf`: per function and for the whole program. Exits with 1 when a profile
/// cannot be read, is of the wrong mode or program, or the program's source does not compile.
pub fn run(tpp_path: &Path, bl_path: &Path, json: bool) -> i32 {
    // The tpp profile's source is needed, not just warned about (below).
    let (Some(tpp), Some(bl)) = (read(tpp_path), load(bl_path)) else {
        return 1;
    };
    for (profile, path, mode) in [(&tpp, tpp_path, Mode::Tpp), (&bl, bl_path, Mode::Bl)] {
        if profile.mode != mode {
            eprintln!(
                "error: {}: a {} profile, but `pcc profile aodf TPP BL` takes a {mode} \
                 profile there",
                path.display(),
                profile.mode
            );
            return 1;
        }
    }
    if tpp.kinship(&bl) == Kinship::Other {
        eprintln!(
            "error: the tpp profile is of `{}` and the bl profile of `{}`: AoDF compares \
             profiles of the same program",
            printable(&tpp.program),
            printable(&bl.program)
        );
        return 1;
    }
    if tpp.args != bl.args {
        eprintln!(
            "pcc: note: the profiles come from runs with different arguments ({:?} and {:?}); \
             AoDF measures how well the tpp run's profile matches the bl run's",
            tpp.args, bl.args
        );
    }
    // AoDF needs the program's control-flow graphs.
    let Some((program, bytes)) = profiled_program(&tpp, tpp_path) else {
        return 1;
    };
    let checked = match driver::front_end_bytes(&program, &bytes) {
        Ok(checked) => checked,
        Err(failure) => return failure.report(),
    };
    let mir = lower::lower_program(&checked.program);
    let config = tpp.tpp.unwrap_or_default();
    let functions: Vec<FunctionAodf> = tpp
        .functions
        .iter()
        .map(|record| {
            let result = function_aodf(&mir, record, &bl, config);
            FunctionAodf {
                name: record.name.clone(),
                percent: result.as_ref().ok().map(Aodf::percent),
                aodf: result.as_ref().ok().copied(),
                skipped: result.err(),
            }
        })
        .collect();
    for f in &functions {
        if let Some(why) = &f.skipped {
            eprintln!("pcc: warning: function `{}` left out: {why}", f.name);
        }
    }
    let mut total = Aodf::default();
    for aodf in functions.iter().filter_map(|f| f.aodf) {
        total += aodf;
    }
    let report = Report {
        tpp: tpp_path.display().to_string(),
        bl: bl_path.display().to_string(),
        program: tpp.program.clone(),
        functions,
        percent: total.percent(),
        total,
    };
    if json {
        print_json(&report)
    } else {
        print_text(&render(&report))
    }
}

pub(super) fn function_aodf(
    mir: &crate::mir::Program,
    record: &pcc_profiler::profile::FunctionProfile,
    bl: &Profile,
    config: pcc_profiler::tpp::TppConfig,
) -> Result<Aodf, String> {
    let func = mir
        .functions
        .iter()
        .find(|f| f.name == record.name)
        .ok_or("the program has no such function")?;
    let bl_record = bl
        .function(&record.name)
        .ok_or("not in the bl profile (its run was cut short inside it?)")?;
    let hash = cfg_hash(mir, func);
    if record.cfg_hash != hash || bl_record.cfg_hash != hash {
        return Err(format!(
            "stale: cfg_hash {} in the tpp profile, {} in the bl profile, {hash} in the \
             program",
            record.cfg_hash, bl_record.cfg_hash
        ));
    }
    profile_aodf(&function_cfg(func).cfg, bl_record, record, config)
}

fn render(report: &Report) -> String {
    let mut out = format!(
        "attribution of definite flow of {} against {} ({}): 100% - overcount - undercount, \
         in block executions of the bl paths\n\n",
        report.tpp,
        report.bl,
        printable(&report.program)
    );
    // Names as the tables of `pcc profile show` have them: cut at MAX_COLUMN characters.
    let name = |f: &FunctionAodf| clipped(&f.name, MAX_COLUMN).into_owned();
    let name_width = report
        .functions
        .iter()
        .map(|f| name(f).chars().count())
        .chain([8])
        .max()
        .unwrap_or(8);
    out += &format!(
        "  {:<name_width$}  {:>14}  {:>12}  {:>12}  {:>8}\n",
        "function", "block execs", "overcount", "undercount", "AoDF"
    );
    let row = |name: &str, a: &Aodf| {
        format!(
            "  {name:<name_width$}  {:>14}  {:>12}  {:>12}  {:>7.2}%\n",
            a.total,
            a.overcount,
            a.undercount,
            a.percent()
        )
    };
    for f in &report.functions {
        match (&f.aodf, &f.skipped) {
            (Some(a), _) => out += &row(&name(f), a),
            (None, why) => {
                out += &format!(
                    "  {:<name_width$}  left out: {}\n",
                    name(f),
                    why.as_deref().unwrap_or("")
                )
            }
        }
    }
    out += &row("total", &report.total);
    out
}
