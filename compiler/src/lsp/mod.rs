//! `pcc lsp`: a Language Server Protocol server over stdio. Every answer comes from the front
//! end's analysis of the open buffer (`pcc_lang::analyze`); profiles next to the file add code
//! lenses (`overlay.rs`). The messages are `lsp-server`'s types, read and written by
//! `transport.rs`, which answers bodies that are not messages with JSON-RPC errors instead of
//! ending the session.
//!
//! An edit is applied at once but checked only when a request needs the result, or when the
//! editor has paused ([`QUIET`]): a burst of edits to a large file costs one check, of its last
//! version, and its diagnostics carry that version.
//!
//! [`Server`] holds the state and answers one message at a time, so tests drive it directly.

mod document;
mod features;
mod overlay;
mod position;
mod transport;

use std::collections::HashMap;
use std::io::Write;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    CodeLensOptions, CompletionOptions, DidChangeTextDocumentParams, DidOpenTextDocumentParams,
    GotoDefinitionResponse, HoverProviderCapability, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, TextDocumentIdentifier, TextDocumentPositionParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use document::Document;
use transport::{Incoming, Received};

/// What the server can do, as `initialize` tells the editor.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".to_string()]),
            ..CompletionOptions::default()
        }),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        execute_command_provider: Some(lsp_types::ExecuteCommandOptions {
            commands: vec![overlay::SHOW_PATH.to_string()],
            ..lsp_types::ExecuteCommandOptions::default()
        }),
        signature_help_provider: Some(lsp_types::SignatureHelpOptions {
            trigger_characters: Some(vec!["(".to_string(), ",".to_string()]),
            ..lsp_types::SignatureHelpOptions::default()
        }),
        semantic_tokens_provider: Some(
            lsp_types::SemanticTokensServerCapabilities::SemanticTokensOptions(
                lsp_types::SemanticTokensOptions {
                    legend: lsp_types::SemanticTokensLegend {
                        token_types: features::TOKEN_TYPES.to_vec(),
                        token_modifiers: features::TOKEN_MODIFIERS.to_vec(),
                    },
                    full: Some(lsp_types::SemanticTokensFullOptions::Bool(true)),
                    ..lsp_types::SemanticTokensOptions::default()
                },
            ),
        ),
        document_highlight_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// An open document: checked, or edited since it was last checked (checking waits until the
/// editor pauses, or until a request needs it).
enum Open {
    Checked(Box<Document>),
    Edited { text: String, version: i32 },
}

/// The open documents and the profiles read for them.
#[derive(Default)]
pub struct Server {
    documents: HashMap<String, Open>,
    /// The documents whose diagnostics are due (changed, saved, their profiles changed), and
    /// since when.
    unpublished: HashMap<String, Instant>,
    overlays: overlay::Overlays,
}

/// Why a request gets an error response: its message, and its code ([`RequestError::code`]).
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("unsupported request `{0}`")]
    Unsupported(String),
    #[error("invalid parameters: {0}")]
    InvalidParams(serde_json::Error),
    /// The request names a document that is not open.
    #[error("{0} is not open")]
    NotOpen(String),
    /// The answer could not be made JSON.
    #[error("{0}")]
    Json(serde_json::Error),
    /// `textDocument/rename` at a position with no symbol.
    #[error("no symbol to rename here")]
    NoSymbolToRename,
    /// `textDocument/rename` to a name that is not an identifier, or is a keyword.
    #[error(
        "`{0}` is not a name PL allows (a letter or `_`, then letters, digits or `_`, not a keyword)"
    )]
    NotAName(String),
}

