//! The answers to an editor's questions about one document: diagnostics, hover, definition,
//! references, document symbols, completion, highlights, rename, signature help and semantic
//! tokens, all read off the front end's index.

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentHighlight, DocumentSymbol, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, Position, SemanticToken,
    SemanticTokenModifier, SemanticTokenType, SemanticTokens, SignatureHelp, SignatureInformation,
    SymbolKind as LspSymbolKind, TextEdit, Uri, WorkspaceEdit,
};
use pcc_lang::index::{Index, Symbol, SymbolId, SymbolKind};
use pcc_lang::typed::Builtin;

use super::RequestError;
use super::document::{Document, file_name};

/// The errors of `pcc check`: the same message and span; the label under the caret, the notes
/// and the help follow the message, and secondary spans are related information.
pub fn diagnostics(doc: &Document) -> Vec<Diagnostic> {
    let errors = match &doc.checked {
        Err(errors) => errors,
        Ok(program) => &program.warnings,
    };
    let uri: Option<Uri> = doc.uri.parse().ok();
    errors
        .iter()
        .map(|error| {
            let mut message = error.message.clone();
            if !error.label.is_empty() {
                message.push_str(&format!("\n{}", error.label));
            }
            for note in &error.notes {
                message.push_str(&format!("\nnote: {note}"));
            }
            for help in &error.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let related = uri.as_ref().map(|uri| {
                error
                    .secondary
                    .iter()
                    .map(|(span, text)| DiagnosticRelatedInformation {
                        location: Location::new(uri.clone(), doc.range(*span)),
                        message: text.clone(),
                    })
                    .collect()
            });
            Diagnostic {
                range: doc.range(error.span),
                severity: Some(match error.warning {
                    true => DiagnosticSeverity::WARNING,
                    false => DiagnosticSeverity::ERROR,
                }),
                source: Some("pcc".to_string()),
                message,
                related_information: related,
                ..Diagnostic::default()
            }
        })
        .collect()
}

/// What a symbol of `index` is, as one line of PL.
fn describe(index: &Index, symbol: &Symbol) -> String {
    let parent = |s: &Symbol| s.parent.map(|p| index.symbols[p].name.clone());
    match symbol.kind {
        SymbolKind::Function | SymbolKind::Struct => symbol.detail.clone(),
        SymbolKind::Field => format!(
            "{}.{}: {}",
            parent(symbol).unwrap_or_default(),
            symbol.name,
            symbol.detail
        ),
        SymbolKind::Global => format!("let {}: {}  // global", symbol.name, symbol.detail),
        SymbolKind::Const => format!("const {}: {}", symbol.name, symbol.detail),
        SymbolKind::Parameter => format!(
            "{}: {}  // parameter of {}",
            symbol.name,
            symbol.detail,
            parent(symbol).unwrap_or_default()
        ),
        SymbolKind::Local => format!("let {}: {}", symbol.name, symbol.detail),
    }
}

fn code_block(text: &str) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: format!("```pl\n{text}\n```"),
        }),
        range: None,
    }
}

/// The identifier around `offset`, and where it starts.
fn word_at(text: &str, offset: u32) -> (&str, usize) {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    let at = (offset as usize).min(bytes.len());
    let lo = bytes[..at]
        .iter()
        .rposition(|&b| !is_word(b))
        .map_or(0, |i| i + 1);
    let hi = bytes[at..]
        .iter()
        .position(|&b| !is_word(b))
        .map_or(bytes.len(), |i| at + i);
    (&text[lo..hi], lo)
}

pub fn hover(doc: &Document, position: Position) -> Option<Hover> {
    let offset = doc.offset(position);
    if let Some(id) = doc.index.symbol_at(offset) {
        return Some(code_block(&describe(&doc.index, &doc.index.symbols[id])));
    }
    // A built-in's name (one the program does not define).
    let (word, _) = word_at(&doc.text, offset);
    Builtin::all()
        .find(|b| b.name() == word)
        .map(|b| code_block(&format!("{}  // built-in", b.signature())))
}

fn symbol_at(doc: &Document, position: Position) -> Option<SymbolId> {
    doc.index.symbol_at(doc.offset(position))
}

pub fn definition(doc: &Document, uri: &Uri, position: Position) -> Option<Location> {
    let id = symbol_at(doc, position)?;
    Some(Location::new(
        uri.clone(),
        doc.range(doc.index.symbols[id].span),
    ))
}

