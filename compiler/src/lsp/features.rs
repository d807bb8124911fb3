//! The answers to an editor's questions about one document: diagnostics, hover, definition,
//! references, document symbols and completion, all read off the front end's index.

use lsp_types::{
    CompletionItem, CompletionItemKind, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, DocumentSymbol, Hover, HoverContents, Location, MarkupContent, MarkupKind,
    Position, SymbolKind as LspSymbolKind, Uri,
};
use pcc_lang::index::{Symbol, SymbolId, SymbolKind};
use pcc_lang::typed::Builtin;

use super::document::Document;

/// The errors of `pcc check`: the same message and span; the label under the caret, the notes
/// and the help follow the message, and secondary spans are related information.
pub fn diagnostics(doc: &Document) -> Vec<Diagnostic> {
    let Err(errors) = &doc.checked else {
        return Vec::new();
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
                severity: Some(DiagnosticSeverity::ERROR),
                source: Some("pcc".to_string()),
                message,
                related_information: related,
                ..Diagnostic::default()
            }
        })
        .collect()
}

/// What a symbol is, as one line of PL.
fn describe(doc: &Document, symbol: &Symbol) -> String {
    let parent = |s: &Symbol| s.parent.map(|p| doc.index.symbols[p].name.clone());
    match symbol.kind {
        SymbolKind::Function | SymbolKind::Struct => symbol.detail.clone(),
        SymbolKind::Field => format!(
            "{}.{}: {}",
            parent(symbol).unwrap_or_default(),
            symbol.name,
            symbol.detail
        ),
        SymbolKind::Global => format!("let {}: {}  // global", symbol.name, symbol.detail),
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
        return Some(code_block(&describe(doc, &doc.index.symbols[id])));
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

fn lsp_kind(kind: SymbolKind) -> LspSymbolKind {
    match kind {
        SymbolKind::Function => LspSymbolKind::FUNCTION,
        SymbolKind::Struct => LspSymbolKind::STRUCT,
        SymbolKind::Field => LspSymbolKind::FIELD,
        SymbolKind::Global => LspSymbolKind::CONSTANT,
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
        SymbolKind::Global => CompletionItemKind::CONSTANT,
        SymbolKind::Parameter | SymbolKind::Local => CompletionItemKind::VARIABLE,
    }
}

/// The names in scope at the cursor, with their types, then the built-ins the program does not
/// redefine, with their signatures.
pub fn completion(doc: &Document, position: Position) -> Vec<CompletionItem> {
    let offset = doc.offset(position);
    // Scope is decided where the word being typed starts, not inside it.
    let (_, start) = word_at(&doc.text, offset);
    let visible = doc.index.visible_at(start as u32);
    let mut items: Vec<CompletionItem> = visible
        .iter()
        .map(|&id| {
            let symbol = &doc.index.symbols[id];
            CompletionItem {
                label: symbol.name.clone(),
                kind: Some(completion_kind(symbol.kind)),
                detail: Some(describe(doc, symbol)),
                ..CompletionItem::default()
            }
        })
        .collect();
    let defined = |name: &str| {
        visible.iter().any(|&id| {
            let symbol = &doc.index.symbols[id];
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
