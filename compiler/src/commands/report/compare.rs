//! `--compare Q`: the path spectra of the two runs side by side ([PFP] Fig. 8), with new,
//! vanished and changed paths marked by `pcc profile diff`'s comparison; for a tpp profile
//! compared with a bl one, the attribution of definite flow ([TPP] §5) instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use pcc_profiler::profile::{self, FunctionComparison, FunctionProfile, Mode, Profile};
use pcc_profiler::tpp::Aodf;

use super::escape;
use super::html::{PATHS_SHOWN, more_button, percent};
use crate::commands::aodf::function_aodf;
use crate::commands::paths::compact_lines;
use crate::profile_view::ProgramView;

/// Rows of a function's spectra written into the page at most.
const SPECTRUM_ROWS: usize = 300;
/// How far a path's share of its function's executions must move between the runs for the
/// comparison to mark it changed (a percentage point, as the page says): two runs of different lengths change every count, not every
/// share.
const CHANGED_SHARE: f64 = 0.01;

pub fn compare_section(view: &ProgramView, other: &Profile, other_path: &Path) -> String {
    let a = &view.profile;
    match (a.mode, other.mode) {
        (Mode::Tpp, Mode::Bl) => aodf(view, other, other_path),
        _ => match profile::diff(a, other) {
            Ok(diff) => spectra(view, other, other_path, &diff),
            Err(error) => format!(
                "<section id=\"compare\"><p class=\"warning\">Not compared with {}: {}</p></section>",
                escape(&other_path.display().to_string()),
                escape(&error.to_string())
            ),
        },
    }
}