pub fn references(
    doc: &Document,
    uri: &Uri,
    position: Position,
    include_declaration: bool,
) -> Vec<Location> {
    let Some(id) = symbol_at(doc, position) else {
        return Vec::new();
    };
    let skip = usize::from(!include_declaration);
    doc.index
        .occurrences(id)
        .into_iter()
        .skip(skip)
        .map(|span| Location::new(uri.clone(), doc.range(span)))
        .collect()
}

/// Every occurrence of the symbol at the cursor, for the editor to highlight.
pub fn highlights(doc: &Document, position: Position) -> Vec<DocumentHighlight> {
    let Some(id) = symbol_at(doc, position) else {
        return Vec::new();
    };
    (doc.index.occurrences(id).into_iter())
        .map(|span| DocumentHighlight {
            range: doc.range(span),
            kind: None,
        })
        .collect()
}

/// The edit that renames the symbol at the cursor, its declaration and every use, to `name`;
/// refused when `name` is not an identifier or is a keyword, or nothing is at the cursor.
pub fn rename(
    doc: &Document,
    uri: &Uri,
    position: Position,
    name: &str,
) -> Result<WorkspaceEdit, RequestError> {
    let id = symbol_at(doc, position).ok_or(RequestError::NoSymbolToRename)?;
    if !pcc_lang::is_identifier(name) {
        return Err(RequestError::NotAName(name.to_string()));
    }
    let edits = (doc.index.occurrences(id).into_iter())
        .map(|span| TextEdit::new(doc.range(span), name.to_string()))
        .collect();
    Ok(WorkspaceEdit::new(
        [(uri.clone(), edits)].into_iter().collect(),
    ))
}

fn lsp_kind(kind: SymbolKind) -> LspSymbolKind {
    match kind {
        SymbolKind::Function => LspSymbolKind::FUNCTION,
        SymbolKind::Struct => LspSymbolKind::STRUCT,
        SymbolKind::Field => LspSymbolKind::FIELD,
        SymbolKind::Global | SymbolKind::Const => LspSymbolKind::CONSTANT,
        SymbolKind::Parameter | SymbolKind::Local => LspSymbolKind::VARIABLE,
    }
}

/// Functions (with their parameters and locals), structs (with their fields) and globals.
pub fn document_symbols(doc: &Document) -> Vec<DocumentSymbol> {
    let symbols = &doc.index.symbols;
    let node = |id: SymbolId, children: Option<Vec<DocumentSymbol>>| {
        let symbol = &symbols[id];
        // The declaration range must contain the name's, whatever the spans say.
        let decl = symbol.decl_span.to(symbol.span);
        #[allow(deprecated)] // `deprecated` is a required field of the struct.
        DocumentSymbol {
            name: symbol.name.clone(),
            detail: Some(symbol.detail.clone()),
            kind: lsp_kind(symbol.kind),
            tags: None,
            deprecated: None,
            range: doc.range(decl),
            selection_range: doc.range(symbol.span),
            children,
        }
    };
    let mut children: Vec<Vec<DocumentSymbol>> = vec![Vec::new(); symbols.len()];
    for (id, symbol) in symbols.iter().enumerate() {
        if let Some(parent) = symbol.parent {
            children[parent].push(node(id, None));
        }
    }
    (0..symbols.len())
        .filter(|&id| symbols[id].parent.is_none())
        .map(|id| {
            let children = std::mem::take(&mut children[id]);
            node(id, (!children.is_empty()).then_some(children))
        })
        .collect()
}

fn completion_kind(kind: SymbolKind) -> CompletionItemKind {
    match kind {
        SymbolKind::Function => CompletionItemKind::FUNCTION,
        SymbolKind::Struct => CompletionItemKind::STRUCT,
        SymbolKind::Field => CompletionItemKind::FIELD,
        SymbolKind::Global | SymbolKind::Const => CompletionItemKind::CONSTANT,
        SymbolKind::Parameter | SymbolKind::Local => CompletionItemKind::VARIABLE,
    }
}