impl RequestError {
    /// The JSON-RPC error code of the response.
    fn code(&self) -> ErrorCode {
        match self {
            RequestError::Unsupported(_) => ErrorCode::MethodNotFound,
            _ => ErrorCode::InvalidParams,
        }
    }
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, RequestError> {
    serde_json::from_value(params).map_err(RequestError::InvalidParams)
}

fn to_json(value: impl serde::Serialize) -> Result<Value, RequestError> {
    serde_json::to_value(value).map_err(RequestError::Json)
}

/// The checked document `uri`, checked now if it was edited since.
fn checked<'a>(
    documents: &'a mut HashMap<String, Open>,
    uri: &str,
) -> Result<&'a Document, RequestError> {
    if let Some(Open::Edited { .. }) = documents.get(uri) {
        // Removed while it is checked: a panic in the front end closes it, as the editor
        // learns from the next request, rather than leaving an empty text behind.
        let Some(Open::Edited { text, version }) = documents.remove(uri) else {
            unreachable!()
        };
        let doc = Document::new(uri.to_string(), text, version);
        documents.insert(uri.to_string(), Open::Checked(Box::new(doc)));
    }
    match documents.get(uri) {
        Some(Open::Checked(doc)) => Ok(doc),
        _ => Err(RequestError::NotOpen(uri.to_string())),
    }
}

impl Server {
    fn document(&mut self, uri: &Uri) -> Result<&Document, RequestError> {
        checked(&mut self.documents, uri.as_str())
    }

    /// The text of an open document, as the edits so far made it.
    pub fn text(&self, uri: &str) -> Option<&str> {
        match self.documents.get(uri)? {
            Open::Checked(doc) => Some(&doc.text),
            Open::Edited { text, .. } => Some(text),
        }
    }

    /// Since when the oldest diagnostics due have waited, if any are.
    pub fn unpublished_since(&self) -> Option<Instant> {
        self.unpublished.values().min().copied()
    }

    fn due(&mut self, uri: String) {
        self.unpublished.entry(uri).or_insert_with(Instant::now);
    }

