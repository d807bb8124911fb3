//! Reading and writing profile files. Reading checks, in order: well-formed JSON, the `format`
//! tag, the `version`, the `mode`, then the structure; every failure is an error value.
//! Writing is atomic: a temporary file in the same directory, then a rename (`output_file`).

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use super::printable::{clipped, printable};
use super::{FORMAT, Mode, Profile, VERSION};

/// What is wrong with a profile file: the message of a [`ProfileError`] after its file.
#[derive(Debug, thiserror::Error)]
pub enum ProfileErrorKind {
    #[error("{0}")]
    Io(#[source] std::io::Error),
    /// The JSON ends early, as when a write was interrupted.
    #[error("profile is truncated (incomplete JSON)")]
    Truncated,
    // serde's messages quote some of what they found as it is.
    #[error("profile is not valid JSON: {}", printable(.0))]
    Malformed(String),
    #[error("not a pcc profile (format is {0}, expected \"{FORMAT}\")")]
    WrongFormat(String),
    #[error("{}", unsupported_version(.0))]
    UnsupportedVersion(String),
    #[error("unknown profiling mode {0} (expected one of {known})", known = known_modes())]
    UnknownMode(String),
    #[error("invalid profile: {}", printable(.0))]
    Invalid(String),
}

/// The message for a profile of format version `found`: version 1, of older pcc versions,
/// says how to get a new one.
fn unsupported_version(found: &str) -> String {
    if found == "1" {
        format!(
            "this profile was written by an older pcc (profile format version 1; this pcc \
             reads version {VERSION}); re-run the program with --profile to make a new one"
        )
    } else {
        format!("unsupported profile version {found} (this pcc reads version {VERSION})")
    }
}

/// The names of the profiling modes, for the message about an unknown one.
fn known_modes() -> String {
    let known: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
    known.join(", ")
}

/// A profile that could not be read or written, with the file it came from if any.
///
/// `Display` and `Error` are written by hand: the message is the file's name, if any, before
/// the kind's, and the source is the kind's own (the I/O error of [`ProfileErrorKind::Io`]),
/// which thiserror's `#[source]` cannot say without putting the kind itself in the chain.
#[derive(Debug)]
pub struct ProfileError {
    pub path: Option<PathBuf>,
    pub kind: ProfileErrorKind,
}

impl ProfileError {
    fn new(kind: ProfileErrorKind) -> ProfileError {
        ProfileError { path: None, kind }
    }

    fn at(mut self, path: &Path) -> ProfileError {
        self.path = Some(path.to_path_buf());
        self
    }
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{}: ", path.display())?;
        }
        fmt::Display::fmt(&self.kind, f)
    }
}

impl std::error::Error for ProfileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.kind)
    }
}

/// The fields checked before the structure, so that a file of another kind or version gets
/// that message rather than a structural error. Read without building the rest of the document
/// (the other fields are skipped), which matters for `kbl` profiles of hundreds of megabytes.
#[derive(Default, serde::Deserialize)]
struct Header {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
    mode: Option<serde_json::Value>,
}

/// The most bytes a profile file may have: 4 GiB, far more than the largest `kbl` profiles
/// (hundreds of megabytes).
pub const MAX_PROFILE_BYTES: u64 = 4 << 30;

/// The deepest nesting of arrays and objects a profile may have. A `kbl` profile's k-IPF nests
/// two levels per node (`children`, then the node), so `--k 64` needs about 130, more than
/// serde_json's default limit of 128; the limit is checked before parsing instead, which keeps a
/// corrupt file from exhausting the stack.
const MAX_NESTING: usize = 256;

/// `text` as JSON, without serde_json's recursion limit (see [`MAX_NESTING`]).
fn parse<T: serde::de::DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    deserializer.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(value)
}

