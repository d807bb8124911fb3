//! `pcc profile report P [--compare Q] -o report.html`: a profile as one self-contained HTML
//! page (the page in `html`, the CFG drawings in `svg`, the per-mode sections in `modes`, the
//! comparison of two runs in `compare`; its style in `report.css`, its script in `report.js`).

mod compare;
mod html;
mod modes;
mod svg;

use std::path::Path;

use crate::profile_view::ProgramView;
use crate::profile_view::input::load;

pub fn run(profile: &Path, compare: Option<&Path>, output: &Path) -> i32 {
    let Some(view) = ProgramView::load(profile) else {
        return 1;
    };
    view.warn();
    let mut sections = modes::mode_section(&view);
    if let Some(other_path) = compare {
        let Some(other) = load(other_path) else {
            return 1;
        };
        sections.push_str(&compare::compare_section(&view, &other, other_path));
    }
    let page = html::page(&view, &sections);
    if let Err(error) = std::fs::write(output, page) {
        eprintln!("error: cannot write {}: {error}", output.display());
        return 1;
    }
    0
}

/// Escapes text for HTML element content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