    /// The diagnostics due (each document's errors and stale-profile warnings), checking the
    /// documents edited since their last check; with `checked_only`, only those of documents
    /// already checked (a request needed them), which cost nothing more.
    pub fn publish(&mut self, checked_only: bool) -> Vec<Notification> {
        let mut uris: Vec<String> = (self.unpublished.keys())
            .filter(|uri| {
                !checked_only || matches!(self.documents.get(*uri), Some(Open::Checked(_)))
            })
            .cloned()
            .collect();
        uris.sort();
        let mut published = Vec::new();
        for uri in uris {
            self.unpublished.remove(&uri);
            let Ok(doc) = checked(&mut self.documents, &uri) else {
                continue;
            };
            let mut diagnostics = features::diagnostics(doc);
            diagnostics.extend(overlay::stale_warnings(
                doc,
                &self.overlays.for_document(doc),
            ));
            let Ok(uri) = uri.parse() else {
                continue;
            };
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics,
                version: Some(doc.version),
            };
            published.push(Notification::new(
                "textDocument/publishDiagnostics".to_string(),
                params,
            ));
        }
        published
    }

    /// Handles a notification. The diagnostics it makes due are [`Server::publish`]ed later.
    pub fn notification(&mut self, method: &str, params: Value) {
        match method {
            "textDocument/didOpen" => {
                let Ok(params) = parse::<DidOpenTextDocumentParams>(params) else {
                    return;
                };
                let doc = params.text_document;
                let uri = doc.uri.as_str().to_string();
                let (text, version) = (doc.text, doc.version);
                self.documents
                    .insert(uri.clone(), Open::Edited { text, version });
                self.due(uri);
            }
            "textDocument/didChange" => {
                let Ok(params) = parse::<DidChangeTextDocumentParams>(params) else {
                    return;
                };
                let uri = params.text_document.uri.as_str().to_string();
                let mut text = match self.documents.remove(&uri) {
                    Some(Open::Checked(doc)) => doc.text,
                    Some(Open::Edited { text, .. }) => text,
                    None => return,
                };
                document::apply(&mut text, params.content_changes);
                let version = params.text_document.version;
                self.documents
                    .insert(uri.clone(), Open::Edited { text, version });
                self.due(uri);
            }
            // A profile may have been written by a run since: its warnings are refreshed.
            "textDocument/didSave" => {
                if let Ok(params) = parse::<DocumentParams>(params) {
                    let uri = params.text_document.uri.as_str();
                    if self.documents.contains_key(uri) {
                        self.due(uri.to_string());
                    }
                }
            }
            // A profile was written or removed: every document's warnings may change.
            "workspace/didChangeWatchedFiles" => {
                let uris: Vec<String> = self.documents.keys().cloned().collect();
                uris.into_iter().for_each(|uri| self.due(uri));
            }
            "textDocument/didClose" => {
                if let Ok(params) = parse::<DocumentParams>(params) {
                    let uri = params.text_document.uri.as_str();
                    self.documents.remove(uri);
                    self.unpublished.remove(uri);
                }
            }
            _ => {}
        }
    }

    /// Answers a request: its result, or why there is none.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, RequestError> {
        match method {
            "textDocument/hover" => {
                let p: TextDocumentPositionParams = parse(params)?;
                to_json(features::hover(
                    self.document(&p.text_document.uri)?,
                    p.position,
                ))
            }
            "textDocument/definition" => {
                let p: TextDocumentPositionParams = parse(params)?;
                let uri = &p.text_document.uri;
                let location = features::definition(self.document(uri)?, uri, p.position);
                to_json(location.map(GotoDefinitionResponse::Scalar))
            }
            "textDocument/references" => {
                let p: lsp_types::ReferenceParams = parse(params)?;
                let at = p.text_document_position;
                let uri = &at.text_document.uri;
                to_json(features::references(
                    self.document(uri)?,
                    uri,
                    at.position,
                    p.context.include_declaration,
                ))
            }
            "textDocument/documentSymbol" => {
                let p: DocumentParams = parse(params)?;
                to_json(features::document_symbols(
                    self.document(&p.text_document.uri)?,
                ))
            }
            "textDocument/completion" => {
                let p: TextDocumentPositionParams = parse(params)?;
                to_json(features::completion(
                    self.document(&p.text_document.uri)?,
                    p.position,
                ))
            }
            "textDocument/codeLens" => {
                let p: DocumentParams = parse(params)?;
                let doc = checked(&mut self.documents, p.text_document.uri.as_str())?;
                let overlays = self.overlays.for_document(doc);
                to_json(overlay::code_lenses(doc, overlay::shown(doc, &overlays)))
            }
            "textDocument/inlayHint" => {
                let p: lsp_types::InlayHintParams = parse(params)?;
                let doc = checked(&mut self.documents, p.text_document.uri.as_str())?;
                let overlays = self.overlays.for_document(doc);
                to_json(overlay::inlay_hints(
                    doc,
                    overlay::shown(doc, &overlays),
                    p.range,
                ))
            }
            "textDocument/signatureHelp" => {
                let p: TextDocumentPositionParams = parse(params)?;
                to_json(features::signature_help(
                    self.document(&p.text_document.uri)?,
                    p.position,
                ))
            }
            "textDocument/semanticTokens/full" => {
                let p: DocumentParams = parse(params)?;
                to_json(features::semantic_tokens(
                    self.document(&p.text_document.uri)?,
                ))
            }
            "textDocument/documentHighlight" => {
                let p: lsp_types::DocumentHighlightParams = parse(params)?;
                let at = p.text_document_position_params;
                to_json(features::highlights(
                    self.document(&at.text_document.uri)?,
                    at.position,
                ))
            }
            "textDocument/rename" => {
                let p: lsp_types::RenameParams = parse(params)?;
                let at = p.text_document_position;
                let uri = &at.text_document.uri;
                features::rename(self.document(uri)?, uri, at.position, &p.new_name)
                    .and_then(to_json)
            }
            _ => Err(RequestError::Unsupported(method.to_string())),
        }
    }
}

/// The `textDocument` parameter every document-wide request has.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocumentParams {
    text_document: TextDocumentIdentifier,
}

/// How long the input must be quiet before the documents edited are checked and their
/// diagnostics published: a burst of edits is checked once, at its last version.
const QUIET: Duration = Duration::from_millis(50);
/// The longest diagnostics wait while messages keep coming.
const PATIENCE: Duration = Duration::from_secs(1);