/// The deepest nesting of `[` and `{` in JSON text `text`, outside strings.
fn nesting_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for byte in text.bytes() {
        match (in_string, escaped, byte) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') | (false, _, b'"') => in_string = !in_string,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Whether `name` is a PL identifier, `[A-Za-z_][A-Za-z0-9_]*` (the lexer's rule).
fn is_identifier(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Profile {
    /// Parses and validates a profile.
    pub fn from_json(text: &str) -> Result<Profile, ProfileError> {
        if nesting_depth(text) > MAX_NESTING {
            return Err(ProfileError::new(ProfileErrorKind::Invalid(format!(
                "nested more than {MAX_NESTING} levels deep"
            ))));
        }
        let header: Header = match parse(text) {
            Ok(header) => header,
            Err(e) if e.is_eof() => return Err(ProfileError::new(ProfileErrorKind::Truncated)),
            Err(e) if e.is_syntax() => {
                return Err(ProfileError::new(ProfileErrorKind::Malformed(
                    e.to_string(),
                )));
            }
            // `"mode": "bl", "mode": "edge"`: which one counts would be up to the reader.
            Err(e) if e.to_string().starts_with("duplicate field") => {
                let message = e.to_string();
                let key = message.split('`').nth(1).unwrap_or("?");
                return Err(ProfileError::new(ProfileErrorKind::Invalid(format!(
                    "duplicate key \"{key}\" at line {} column {}",
                    e.line(),
                    e.column()
                ))));
            }
            // Well-formed JSON that is not an object: it has no `format`.
            Err(_) => Header::default(),
        };
        let field = |value: &Option<serde_json::Value>| {
            value.as_ref().map_or("none".to_string(), |v| v.to_string())
        };
        if header.format.as_ref().and_then(|v| v.as_str()) != Some(FORMAT) {
            return Err(ProfileError::new(ProfileErrorKind::WrongFormat(field(
                &header.format,
            ))));
        }
        if header.version.as_ref().and_then(|v| v.as_u64()) != Some(u64::from(VERSION)) {
            return Err(ProfileError::new(ProfileErrorKind::UnsupportedVersion(
                field(&header.version),
            )));
        }
        if header
            .mode
            .as_ref()
            .and_then(|v| v.as_str())
            .is_none_or(|name| name.parse::<Mode>().is_err())
        {
            return Err(ProfileError::new(ProfileErrorKind::UnknownMode(field(
                &header.mode,
            ))));
        }
        // Parsed again from the text so that a structural error says where it is (line, column).
        let profile: Profile =
            parse(text).map_err(|e| ProfileError::new(ProfileErrorKind::Invalid(e.to_string())))?;
        profile
            .check_consistency()
            .map_err(|e| ProfileError::new(ProfileErrorKind::Invalid(e)))?;
        Ok(profile)
    }

    /// Invariants serde cannot check: function names that are PL identifiers (in records and
    /// in `wpp` symbols) and hashes of ASCII letters and digits, so that a report or message
    /// can show them as they are (a name may still be long); unique function names, per
    /// function path ids below `num_paths`, each listed once (a PPP path is either interesting
    /// or residual), block ids below `num_blocks` (EXIT's, `num_blocks`, only as an edge's
    /// `to_block`), and one block record per block, in id order.
    fn check_consistency(&self) -> Result<(), String> {
        let symbols = self.wpp.iter().flat_map(|w| &w.symbols);
        let names = self.functions.iter().map(|f| f.name.as_str());
        if let Some(name) = names
            .chain(symbols.map(|s| s.function.as_str()))
            .find(|name| !is_identifier(name))
        {
            return Err(format!(
                "function name \"{}\" is not an identifier",
                clipped(&printable(name), 80)
            ));
        }
        let hashes = self.functions.iter().map(|f| f.cfg_hash.as_str());
        if let Some(hash) = hashes
            .chain([self.source.hash.as_str()])
            .find(|hash| !hash.bytes().all(|b| b.is_ascii_alphanumeric()))
        {
            return Err(format!(
                "hash \"{}\" is not made of letters and digits",
                clipped(&printable(hash), 80)
            ));
        }
        let mut names = HashSet::new();
        for function in &self.functions {
            if !names.insert(function.name.as_str()) {
                return Err(format!("function `{}` appears twice", function.name));
            }
            if let Some(edges) = function.edges() {
                let n = function.num_blocks().unwrap_or_default();
                if let Some(e) = edges.iter().find(|e| e.from_block >= n || e.to_block > n) {
                    return Err(format!(
                        "function `{}`: edge bb{} → bb{} names a block past num_blocks {n}",
                        function.name, e.from_block, e.to_block
                    ));
                }
            }
            if let Some(blocks) = function.blocks() {
                let ids: Vec<usize> = blocks.iter().map(|b| b.block).collect();
                if Some(ids.len()) != function.num_blocks()
                    || ids.iter().enumerate().any(|(i, &b)| i != b)
                {
                    return Err(format!(
                        "function `{}`: block records must be bb0, bb1, … up to num_blocks",
                        function.name
                    ));
                }
            }
            let mut ids = HashSet::new();
            for path in function.executed_paths() {
                if path.id >= function.num_paths {
                    return Err(format!(
                        "function `{}`: path id {} is not below num_paths {}",
                        function.name, path.id, function.num_paths
                    ));
                }
                if !ids.insert(path.id) {
                    return Err(format!(
                        "function `{}`: path id {} is listed twice",
                        function.name, path.id
                    ));
                }
            }
        }
        Ok(())
    }

    /// The profile as JSON text, a line per member but arrays of numbers or strings on one
    /// ([`super::layout`]).
    pub fn to_json(&self) -> String {
        super::layout::to_string(self).expect("profiles always serialize")
    }

    /// Reads and validates a profile file: only a regular file of at most
    /// [`MAX_PROFILE_BYTES`] (a FIFO would block the reader, `pcc lsp` included, and a device
    /// such as `/dev/zero` never ends; [`super::read_regular`]).
    pub fn read(path: &Path) -> Result<Profile, ProfileError> {
        let bytes = super::read_regular(path, MAX_PROFILE_BYTES, "a profile")
            .map_err(|e| ProfileError::new(ProfileErrorKind::Io(e)).at(path))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            let e = std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            );
            ProfileError::new(ProfileErrorKind::Io(e)).at(path)
        })?;
        Profile::from_json(&text).map_err(|e| e.at(path))
    }

    /// Writes the profile so that `path` holds either the old file or the complete new one,
    /// never a partial write, following symbolic links and refusing anything but a regular
    /// file ([`crate::output_file::write_atomic`]).
    pub fn write_atomic(&self, path: &Path) -> Result<(), ProfileError> {
        let mut text = self.to_json();
        text.push('\n');
        crate::output_file::write_atomic(path, text.as_bytes())
            .map_err(|e| ProfileError::new(ProfileErrorKind::Io(e)).at(path))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{
        BlockCount, BlockRecord, EdgeCount, EdgeRecord, FunctionProfile, ModeRecord, PathCount,
        SourceFile, Storage,
    };
    use super::*;

    fn sample() -> Profile {
        let mut profile = Profile::new(Mode::Bl, SourceFile::new("add.pl", b"a"), vec!["2".into()]);
        let mut f = FunctionProfile::new("add_even", "9f2c", 6, Storage::Array, ModeRecord::Bl);
        f.paths.push(PathCount {
            id: 3,
            count: 1,
            lines: vec![4, 5, 6, 8],
        });
        profile.functions.push(f);
        profile
    }

    #[test]
    fn round_trips_with_the_documented_field_names() {
        let profile = sample();
        let json = profile.to_json();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            value,
            serde_json::json!({
                "format": "pcc-profile", "version": 2, "mode": "bl", "program": "add.pl",
                "args": ["2"], "source": { "path": "add.pl", "hash": "af63dc4c8601ec8c" },
                "functions": [{ "name": "add_even", "cfg_hash": "9f2c", "num_paths": 6,
                    "storage": "array",
                    "paths": [{ "id": 3, "count": 1, "lines": [4, 5, 6, 8] }] }]
            })
        );
        assert_eq!(Profile::from_json(&json).unwrap(), profile);
    }

    #[test]
    fn optional_fields_appear_only_when_set() {
        let mut profile = sample();
        profile.mode = Mode::Edge;
        profile.functions[0].truncated = true;
        profile.functions[0].record = ModeRecord::Edge(EdgeRecord {
            num_blocks: 3,
            edges: vec![EdgeCount {
                from_block: 1,
                to_block: 3,
                from_line: 4,
                to_line: 5,
                count: 7,
            }],
            unfinished: 0,
        });
        let value: serde_json::Value = serde_json::from_str(&profile.to_json()).unwrap();
        let f = &value["functions"][0];
        assert_eq!(f["truncated"], true);
        assert_eq!(f["edges"][0]["from_line"], 4);
        assert_eq!(
            (f["edges"][0]["to_block"].as_u64(), f["num_blocks"].as_u64()),
            (Some(3), Some(3))
        );
        assert!(f.get("kipf").is_none());
        assert_eq!(Profile::from_json(&profile.to_json()).unwrap(), profile);
    }

    fn error_of(text: &str) -> String {
        Profile::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn rejects_bad_files_with_clear_messages() {
        let good = sample().to_json();
        assert!(error_of(&good[..good.len() / 2]).contains("truncated"));
        assert!(error_of("{ nope }").contains("not valid JSON"));
        assert!(error_of(&good.replace("pcc-profile", "other")).contains("not a pcc profile"));
        assert!(error_of("[1, 2]").contains("not a pcc profile"));
        assert!(
            error_of(&good.replace("\"version\": 2", "\"version\": 3"))
                .contains("unsupported profile version 3 (this pcc reads version 2)")
        );
        assert!(
            error_of(&good.replace("\"version\": 2", "\"version\": 1")).contains(
                "this profile was written by an older pcc (profile format version 1; this pcc \
                 reads version 2); re-run the program with --profile to make a new one"
            )
        );
        assert!(
            error_of(&good.replace("\"mode\": \"bl\"", "\"mode\": \"xyz\""))
                .contains("unknown profiling mode \"xyz\"")
        );
        assert!(
            error_of(&good.replace("\"num_paths\"", "\"n\""))
                .contains("missing field `num_paths` at line")
        );
        assert!(error_of(&good.replace("\"count\": 1", "\"count\": -1")).contains("invalid value"));
        assert!(error_of(&good.replace("\"id\": 3", "\"id\": 6")).contains("not below num_paths"));
        let mut twice = sample();
        let path = twice.functions[0].paths[0].clone();
        twice.functions[0].paths.push(path);
        assert!(error_of(&twice.to_json()).contains("path id 3 is listed twice"));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(error_of(&deep).contains("nested more than 256 levels deep"));
    }

    /// A key given twice is said to be: which of the two counts would be up to the reader
    /// (issue 52). `mode` twice was "not a pcc profile (format is none …)".
    #[test]
    fn a_duplicated_key_is_reported_as_such() {
        let good = sample().to_json();
        for key in ["mode", "format", "version"] {
            let at = good.find(&format!("\"{key}\"")).unwrap();
            let end = at + good[at..].find(',').unwrap() + 1;
            let twice = format!("{}{} {}", &good[..end], &good[at..end], &good[end..]);
            let error = error_of(&twice);
            assert!(
                error.starts_with(&format!("invalid profile: duplicate key \"{key}\" at line")),
                "{key}: {error}"
            );
        }
        let twice = good.replacen("\"program\"", "\"program\": \"x.pl\", \"program\"", 1);
        assert!(
            error_of(&twice).contains("duplicate field `program`"),
            "{}",
            error_of(&twice)
        );
    }

    /// A profile is untrusted input: names that are not identifiers and hashes that are not
    /// letters and digits are refused, and what an error quotes of the file is escaped, so that
    /// no terminal escape of a profile reaches the terminal through a message.
    #[test]
    fn refuses_names_and_hashes_a_report_could_not_show_as_they_are() {
        let good = sample().to_json();
        let title = "\\u001b]0;PWNED\\u0007";
        let error = error_of(&good.replace("\"add_even\"", &format!("\"f{title}\"")));
        assert!(
            error.contains("function name \"f\\e]0;PWNED\\x07\" is not an identifier"),
            "{error}"
        );
        for bad in ["", "1f", "f g", "f-g", "é"] {
            let text = good.replace("\"add_even\"", &format!("\"{bad}\""));
            assert!(error_of(&text).contains("is not an identifier"), "{bad:?}");
        }
        let long = "a".repeat(70_000);
        let name = Profile::from_json(&good.replace("add_even", &long)).unwrap();
        assert_eq!(name.functions[0].name, long);
        let error = error_of(&good.replace("9f2c", &format!("9f{title}")));
        assert!(
            error.contains("hash \"9f\\e]0;PWNED\\x07\" is not made of letters and digits"),
            "{error}"
        );
        let error = error_of(&good.replace("af63dc4c8601ec8c", "af 63"));
        assert!(error.contains("hash \"af 63\" is not made"), "{error}");
        // serde quotes an unknown variant as it is.
        let error = error_of(&good.replace("\"array\"", &format!("\"x{title}\"")));
        assert!(
            error.contains("unknown variant `x\\e]0;PWNED\\x07`"),
            "{error}"
        );
        assert!(
            !error.contains('\u{1b}') && !error.contains('\u{7}'),
            "{error}"
        );
        // Arguments and paths may hold anything: reports escape them.
        let text = good.replace("[\"2\"]", &format!("[\"{title}3\"]"));
        assert_eq!(
            Profile::from_json(&text).unwrap().args,
            ["\u{1b}]0;PWNED\u{7}3"]
        );
    }

    /// A `kbl` profile of `--k 64`, whose k-IPF nests 64 levels, reads back.
    #[test]
    fn reads_the_deepest_k_ipf() {
        let mut profile = sample();
        profile.mode = Mode::Kbl;
        let kipf = (0..64).fold(Vec::new(), |children, _| {
            vec![super::super::KipfNode {
                id: 3,
                count: 1,
                children,
            }]
        });
        let record = super::super::KblRecord { kipf };
        profile.functions[0].record = ModeRecord::Kbl(record);
        let back = Profile::from_json(&profile.to_json()).expect("a valid profile");
        assert_eq!(back.to_json(), profile.to_json());
    }

    /// A record must have the fields its mode always writes: the mode decides the record's type.
    #[test]
    fn refuses_a_record_without_its_modes_fields() {
        let good = sample().to_json();
        for (mode, field) in [
            ("ppp", "interesting"),
            ("edge", "num_blocks"),
            ("block", "num_blocks"),
            ("tpp", "edge_counts` or `bl_fallback"),
        ] {
            let text = good.replace("\"mode\": \"bl\"", &format!("\"mode\": \"{mode}\""));
            assert!(
                error_of(&text).contains(&format!(
                    "function `add_even`: a {mode} record needs `{field}`"
                )),
                "{mode}: {}",
                error_of(&text)
            );
        }
        // A kbl record without a forest has an empty one.
        let text = good.replace("\"mode\": \"bl\"", "\"mode\": \"kbl\"");
        let kbl = Profile::from_json(&text).unwrap();
        assert_eq!(
            kbl.functions[0].record,
            ModeRecord::Kbl(super::super::KblRecord { kipf: Vec::new() })
        );
    }

    #[test]
    fn block_and_edge_records_name_blocks_of_the_function() {
        let mut profile = sample();
        profile.mode = Mode::Block;
        let block = |block, count| BlockCount {
            block,
            lines: vec![4],
            count,
        };
        let blocks = |blocks| {
            ModeRecord::Block(BlockRecord {
                num_blocks: 2,
                blocks,
            })
        };
        profile.functions[0].record = blocks(vec![block(0, 1), block(1, 5)]);
        assert_eq!(Profile::from_json(&profile.to_json()).unwrap(), profile);
        profile.functions[0].record = blocks(vec![block(1, 5), block(0, 1)]);
        assert!(error_of(&profile.to_json()).contains("block records must be bb0, bb1"));
        profile.mode = Mode::Edge;
        profile.functions[0].record = ModeRecord::Edge(EdgeRecord {
            num_blocks: 2,
            edges: vec![EdgeCount {
                from_block: 0,
                to_block: 3,
                from_line: 4,
                to_line: 5,
                count: 1,
            }],
            unfinished: 0,
        });
        assert!(
            error_of(&profile.to_json()).contains("edge bb0 → bb3 names a block past num_blocks 2")
        );
    }

    #[test]
    fn writes_atomically_and_reads_back() {
        let dir = std::env::temp_dir().join(format!("pcc-profile-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("add.bl.profile.json");
        sample().write_atomic(&path).unwrap();
        assert_eq!(Profile::read(&path).unwrap(), sample());
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
        let missing = Profile::read(&dir.join("missing.json")).unwrap_err();
        assert!(missing.to_string().contains("missing.json"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