/// After `receiver.`, the fields of the receiver's struct (of every struct when its type is not
/// known); elsewhere the names in scope at the cursor, with their types, then the built-ins the
/// program does not redefine, with their signatures. A half-typed line that keeps its function
/// from parsing is read without that line, so the function's locals are still offered.
pub fn completion(doc: &Document, position: Position) -> Vec<CompletionItem> {
    let offset = doc.offset(position);
    // Scope is decided where the word being typed starts, not inside it.
    let (_, start) = word_at(&doc.text, offset);
    let repaired;
    let index = if doc.checked.is_err() {
        repaired = index_without_line(doc, start);
        &repaired
    } else {
        &doc.index
    };
    let visible = index.visible_at(start as u32);
    if let Some(receiver) = receiver_before(&doc.text, start) {
        return field_items(index, &visible, &receiver);
    }
    let mut items: Vec<CompletionItem> = visible
        .iter()
        .map(|&id| {
            let symbol = &index.symbols[id];
            CompletionItem {
                label: symbol.name.clone(),
                kind: Some(completion_kind(symbol.kind)),
                detail: Some(describe(index, symbol)),
                ..CompletionItem::default()
            }
        })
        .collect();
    let defined = |name: &str| {
        visible.iter().any(|&id| {
            let symbol = &index.symbols[id];
            symbol.kind == SymbolKind::Function && symbol.name == name
        })
    };
    items.extend(
        Builtin::all()
            .filter(|b| !defined(b.name()))
            .map(|b| CompletionItem {
                label: b.name().to_string(),
                kind: Some(CompletionItemKind::FUNCTION),
                detail: Some(b.signature()),
                ..CompletionItem::default()
            }),
    );
    items
}

/// The document's index as if the line holding `offset` were blank (the same length, so every
/// offset stays where it was).
fn index_without_line(doc: &Document, offset: usize) -> Index {
    let text = &doc.text;
    let lo = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let hi = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let mut blanked = String::with_capacity(text.len());
    blanked.push_str(&text[..lo]);
    blanked.extend(
        text[lo..hi]
            .chars()
            .map(|c| if c.is_ascii() { ' ' } else { c }),
    );
    blanked.push_str(&text[hi..]);
    pcc_lang::analyze(&file_name(&doc.uri), &blanked).1
}

/// The names of `a.b.` before a word that starts at `start`: `["a", "b"]`; `None` when no dot
/// comes before it.
fn receiver_before(text: &str, start: usize) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut at = text[..start].trim_end().len();
    while text[..at].ends_with('.') {
        let before = text[..at - 1].trim_end().len();
        let (name, lo) = word_at(text, before as u32);
        // `1.` starts a float, not a field.
        let number = name.starts_with(|c: char| c.is_ascii_digit());
        if name.is_empty() || number || lo + name.len() != before {
            break;
        }
        names.push(name.to_string());
        at = lo;
    }
    (!names.is_empty()).then(|| names.into_iter().rev().collect())
}

/// The fields of the struct that `receiver` (a name and fields of it, `p.next`) has, found from
/// the types the index gives; every struct's fields when a step has no struct type.
fn field_items(index: &Index, visible: &[SymbolId], receiver: &[String]) -> Vec<CompletionItem> {
    let symbols = &index.symbols;
    let field = |owner: &str, name: &str| {
        symbols.iter().find(|s| {
            s.kind == SymbolKind::Field
                && s.name == name
                && s.parent.is_some_and(|p| symbols[p].name == owner)
        })
    };
    let first = visible
        .iter()
        .map(|&id| &symbols[id])
        .find(|s| s.name == receiver[0] && s.kind != SymbolKind::Function);
    let mut ty = first.map(|s| s.detail.clone());
    for name in &receiver[1..] {
        ty = ty.and_then(|owner| field(&owner, name).map(|f| f.detail.clone()));
    }
    let owner = ty.and_then(|ty| {
        symbols
            .iter()
            .position(|s| s.kind == SymbolKind::Struct && s.name == ty)
    });
    symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::Field && (owner.is_none() || s.parent == owner))
        .map(|s| CompletionItem {
            label: s.name.clone(),
            kind: Some(CompletionItemKind::FIELD),
            detail: Some(describe(index, s)),
            ..CompletionItem::default()
        })
        .collect()
}

