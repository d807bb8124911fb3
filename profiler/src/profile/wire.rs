//! The file layout of a profile (docs/PROFILE-FORMAT.md): a function's mode-specific fields sit
//! beside its common ones and are left out when the mode has none. Writing borrows the profile;
//! reading builds the typed [`ModeRecord`] the profile's `mode` calls for, and refuses a record
//! that lacks a field its mode always writes.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::{
    BlockCount, BlockRecord, EdgeCount, EdgeRecord, FunctionProfile, KblRecord, KipfNode, Mode,
    ModeRecord, PathCount, PppRecord, Profile, SourceFile, Storage, TppRecord,
};
use crate::tpp::TppConfig;
use crate::wpp::WppSection;

#[derive(Serialize, Deserialize)]
pub(super) struct ProfileWire<'a> {
    format: Cow<'a, str>,
    version: u32,
    mode: Mode,
    program: Cow<'a, str>,
    args: Cow<'a, [String]>,
    source: Cow<'a, SourceFile>,
    functions: Vec<FunctionWire<'a>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wpp: Option<Cow<'a, WppSection>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tpp: Option<TppConfig>,
}

#[derive(Serialize, Deserialize)]
struct FunctionWire<'a> {
    name: Cow<'a, str>,
    cfg_hash: Cow<'a, str>,
    num_paths: u64,
    storage: Storage,
    #[serde(default, skip_serializing_if = "is_false")]
    truncated: bool,
    paths: Cow<'a, [PathCount]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    num_blocks: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    edges: Option<Cow<'a, [EdgeCount]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    blocks: Option<Cow<'a, [BlockCount]>>,
    #[serde(default, skip_serializing_if = "is_zero")]
    unfinished: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interesting: Option<Cow<'a, [u64]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    range: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rho: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    residual: Option<Cow<'a, [PathCount]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cold_count: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    obvious: Option<Cow<'a, [PathCount]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    edge_counts: Option<Cow<'a, [u64]>>,
    #[serde(default, skip_serializing_if = "is_false")]
    bl_fallback: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kipf: Option<Cow<'a, [KipfNode]>>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Serialize for Profile {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ProfileWire {
            format: Cow::Borrowed(&self.format),
            version: self.version,
            mode: self.mode,
            program: Cow::Borrowed(&self.program),
            args: Cow::Borrowed(&self.args),
            source: Cow::Borrowed(&self.source),
            functions: self.functions.iter().map(FunctionWire::from).collect(),
            wpp: self.wpp.as_ref().map(Cow::Borrowed),
            tpp: self.tpp,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Profile, D::Error> {
        let wire = ProfileWire::deserialize(deserializer)?;
        Profile::try_from(wire).map_err(serde::de::Error::custom)
    }
}

impl<'a> From<&'a FunctionProfile> for FunctionWire<'a> {
    fn from(f: &'a FunctionProfile) -> FunctionWire<'a> {
        let mut wire = FunctionWire {
            name: Cow::Borrowed(&f.name),
            cfg_hash: Cow::Borrowed(&f.cfg_hash),
            num_paths: f.num_paths,
            storage: f.storage,
            truncated: f.truncated,
            paths: Cow::Borrowed(&f.paths),
            num_blocks: None,
            edges: None,
            blocks: None,
            unfinished: 0,
            interesting: None,
            range: None,
            rho: None,
            residual: None,
            cold_count: None,
            obvious: None,
            edge_counts: None,
            bl_fallback: false,
            kipf: None,
        };
        match &f.record {
            ModeRecord::Block(b) => {
                wire.num_blocks = Some(b.num_blocks);
                wire.blocks = Some(Cow::Borrowed(&b.blocks));
            }
            ModeRecord::Edge(e) => {
                wire.num_blocks = Some(e.num_blocks);
                wire.edges = Some(Cow::Borrowed(&e.edges));
                wire.unfinished = e.unfinished;
            }
            ModeRecord::Ppp(p) => {
                wire.interesting = Some(Cow::Borrowed(&p.interesting));
                wire.range = Some(p.range);
                wire.rho = p.rho;
                wire.residual = Some(Cow::Borrowed(&p.residual));
            }
            ModeRecord::Tpp(t) => {
                wire.cold_count = Some(t.cold_count);
                wire.obvious = Some(Cow::Borrowed(&t.obvious));
                wire.edge_counts = t.edge_counts.as_deref().map(Cow::Borrowed);
                wire.bl_fallback = t.bl_fallback();
            }
            ModeRecord::Kbl(k) => wire.kipf = Some(Cow::Borrowed(&k.kipf)),
            ModeRecord::Bl | ModeRecord::Wpp => {}
        }
        wire
    }
}