fn aodf(view: &ProgramView, bl: &Profile, bl_path: &Path) -> String {
    let config = view.profile.tpp.unwrap_or_default();
    let mut out = format!(
        "<section id=\"compare\"><h2>Attribution of definite flow against {}</h2><p>How much of \
         the bl profile's flow (in block executions) the tpp profile attributes to the right \
         paths: 100% − overcount − undercount ([TPP] §5).</p><table class=\"modes\"><tr>\
         <th>function</th><th>block executions</th><th>overcount</th><th>undercount</th>\
         <th>AoDF</th></tr>",
        escape(&bl_path.display().to_string())
    );
    let mut total = Aodf::default();
    for record in &view.profile.functions {
        match function_aodf(&view.program, record, bl, config) {
            Ok(a) => {
                total += a;
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                     <td class=\"n\">{}</td><td class=\"n\">{:.2}%</td></tr>",
                    escape(&record.name),
                    a.total,
                    a.overcount,
                    a.undercount,
                    a.percent()
                );
            }
            Err(why) => {
                let _ = write!(
                    out,
                    "<tr><td>{}</td><td colspan=\"4\" class=\"note\">left out: {}</td></tr>",
                    escape(&record.name),
                    escape(&why)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "<tr><th>total</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th>\
         <th class=\"n\">{:.2}%</th></tr></table></section>",
        total.total,
        total.overcount,
        total.undercount,
        total.percent()
    );
    out
}

/// Every executed path of a record (ppp's residual ones too) by id, with its count and lines.
fn path_counts(record: Option<&FunctionProfile>) -> BTreeMap<u64, (u64, &[u32])> {
    let Some(record) = record else {
        return BTreeMap::new();
    };
    record
        .executed_paths()
        .map(|p| (p.id, (p.count, p.lines.as_slice())))
        .collect()
}

fn spectra(
    view: &ProgramView,
    other: &Profile,
    other_path: &Path,
    diff: &profile::SpectraDiff,
) -> String {
    let a = &view.profile;
    let mut out = format!(
        "<section id=\"compare\" class=\"spectra\"><h2>Path spectra: A = this profile, B = {}</h2>\
         <p>A ran with <code>{}</code>, B with <code>{}</code>. Each executed path with its count \
         in both runs and its share of the function's path executions in each, hottest first; \
         the bars compare shares, so runs of different lengths line up. Paths that ran in only \
         one run are marked new (only in B) or vanished (only in A), paths whose share moved by \
         a percentage point or more changed ([PFP] §5.3; <code>pcc profile diff</code> lists every \
         count that differs).</p>",
        escape(&other_path.display().to_string()),
        escape(&a.args.join(" ")),
        escape(&other.args.join(" ")),
    );
    for f in &diff.functions {
        let spectra = match &f.comparison {
            FunctionComparison::Compared(spectra) => spectra,
            FunctionComparison::OnlyInA => {
                let _ = write!(out, "<h3>fn {}: only in A</h3>", escape(&f.name));
                continue;
            }
            FunctionComparison::OnlyInB => {
                let _ = write!(out, "<h3>fn {}: only in B</h3>", escape(&f.name));
                continue;
            }
            refused => {
                let _ = write!(
                    out,
                    "<h3>fn {}</h3><p class=\"warning\">{}</p>",
                    escape(&f.name),
                    escape(&refused.refusal().unwrap_or_default())
                );
                continue;
            }
        };
        let in_a = path_counts(a.function(&f.name));
        let in_b = path_counts(other.function(&f.name));
        let mut ids: Vec<u64> = in_a.keys().chain(in_b.keys()).copied().collect();
        ids.sort_unstable();
        ids.dedup();
        let count = |m: &BTreeMap<u64, (u64, &[u32])>, id| m.get(&id).map_or(0, |c| c.0);
        ids.sort_by_key(|&id| std::cmp::Reverse(count(&in_a, id).max(count(&in_b, id))));
        let (total_a, total_b): (u64, u64) = (
            in_a.values().map(|c| c.0).sum(),
            in_b.values().map(|c| c.0).sum(),
        );
        let share = |c: u64, total: u64| c as f64 / total.max(1) as f64;
        let shares = |id| {
            (
                share(count(&in_a, id), total_a),
                share(count(&in_b, id), total_b),
            )
        };
        let changed = |id| {
            let (a, b) = shares(id);
            (a - b).abs() >= CHANGED_SHARE
        };
        let max = (ids.iter())
            .map(|&id| shares(id).0.max(shares(id).1))
            .fold(0.0, f64::max);
        let changed_edges = if spectra.changed_edges.is_empty() {
            String::new()
        } else {
            format!(", {} edges changed", spectra.changed_edges.len())
        };
        let _ = write!(
            out,
            "<h3>fn {}: {} new, {} vanished, {} changed{changed_edges}</h3><div>\
             <table class=\"pathlist\"><tr><th>path</th><th>lines</th><th>A</th><th></th><th>B</th>\
             <th></th></tr>",
            escape(&f.name),
            spectra.only_in_b.len(),
            spectra.only_in_a.len(),
            (spectra.changed.iter()).filter(|c| changed(c.id)).count(),
        );
        for (i, &id) in ids.iter().take(SPECTRUM_ROWS).enumerate() {
            let status = if spectra.only_in_b.iter().any(|p| p.id == id) {
                "new"
            } else if spectra.only_in_a.iter().any(|p| p.id == id) {
                "vanished"
            } else if spectra.changed.iter().any(|c| c.id == id) && changed(id) {
                "changed"
            } else {
                "same"
            };
            let lines = in_a.get(&id).or(in_b.get(&id)).map_or(&[][..], |c| c.1);
            let bar = |c: u64, total: u64| {
                format!(
                    "<td class=\"n\">{c} <small>{}</small></td><td><span class=\"bar\" \
                     style=\"width:{:.0}px\"></span></td>",
                    percent(c, total),
                    if max > 0.0 {
                        120.0 * share(c, total) / max
                    } else {
                        0.0
                    }
                )
            };
            let hidden = if i >= PATHS_SHOWN { " hidden" } else { "" };
            let _ = write!(
                out,
                "<tr class=\"{status}{hidden}\"><td>{id}</td><td><code>{}</code></td>{}</tr>",
                escape(&compact_lines(lines)),
                bar(count(&in_a, id), total_a).replace("<td><span", "<td class=\"a\"><span")
                    + &bar(count(&in_b, id), total_b).replace("<td><span", "<td class=\"b\"><span")
            );
        }
        out.push_str("</table>");
        let rows = ids.len().min(SPECTRUM_ROWS);
        if rows > PATHS_SHOWN {
            out.push_str(&more_button(rows - PATHS_SHOWN));
        }
        out.push_str("</div>");
    }
    out + "</section>\n"
}