/// Inside a call's parentheses: the called function's signature (the program's or a
/// built-in's), its parameters, and the one the cursor is at (commas before it at the call's
/// own depth).
pub fn signature_help(doc: &Document, position: Position) -> Option<SignatureHelp> {
    let offset = doc.offset(position) as usize;
    let (open, active) = enclosing_call(&doc.text[..offset.min(doc.text.len())])?;
    let (name, lo) = word_at(&doc.text, open as u32);
    if name.is_empty() || lo + name.len() != open {
        return None;
    }
    let index = &doc.index;
    let signature = (index.symbols.iter())
        .find(|s| s.kind == SymbolKind::Function && s.name == name)
        .map(|s| s.detail.clone())
        .or_else(|| {
            Builtin::all()
                .find(|b| b.name() == name)
                .map(|b| b.signature())
        })?;
    let inside = signature
        .split_once('(')
        .and_then(|(_, rest)| rest.rsplit_once(')'))
        .map_or("", |(params, _)| params);
    let parameters: Vec<ParameterInformation> = split_top_level(inside)
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(|p| ParameterInformation {
            label: ParameterLabel::Simple(p.to_string()),
            documentation: None,
        })
        .collect();
    // `print(any...)` takes any number: the cursor is always at its one parameter.
    let last = parameters.len().saturating_sub(1);
    let active = if inside.ends_with("...") {
        active.min(last)
    } else {
        active
    };
    Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label: signature,
            documentation: None,
            parameters: Some(parameters),
            active_parameter: Some(active as u32),
        }],
        active_signature: Some(0),
        active_parameter: Some(active as u32),
    })
}

/// Where the innermost call still open at the end of `before` has its `(`, and how many of its
/// commas come before the end; `None` outside any call. Strings and comments are skipped.
fn enclosing_call(before: &str) -> Option<(usize, usize)> {
    let mut open: Vec<(usize, usize)> = Vec::new();
    let bytes = before.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => open.push((i, 0)),
            b')' | b']' | b'}' => {
                open.pop();
            }
            b',' => {
                if let Some(top) = open.last_mut() {
                    top.1 += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    let &(at, commas) = open.last()?;
    (bytes[at] == b'(').then_some((at, commas))
}

/// `a: int, b: [int]` split at its commas outside brackets.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts
}

/// The token types of [`semantic_tokens`], by index.
pub const TOKEN_TYPES: [SemanticTokenType; 6] = [
    SemanticTokenType::FUNCTION,
    SemanticTokenType::STRUCT,
    SemanticTokenType::PROPERTY,
    SemanticTokenType::VARIABLE,
    SemanticTokenType::PARAMETER,
    SemanticTokenType::VARIABLE,
];
/// The token modifiers: `declaration`, and `readonly` for globals (bit 1).
pub const TOKEN_MODIFIERS: [SemanticTokenModifier; 2] = [
    SemanticTokenModifier::DECLARATION,
    SemanticTokenModifier::READONLY,
];

/// Every name the index knows, declaration and uses, by what it names: what a grammar cannot
/// tell (a local from a global, a field from a function), in the protocol's relative encoding.
pub fn semantic_tokens(doc: &Document) -> SemanticTokens {
    let symbols = &doc.index.symbols;
    let mut names: Vec<(pcc_lang::Span, SymbolId, bool)> = (0..symbols.len())
        .map(|id| (symbols[id].span, id, true))
        .chain(doc.index.uses.iter().map(|&(span, id)| (span, id, false)))
        .filter(|(span, _, _)| span.hi > span.lo)
        .collect();
    names.sort_by_key(|(span, _, _)| (span.lo, span.hi));
    names.dedup_by_key(|(span, _, _)| span.lo);
    let mut data = Vec::with_capacity(names.len());
    let (mut line, mut start) = (0, 0);
    for (span, id, declaration) in names {
        let range = doc.range(span);
        if range.start.line != range.end.line {
            continue;
        }
        let kind = symbols[id].kind;
        let token_type = match kind {
            SymbolKind::Function => 0,
            SymbolKind::Struct => 1,
            SymbolKind::Field => 2,
            SymbolKind::Global | SymbolKind::Const => 3,
            SymbolKind::Parameter => 4,
            SymbolKind::Local => 5,
        };
        let modifiers = u32::from(declaration)
            | (u32::from(matches!(kind, SymbolKind::Global | SymbolKind::Const)) << 1);
        let delta_line = range.start.line - line;
        let delta_start = if delta_line == 0 {
            range.start.character - start
        } else {
            range.start.character
        };
        data.push(SemanticToken {
            delta_line,
            delta_start,
            length: range.end.character - range.start.character,
            token_type,
            token_modifiers_bitset: modifiers,
        });
        (line, start) = (range.start.line, range.start.character);
    }
    SemanticTokens {
        result_id: None,
        data,
    }
}