/// Serves the editor on stdin/stdout until it says `exit`. Returns the exit status: 0 after
/// `shutdown` then `exit`, or at the end of the input; 1 after an `exit` without `shutdown` (as
/// the protocol says) or a broken frame.
pub fn run() -> i32 {
    let input = transport::spawn_reader();
    let stdout = std::io::stdout();
    let mut session = Session {
        out: stdout.lock(),
        server: Server::default(),
        phase: Phase::Uninitialized,
        watch_profiles: false,
        refresh_lenses: false,
        refreshes: 0,
    };
    match session.serve(&input) {
        Ok(status) => status,
        Err(error) => {
            eprintln!("error: pcc lsp: {error}");
            1
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Uninitialized,
    Running,
    ShutDown,
}

/// The server and its side of the connection.
struct Session<W: Write> {
    out: W,
    server: Server,
    phase: Phase,
    /// What the client can do: tell the server when files change, refresh code lenses.
    watch_profiles: bool,
    refresh_lenses: bool,
    /// Requests sent to the client so far (lens refreshes, documents shown), for their ids.
    refreshes: u32,
}

impl<W: Write> Session<W> {
    fn send(&mut self, message: &impl serde::Serialize) -> Result<(), String> {
        transport::write(&mut self.out, message).map_err(|e| format!("cannot write stdout: {e}"))
    }

    fn send_error(
        &mut self,
        id: RequestId,
        code: ErrorCode,
        message: String,
    ) -> Result<(), String> {
        self.send(&Message::Response(Response::new_err(
            id,
            code as i32,
            message,
        )))
    }

    /// Publishes the diagnostics due (see [`Server::publish`]).
    fn publish(&mut self, checked_only: bool) -> Result<(), String> {
        let published = guarded(|| self.server.publish(checked_only)).unwrap_or_default();
        for notification in published {
            self.send(&Message::Notification(notification))?;
        }
        Ok(())
    }

    /// Answers messages until `exit` or the end of the input; the exit status.
    fn serve(&mut self, input: &mpsc::Receiver<Received>) -> Result<i32, String> {
        let mut last = Instant::now();
        let mut more = false;
        loop {
            let received = match self.server.unpublished_since() {
                None => input.recv().ok(),
                Some(since) => {
                    let now = Instant::now();
                    let deadline = if more {
                        since + PATIENCE
                    } else {
                        (last + QUIET).min(since + PATIENCE)
                    };
                    if now >= since + PATIENCE {
                        self.publish(false)?;
                        continue;
                    }
                    match input.recv_timeout(deadline.saturating_duration_since(now)) {
                        Ok(received) => Some(received),
                        Err(mpsc::RecvTimeoutError::Timeout) => {
                            self.publish(false)?;
                            continue;
                        }
                        Err(mpsc::RecvTimeoutError::Disconnected) => None,
                    }
                }
            };
            // The reader says why it stops before it does.
            let Some(received) = received else {
                return Ok(0);
            };
            (last, more) = (Instant::now(), received.more);
            match received.incoming {
                Incoming::Message(message) => {
                    if let Some(status) = self.handle(message)? {
                        return Ok(status);
                    }
                }
                Incoming::Invalid(response) => self.send(&response)?,
                Incoming::Ignored => {}
                Incoming::End(Ok(())) => return Ok(0),
                Incoming::End(Err(error)) => return Err(error),
            }
        }
    }

    /// Handles one message; the exit status once the client says `exit`.
    fn handle(&mut self, message: Message) -> Result<Option<i32>, String> {
        match message {
            Message::Request(request) => self.request(request)?,
            Message::Notification(notification) if notification.method == "exit" => {
                return Ok(Some(if self.phase == Phase::ShutDown { 0 } else { 1 }));
            }
            Message::Notification(notification) => self.notification(notification)?,
            Message::Response(_) => {}
        }
        Ok(None)
    }

    fn request(&mut self, request: Request) -> Result<(), String> {
        match (self.phase, request.method.as_str()) {
            (Phase::Uninitialized, "initialize") => {
                let client = &request.params["capabilities"]["workspace"];
                self.watch_profiles =
                    client["didChangeWatchedFiles"]["dynamicRegistration"] == true;
                self.refresh_lenses = client["codeLens"]["refreshSupport"] == true;
                let result = json!({
                    "capabilities": to_json(capabilities()).map_err(|e| e.to_string())?,
                    "serverInfo": { "name": "pcc", "version": env!("CARGO_PKG_VERSION") },
                });
                self.phase = Phase::Running;
                self.send(&Message::Response(Response::new_ok(request.id, result)))
            }
            (Phase::Uninitialized, method) => {
                let message = format!("`{method}` before `initialize`");
                self.send_error(request.id, ErrorCode::ServerNotInitialized, message)
            }
            (Phase::ShutDown, method) => {
                let message = format!("`{method}` after `shutdown`: only `exit` may follow");
                self.send_error(request.id, ErrorCode::InvalidRequest, message)
            }
            (Phase::Running, "initialize") => {
                let message = "`initialize` again".to_string();
                self.send_error(request.id, ErrorCode::InvalidRequest, message)
            }
            // A lens's command: the server asks the editor to show the path's lines.
            (Phase::Running, "workspace/executeCommand")
                if request.params["command"] == overlay::SHOW_PATH =>
            {
                let show = overlay::show_path(&request.params["arguments"]);
                self.send(&Message::Response(Response::new_ok(
                    request.id,
                    Value::Null,
                )))?;
                let Some(params) = show else { return Ok(()) };
                self.refreshes += 1;
                self.send(&Message::Request(Request::new(
                    format!("pcc/show-{}", self.refreshes).into(),
                    "window/showDocument".to_string(),
                    params,
                )))
            }
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShutDown;
                self.send(&Message::Response(Response::new_ok(request.id, ())))
            }
            (Phase::Running, _) => {
                let id = request.id.clone();
                let response =
                    guarded(|| answer(&mut self.server, request)).unwrap_or_else(|panic| {
                        Response::new_err(id, ErrorCode::InternalError as i32, panic)
                    });
                self.send(&Message::Response(response))?;
                // The request may have checked an edited document: its diagnostics are ready.
                self.publish(true)
            }
        }
    }

    fn notification(&mut self, notification: Notification) -> Result<(), String> {
        if self.phase != Phase::Running {
            return Ok(());
        }
        let method = notification.method.as_str();
        // Profiles change when a run rewrites them: ask to be told, where the client can.
        if method == "initialized" && self.watch_profiles {
            return self.send(&Message::Request(Request::new(
                "pcc/watch-profiles".to_string().into(),
                "client/registerCapability".to_string(),
                watch_profiles(),
            )));
        }
        let watched = method == "workspace/didChangeWatchedFiles";
        let params = notification.params;
        guarded(|| self.server.notification(&notification.method, params)).unwrap_or_default();
        if watched {
            // Not an edit: the new warnings now, then the lenses.
            self.publish(false)?;
            if self.refresh_lenses {
                self.refreshes += 1;
                self.send(&Message::Request(Request::new(
                    format!("pcc/refresh-{}", self.refreshes).into(),
                    "workspace/codeLens/refresh".to_string(),
                    Value::Null,
                )))?;
            }
        }
        Ok(())
    }
}

/// Runs a handler; a panic (a bug: the hook has already printed it on stderr) becomes an error
/// message, so that one bad request does not end the editor's session.
fn guarded<T>(handler: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler))
        .map_err(|_| "internal error in pcc lsp (details on its stderr)".to_string())
}

/// The registration of a watcher of every profile file.
fn watch_profiles() -> lsp_types::RegistrationParams {
    let options = lsp_types::DidChangeWatchedFilesRegistrationOptions {
        watchers: vec![lsp_types::FileSystemWatcher {
            glob_pattern: lsp_types::GlobPattern::String("**/*.profile.json".to_string()),
            kind: None,
        }],
    };
    lsp_types::RegistrationParams {
        registrations: vec![lsp_types::Registration {
            id: "pcc-profiles".to_string(),
            method: "workspace/didChangeWatchedFiles".to_string(),
            register_options: serde_json::to_value(options).ok(),
        }],
    }
}

fn answer(server: &mut Server, request: Request) -> Response {
    match server.request(&request.method, request.params) {
        Ok(result) => Response::new_ok(request.id, result),
        Err(error) => Response::new_err(request.id, error.code() as i32, error.to_string()),
    }
}