impl TryFrom<ProfileWire<'_>> for Profile {
    type Error = String;

    fn try_from(wire: ProfileWire<'_>) -> Result<Profile, String> {
        let mode = wire.mode;
        let functions = wire
            .functions
            .into_iter()
            .map(|f| function_profile(mode, f))
            .collect::<Result<_, _>>()?;
        let wpp = wire.wpp.map(Cow::into_owned);
        if let Some(section) = &wpp {
            section.validate().map_err(|e| e.to_string())?;
        }
        Ok(Profile {
            format: wire.format.into_owned(),
            version: wire.version,
            mode,
            program: wire.program.into_owned(),
            args: wire.args.into_owned(),
            source: wire.source.into_owned(),
            functions,
            wpp,
            tpp: wire.tpp,
        })
    }
}

/// The typed record of one function of a `mode` profile.
fn function_profile(mode: Mode, f: FunctionWire<'_>) -> Result<FunctionProfile, String> {
    let name = f.name.into_owned();
    let missing = |field: &str| format!("function `{name}`: a {mode} record needs `{field}`");
    let record = match mode {
        Mode::Block => ModeRecord::Block(BlockRecord {
            num_blocks: f.num_blocks.ok_or_else(|| missing("num_blocks"))?,
            blocks: f.blocks.ok_or_else(|| missing("blocks"))?.into_owned(),
        }),
        Mode::Edge => ModeRecord::Edge(EdgeRecord {
            num_blocks: f.num_blocks.ok_or_else(|| missing("num_blocks"))?,
            edges: f.edges.ok_or_else(|| missing("edges"))?.into_owned(),
            unfinished: f.unfinished,
        }),
        Mode::Bl => ModeRecord::Bl,
        Mode::Ppp => ModeRecord::Ppp(PppRecord {
            interesting: f
                .interesting
                .ok_or_else(|| missing("interesting"))?
                .into_owned(),
            range: f.range.ok_or_else(|| missing("range"))?,
            rho: f.rho,
            residual: f.residual.map(Cow::into_owned).unwrap_or_default(),
        }),
        Mode::Tpp => {
            let edge_counts = f.edge_counts.map(Cow::into_owned);
            if edge_counts.is_none() && !f.bl_fallback {
                return Err(missing("edge_counts` or `bl_fallback"));
            }
            ModeRecord::Tpp(TppRecord {
                cold_count: f.cold_count.unwrap_or(0),
                obvious: f.obvious.map(Cow::into_owned).unwrap_or_default(),
                edge_counts: edge_counts.filter(|_| !f.bl_fallback),
            })
        }
        // A forest that recorded nothing may be left out.
        Mode::Kbl => ModeRecord::Kbl(KblRecord {
            kipf: f.kipf.map(Cow::into_owned).unwrap_or_default(),
        }),
        Mode::Wpp => ModeRecord::Wpp,
    };
    Ok(FunctionProfile {
        name,
        cfg_hash: f.cfg_hash.into_owned(),
        num_paths: f.num_paths,
        storage: f.storage,
        truncated: f.truncated,
        paths: f.paths.into_owned(),
        record,
    })
}
