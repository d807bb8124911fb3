//! `pcc lsp`: a Language Server Protocol server over stdio (on `lsp-server`, the synchronous
//! scaffold rust-analyzer is built on). Every answer comes from the front end's analysis of the
//! open buffer (`pcc_lang::analyze`), redone on each change; profiles next to the file add code
//! lenses (`overlay.rs`).
//!
//! [`Server`] holds the state and answers one message at a time, so tests drive it directly.

mod document;
mod features;
mod overlay;
mod position;

use std::collections::HashMap;

use lsp_server::{Connection, Message, Notification, Request, Response};
use lsp_types::{
    CodeLensOptions, CompletionOptions, DidChangeTextDocumentParams, DidOpenTextDocumentParams,
    GotoDefinitionResponse, HoverProviderCapability, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, TextDocumentIdentifier, TextDocumentPositionParams,
    TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use document::Document;

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
        completion_provider: Some(CompletionOptions::default()),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        ..ServerCapabilities::default()
    }
}

/// The open documents and the profiles read for them.
#[derive(Default)]
pub struct Server {
    documents: HashMap<String, Document>,
    overlays: overlay::Overlays,
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, String> {
    serde_json::from_value(params).map_err(|error| format!("invalid parameters: {error}"))
}

fn to_json(value: impl serde::Serialize) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|error| error.to_string())
}

impl Server {
    fn document(&self, uri: &Uri) -> Result<&Document, String> {
        self.documents
            .get(uri.as_str())
            .ok_or_else(|| format!("{} is not open", uri.as_str()))
    }

    /// The text of an open document, as the edits so far made it.
    pub fn text(&self, uri: &str) -> Option<&str> {
        self.documents.get(uri).map(|doc| doc.text.as_str())
    }

    /// The diagnostics of a document (its errors and stale-profile warnings), to publish.
    fn publish(&mut self, uri: &str) -> Option<Notification> {
        let doc = self.documents.get(uri)?;
        let mut diagnostics = features::diagnostics(doc);
        diagnostics.extend(overlay::stale_warnings(
            doc,
            &self.overlays.for_document(doc),
        ));
        let params = PublishDiagnosticsParams {
            uri: uri.parse().ok()?,
            diagnostics,
            version: None,
        };
        Some(Notification::new(
            "textDocument/publishDiagnostics".to_string(),
            params,
        ))
    }

    /// Handles a notification; returns the notifications to send back.
    pub fn notification(&mut self, method: &str, params: Value) -> Vec<Notification> {
        let uri = match method {
            "textDocument/didOpen" => {
                let Ok(params) = parse::<DidOpenTextDocumentParams>(params) else {
                    return Vec::new();
                };
                let uri = params.text_document.uri.as_str().to_string();
                let doc = Document::new(uri.clone(), params.text_document.text);
                self.documents.insert(uri.clone(), doc);
                uri
            }
            "textDocument/didChange" => {
                let Ok(params) = parse::<DidChangeTextDocumentParams>(params) else {
                    return Vec::new();
                };
                let uri = params.text_document.uri.as_str().to_string();
                let Some(doc) = self.documents.remove(&uri) else {
                    return Vec::new();
                };
                let doc = doc.change(params.content_changes);
                self.documents.insert(uri.clone(), doc);
                uri
            }
            // A profile may have been written by a run since: its warnings are refreshed.
            "textDocument/didSave" => {
                let Ok(params) = parse::<DocumentParams>(params) else {
                    return Vec::new();
                };
                params.text_document.uri.as_str().to_string()
            }
            // A profile was written or removed: every document's warnings may change.
            "workspace/didChangeWatchedFiles" => {
                let uris: Vec<String> = self.documents.keys().cloned().collect();
                return uris.iter().filter_map(|uri| self.publish(uri)).collect();
            }
            "textDocument/didClose" => {
                if let Ok(params) = parse::<DocumentParams>(params) {
                    self.documents.remove(params.text_document.uri.as_str());
                }
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        self.publish(&uri).into_iter().collect()
    }

    /// Answers a request: its result, or an error message.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
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
                let uri = p.text_document.uri.as_str();
                let doc = (self.documents.get(uri)).ok_or_else(|| format!("{uri} is not open"))?;
                let overlays = self.overlays.for_document(doc);
                to_json(overlay::code_lenses(doc, &overlays))
            }
            _ => Err(format!("unsupported request `{method}`")),
        }
    }
}

/// The `textDocument` parameter every document-wide request has.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocumentParams {
    text_document: TextDocumentIdentifier,
}

/// Serves the editor on stdin/stdout until it says `exit`. Returns the exit status.
pub fn run() -> i32 {
    let (connection, io_threads) = Connection::stdio();
    let result = serve(&connection);
    drop(connection);
    match result.and_then(|()| io_threads.join().map_err(|e| e.to_string())) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("error: pcc lsp: {error}");
            1
        }
    }
}

fn serve(connection: &Connection) -> Result<(), String> {
    let capabilities = to_json(capabilities())?;
    let client = connection
        .initialize(capabilities)
        .map_err(|e| e.to_string())?;
    let client = &client["capabilities"]["workspace"];
    let send = |message: Message| connection.sender.send(message).map_err(|e| e.to_string());
    // Profiles change when a run rewrites them: ask to be told, where the client can.
    if client["didChangeWatchedFiles"]["dynamicRegistration"] == true {
        send(Message::Request(Request::new(
            "pcc/watch-profiles".to_string().into(),
            "client/registerCapability".to_string(),
            watch_profiles(),
        )))?;
    }
    let refresh_lenses = client["codeLens"]["refreshSupport"] == true;
    let mut server = Server::default();
    let mut refreshes = 0;
    for message in &connection.receiver {
        let replies: Vec<Message> = match message {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let id = request.id.clone();
                vec![Message::Response(
                    guarded(|| answer(&mut server, request)).unwrap_or_else(|panic| {
                        Response::new_err(id, lsp_server::ErrorCode::InternalError as i32, panic)
                    }),
                )]
            }
            Message::Notification(notification) => {
                let method = notification.method.clone();
                let mut replies: Vec<Message> =
                    guarded(|| server.notification(&method, notification.params))
                        .unwrap_or_default()
                        .into_iter()
                        .map(Message::Notification)
                        .collect();
                if notification.method == "workspace/didChangeWatchedFiles" && refresh_lenses {
                    refreshes += 1;
                    replies.push(Message::Request(Request::new(
                        format!("pcc/refresh-{refreshes}").into(),
                        "workspace/codeLens/refresh".to_string(),
                        Value::Null,
                    )));
                }
                replies
            }
            Message::Response(_) => Vec::new(),
        };
        for reply in replies {
            send(reply)?;
        }
    }
    Ok(())
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
        Err(message) => {
            let code = if message.starts_with("unsupported") {
                lsp_server::ErrorCode::MethodNotFound
            } else {
                lsp_server::ErrorCode::InvalidParams
            };
            Response::new_err(request.id, code as i32, message)
        }
    }
}
