//! `pcc lsp` as an editor sees it: a process spoken to over stdio (initialize, didOpen,
//! didChange, hover, definition, references, documentSymbol, completion, codeLens, shutdown,
//! exit), and random edit sequences of every program in programs/ that must never crash it.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use pcc::lsp::Server;
use serde_json::{Value, json};

/// An editor's side of the connection.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
    /// `publishDiagnostics` notifications received, in order.
    published: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pcc"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn pcc lsp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client {
            child,
            stdin,
            stdout,
            next_id: 1,
            published: Vec::new(),
        }
    }

    fn send(&mut self, message: Value) {
        self.send_raw(message.to_string().as_bytes());
    }

    /// Sends one well-framed body, whatever it holds.
    fn send_raw(&mut self, body: &[u8]) {
        self.stdin.write_all(&frame(body)).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message that is not a notification (those met on the way are kept).
    fn next_response(&mut self) -> Value {
        loop {
            let message = self.receive();
            if message.get("method").is_none() {
                return message;
            }
            if message["method"] == "textDocument/publishDiagnostics" {
                self.published.push(message["params"].clone());
            }
        }
    }

    /// The next `publishDiagnostics` parameters (waits for them).
    fn next_published(&mut self) -> Value {
        self.diagnostics_due();
        self.published.remove(0)
    }

    fn diagnostics_due(&mut self) {
        while self.published.is_empty() {
            let message = self.receive();
            if message["method"] == "textDocument/publishDiagnostics" {
                self.published.push(message["params"].clone());
            }
        }
    }

    fn receive(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().unwrap();
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its result (notifications met on the way are kept).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let message = self.exchange(method, params);
        assert!(message.get("error").is_none(), "{method}: {message}");
        message["result"].clone()
    }

    /// Sends a request and returns the server's whole response (its result or its error).
    fn exchange(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == json!(id) {
                return message;
            }
            if message["method"] == "textDocument/publishDiagnostics" {
                self.published.push(message["params"].clone());
            }
        }
    }

    /// Waits for a request of the server's with this method; returns its parameters.
    fn server_request(&mut self, method: &str) -> Value {
        loop {
            let message = self.receive();
            if message["method"] == method && message.get("id").is_some() {
                return message["params"].clone();
            }
            if message["method"] == "textDocument/publishDiagnostics" {
                self.published.push(message["params"].clone());
            }
        }
    }

    /// The next diagnostics published (waits for them).
    fn diagnostics(&mut self) -> Vec<Value> {
        let params = self.next_published();
        params["diagnostics"].as_array().unwrap().clone()
    }
}

/// A body with its `Content-Length` header.
fn frame(body: &[u8]) -> Vec<u8> {
    let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    frame.extend_from_slice(body);
    frame
}

const PROGRAM: &str = "struct Node { key: int, next: Node }

let LIMIT: int = 10;

fn sum(n: Node) -> int {
    let total = 0;
    while n != null {
        total += n.key;
        n = n.next;
    }
    return total;
}

fn main() {
    let head = new Node { key: 1, next: null };
    println(sum(head) + LIMIT);
}
";

/// The LSP position of the `nth` occurrence of `needle` (plus `shift` characters); ASCII text.
fn at(text: &str, needle: &str, nth: usize, shift: u32) -> Value {
    let offset = text.match_indices(needle).nth(nth).expect(needle).0;
    let line = text[..offset].matches('\n').count();
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1);
    json!({ "line": line, "character": column as u32 + shift })
}

fn position_params(uri: &str, position: Value) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position })
}

fn hover_text(client: &mut Client, uri: &str, position: Value) -> String {
    let hover = client.request("textDocument/hover", position_params(uri, position));
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn initialize(client: &mut Client, capabilities: Value) {
    let result = client.request(
        "initialize",
        json!({ "processId": null, "rootUri": null, "capabilities": capabilities }),
    );
    let caps = &result["capabilities"];
    for capability in [
        "hoverProvider",
        "definitionProvider",
        "referencesProvider",
        "documentSymbolProvider",
        "completionProvider",
        "codeLensProvider",
        "inlayHintProvider",
        "documentHighlightProvider",
        "renameProvider",
        "signatureHelpProvider",
        "semanticTokensProvider",
    ] {
        assert!(caps.get(capability).is_some(), "{capability} in {caps}");
    }
    client.notify("initialized", json!({}));
}

/// A server with `source` open as `name` in `scratch` (which must outlive it), and its URI.
fn opened(scratch: &common::Scratch, name: &str, source: &str) -> (Client, String) {
    let file = scratch.path(name);
    std::fs::write(&file, source).unwrap();
    let uri = format!("file://{}", file.display());
    let mut client = Client::start();
    initialize(&mut client, json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": source } }),
    );
    (client, uri)
}

fn shutdown(mut client: Client) {
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    client.notify("exit", Value::Null);
    drop(client.stdin);
    let status = client.child.wait().unwrap();
    assert!(status.success(), "pcc lsp exited with {status}");
}

fn an_editor_session() {
    let scratch = common::Scratch::new("lsp_session");
    let (mut client, uri) = opened(&scratch, "list.pl", PROGRAM);
    assert_eq!(client.diagnostics(), Vec::<Value>::new());

    // A typo: the same message as `pcc check`, on the misspelt name.
    let typo_at = at(PROGRAM, "LIMIT);", 0, 0);
    let end =
        json!({ "line": typo_at["line"], "character": typo_at["character"].as_u64().unwrap() + 5 });
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 },
                "contentChanges": [{ "range": { "start": typo_at, "end": end }, "text": "LIMT" }] }),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    let with_typo = PROGRAM.replace("LIMIT);", "LIMT);");
    std::fs::write(scratch.path("list.pl"), &with_typo).unwrap();
    let check = common::pcc_in(&scratch.0, &["check", "list.pl"], "");
    let first = check.stderr.lines().next().unwrap();
    let message = diagnostics[0]["message"].as_str().unwrap();
    assert_eq!(
        first.strip_prefix("error: ").unwrap(),
        message.lines().next().unwrap()
    );
    assert_eq!(diagnostics[0]["range"]["start"], typo_at);
    assert_eq!(
        diagnostics[0]["range"]["end"],
        at(&with_typo, "LIMT);", 0, 4)
    );
    assert_eq!(diagnostics[0]["severity"], 1);

    // The whole text again.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 3 },
                "contentChanges": [{ "text": PROGRAM }] }),
    );
    assert_eq!(client.diagnostics(), Vec::<Value>::new());

    let hover =
        |client: &mut Client, needle, nth| hover_text(client, &uri, at(PROGRAM, needle, nth, 1));
    assert!(hover(&mut client, "total +=", 0).contains("let total: int"));
    assert!(hover(&mut client, "n != null", 0).contains("n: Node  // parameter of sum"));
    assert!(hover(&mut client, "key;", 0).contains("Node.key: int"));
    assert!(hover(&mut client, "sum(head)", 0).contains("fn sum(n: Node) -> int"));
    assert!(hover(&mut client, "LIMIT)", 0).contains("let LIMIT: int  // global"));
    assert!(hover(&mut client, "Node {", 1).contains("struct Node { key: int, next: Node }"));
    assert!(hover(&mut client, "println", 0).contains("fn println(any...)"));

    let definition = client.request(
        "textDocument/definition",
        position_params(&uri, at(PROGRAM, "sum(head)", 0, 1)),
    );
    assert_eq!(definition["range"]["start"], at(PROGRAM, "sum(n", 0, 0));
    assert_eq!(definition["uri"], json!(uri));
    let definition = client.request(
        "textDocument/definition",
        position_params(&uri, at(PROGRAM, "next;", 0, 0)),
    );
    assert_eq!(
        definition["range"]["start"],
        at(PROGRAM, "next: Node", 0, 0)
    );

    let references = client.request(
        "textDocument/references",
        json!({ "textDocument": { "uri": uri }, "position": at(PROGRAM, "n != null", 0, 0),
                "context": { "includeDeclaration": true } }),
    );
    let starts: Vec<&Value> = references
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["range"]["start"])
        .collect();
    let expected = [
        at(PROGRAM, "n: Node", 0, 0),
        at(PROGRAM, "n != null", 0, 0),
        at(PROGRAM, "n.key", 0, 0),
        at(PROGRAM, "n = n.next", 0, 0),
        at(PROGRAM, "n.next", 0, 0),
    ];
    assert_eq!(starts, expected.iter().collect::<Vec<_>>());

    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": uri } }),
    );
    let outline: Vec<String> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let children: Vec<&str> = s["children"]
                .as_array()
                .map(|c| c.iter().map(|c| c["name"].as_str().unwrap()).collect())
                .unwrap_or_default();
            format!("{}({})", s["name"].as_str().unwrap(), children.join(","))
        })
        .collect();
    assert_eq!(
        outline,
        ["Node(key,next)", "sum(n,total)", "main(head)", "LIMIT()"]
    );

    let completion = client.request(
        "textDocument/completion",
        position_params(&uri, at(PROGRAM, "println", 0, 0)),
    );
    let items = completion.as_array().unwrap();
    let label = |name: &str| items.iter().find(|i| i["label"] == name);
    for name in ["head", "LIMIT", "sum", "main", "Node", "sqrt"] {
        assert!(label(name).is_some(), "{name} in {completion}");
    }
    assert!(label("total").is_none(), "a local of another function");
    assert_eq!(label("println").unwrap()["detail"], "fn println(any...)");
    assert_eq!(label("head").unwrap()["detail"], "let head: Node");

    shutdown(client);
}

fn profile_lenses_and_stale_warnings() {
    let scratch = common::Scratch::new("lsp_profile");
    let source = std::fs::read_to_string(common::root().join("programs/add_even.pl")).unwrap();
    let file = scratch.path("add_even.pl");
    std::fs::write(&file, &source).unwrap();
    let run = common::pcc_in(
        &scratch.0,
        &["run", "--profile", "bl", "add_even.pl", "--", "10"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let uri = format!("file://{}", file.display());
    let mut client = Client::start();
    let watching = json!({ "workspace": {
        "didChangeWatchedFiles": { "dynamicRegistration": true },
        "codeLens": { "refreshSupport": true } } });
    initialize(&mut client, watching);
    let registration = client.server_request("client/registerCapability");
    let watcher = &registration["registrations"][0];
    assert_eq!(watcher["method"], "workspace/didChangeWatchedFiles");
    assert_eq!(
        watcher["registerOptions"]["watchers"][0]["globPattern"],
        "**/*.profile.json"
    );
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": source } }),
    );
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    let lenses = client.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    // add_even(10): called once, its loop header reached 11 times, the hottest path is an
    // iteration (5 odd and 5 even ones; the tie goes to the lower path id).
    let add_even = titles
        .iter()
        .find(|t| t.starts_with("bl: 1 call, 11 path executions"))
        .expect("add_even lens");
    assert!(add_even.contains("hottest path 5×"), "{titles:?}");
    let header = 1 + source[..source.find("while").unwrap()]
        .matches('\n')
        .count();
    assert!(
        titles.iter().any(|t| t.starts_with("bl: loop header")),
        "{titles:?}"
    );
    assert!(
        titles
            .iter()
            .any(|t| t.contains(&format!("(line {header}) entered 11 times"))),
        "{titles:?}"
    );
    // A function's lens opens its hottest path: the server asks the editor to show its lines.
    let first = &lenses.as_array().unwrap()[0]["command"];
    assert_eq!(first["command"], "pcc.showPath", "{first}");
    let executed = client.request(
        "workspace/executeCommand",
        json!({ "command": "pcc.showPath", "arguments": first["arguments"] }),
    );
    assert_eq!(executed, Value::Null);
    let shown = client.server_request("window/showDocument");
    assert_eq!(shown["uri"], uri);
    assert_eq!(shown["selection"]["start"]["line"], header - 1, "{shown}");
    // One lens per function: the newest fresh profile's, not one per mode.
    let lines_of = |name: &str| titles.iter().filter(|t| t.contains(name)).count();
    assert_eq!(lines_of("path execution"), 2, "{titles:?}");
    // Inlay hints: each line's count, as `pcc profile annotate` gives it.
    let hints = client.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri },
                "range": { "start": { "line": 0, "character": 0 },
                           "end": { "line": 100, "character": 0 } } }),
    );
    let hint = |line: usize| {
        (hints.as_array().unwrap().iter())
            .find(|h| h["position"]["line"] == line - 1)
            .map(|h| h["label"].as_str().unwrap().trim().to_string())
    };
    assert_eq!(hint(header).as_deref(), Some("×11"), "{hints}");
    assert_eq!(hint(header - 1).as_deref(), Some("×1"), "{hints}");
    assert_eq!(hint(1), None, "a comment has no count: {hints}");

    // An edit makes the profile stale.
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 },
                "contentChanges": [{ "text": format!("// edited\n{source}") }] }),
    );
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 2);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .unwrap()
            .contains("stale")
    );

    // A new run of the edited program: the editor says the profile changed, the warning goes
    // and the lenses are refreshed (with the loop a line lower).
    let edited = format!("// edited\n{source}");
    std::fs::write(&file, &edited).unwrap();
    let run = common::pcc_in(
        &scratch.0,
        &["run", "--profile", "bl", "add_even.pl", "--", "10"],
        "",
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let profile = format!(
        "file://{}",
        scratch.path("add_even.bl.profile.json").display()
    );
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": profile, "type": 2 }] }),
    );
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    client.server_request("workspace/codeLens/refresh");
    let lenses = client.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    let loop_line = format!("(line {})", header + 1);
    let titles = lenses.as_array().unwrap().iter();
    assert!(
        titles
            .map(|l| l["command"]["title"].as_str().unwrap())
            .any(|t| t.contains(&loop_line)),
        "{lenses}"
    );
    shutdown(client);
}

/// Issue 52: a FIFO named like a profile beside a document would block the server in `open`
/// for as long as no one writes to it. Profiles are read only if they are regular files. A
/// watchdog opens the FIFO for writing after 10 s, which frees a server blocked on it (and
/// fails the test) rather than hang it.
fn a_fifo_beside_a_document_does_not_hang_the_server() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let scratch = common::Scratch::new("lsp_fifo");
    let source = "fn main() {\n    println(1);\n}\n";
    let file = scratch.path("prog.pl");
    std::fs::write(&file, source).unwrap();
    let fifo = scratch.path("prog.bl.profile.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let freed = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (fifo, freed) = (fifo.clone(), freed.clone());
        move || {
            std::thread::sleep(std::time::Duration::from_secs(10));
            // Returns only once a reader has the FIFO open: the server was blocked on it.
            if std::fs::OpenOptions::new().write(true).open(&fifo).is_ok() {
                freed.store(true, Ordering::SeqCst);
            }
        }
    };
    std::thread::spawn(watchdog);
    let uri = format!("file://{}", file.display());
    let mut client = Client::start();
    initialize(&mut client, json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": source } }),
    );
    assert_eq!(client.diagnostics(), Vec::<Value>::new());
    let lenses = client.request(
        "textDocument/codeLens",
        json!({ "textDocument": { "uri": uri } }),
    );
    assert!(
        !freed.load(Ordering::SeqCst),
        "the server waited for a writer of the FIFO"
    );
    assert_eq!(lenses, json!([]), "{lenses}");
    shutdown(client);
    assert!(!freed.load(Ordering::SeqCst));
}

/// A small deterministic generator (xorshift), so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

/// A random position, sometimes past the end of its line or of the text.
fn random_position(rng: &mut Rng, text: &str) -> Value {
    let lines = text.lines().count() as u64 + 2;
    json!({ "line": rng.below(lines), "character": rng.below(40) })
}

/// A random edit: delete a range, insert a piece of the program or of its own text (with
/// multi-byte characters and brackets), or both.
fn random_edit(rng: &mut Rng, text: &str, pieces: &[&str]) -> Value {
    let start = random_position(rng, text);
    let mut end = random_position(rng, text);
    if (end["line"].as_u64(), end["character"].as_u64())
        < (start["line"].as_u64(), start["character"].as_u64())
        || rng.below(2) == 0
    {
        end = start.clone();
    }
    let insert = match rng.below(4) {
        0 => String::new(),
        1 => pieces[rng.below(pieces.len() as u64) as usize].to_string(),
        2 => {
            let lo = rng.below(text.len() as u64) as usize;
            let hi = (lo + rng.below(200) as usize).min(text.len());
            text.get(lo..hi).unwrap_or("").to_string()
        }
        _ => "é𝄞".to_string(),
    };
    json!({ "range": { "start": start, "end": end }, "text": insert })
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    ";",
    "\n",
    "let x = ",
    "fn f(a: int) -> int { return a; }\n",
    "struct S { a: S }\n",
    ".",
    "while true {",
    "\"",
    "/*",
    "new S { a: null }",
    "[1, 2][",
];

/// Drives the handlers directly: every program of programs/, 60 random edits each, and every
/// request at random positions after each edit. Nothing may panic.
fn random_edits_never_crash_the_handlers() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for program in common::pl_files(&common::root().join("programs")) {
        let uri = format!("file://{}", program.display());
        let mut text = std::fs::read_to_string(&program).unwrap();
        let mut server = Server::default();
        server.notification(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": text } }),
        );
        for version in 2..62 {
            let edit = random_edit(&mut rng, &text, PIECES);
            server.notification(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [edit] }),
            );
            for method in [
                "textDocument/hover",
                "textDocument/definition",
                "textDocument/completion",
            ] {
                let params = position_params(&uri, random_position(&mut rng, &text));
                server.request(method, params).expect(method);
            }
            let params = json!({ "textDocument": { "uri": uri },
                "position": random_position(&mut rng, &text), "context": { "includeDeclaration": true } });
            server.request("textDocument/references", params).unwrap();
            let params = json!({ "textDocument": { "uri": uri } });
            server
                .request("textDocument/documentSymbol", params.clone())
                .unwrap();
            server.request("textDocument/codeLens", params).unwrap();
            text = server.text(&uri).expect("open").to_string();
        }
    }
}

/// The same over stdio: a process fed random edits keeps answering, and shuts down cleanly.
fn random_edits_over_stdio() {
    let program = common::root().join("programs/bst.pl");
    let mut text = std::fs::read_to_string(&program).unwrap();
    let uri = format!("file://{}", Path::new(&program).display());
    let mut client = Client::start();
    initialize(&mut client, json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": text } }),
    );
    let mut rng = Rng(42);
    for version in 2..102 {
        let edit = random_edit(&mut rng, &text, PIECES);
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [edit] }),
        );
        let position = random_position(&mut rng, &text);
        client.request("textDocument/hover", position_params(&uri, position));
        // Positions past the ends are fine: the server clamps them.
        if let Some(piece) = edit["text"].as_str() {
            text.push_str(piece);
        }
    }
    shutdown(client);
}

/// Well-framed bodies that are not messages are answered with JSON-RPC errors (Parse error,
/// Invalid Request; the id where there is a valid one, else `null`) and the session goes on.
fn malformed_messages_are_answered_and_the_session_goes_on() {
    let mut client = Client::start();
    // Before `initialize`, a request is refused and the session waits for it.
    client.send(json!({ "jsonrpc": "2.0", "id": "early", "method": "textDocument/hover" }));
    let refused = client.next_response();
    assert_eq!(
        (&refused["id"], &refused["error"]["code"]),
        (&json!("early"), &json!(-32002))
    );
    initialize(&mut client, json!({}));
    let uri = "untitled:malformed.pl";
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": PROGRAM } }),
    );
    let (parse, invalid) = (-32700, -32600);
    let cases: [(&[u8], Value, i64); 10] = [
        (b"{not json}", Value::Null, parse),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"s":"\ud800"}}"#,
            Value::Null,
            parse,
        ),
        (
            b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"\xff\"}",
            Value::Null,
            parse,
        ),
        (b"", Value::Null, parse),
        (b"5", Value::Null, invalid),
        (b"[]", Value::Null, invalid),
        (br#"{"id": 99}"#, json!(99), invalid),
        (
            br#"{"jsonrpc":"2.0","id":"x","method":5}"#,
            json!("x"),
            invalid,
        ),
        (
            br#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#,
            Value::Null,
            invalid,
        ),
        (
            br#"{"jsonrpc":"2.0","id":4294967296,"method":"shutdown"}"#,
            Value::Null,
            invalid,
        ),
    ];
    let hover_at = at(PROGRAM, "sum(head)", 0, 1);
    for (body, id, code) in cases {
        client.send_raw(body);
        let error = client.next_response();
        let shown = String::from_utf8_lossy(body);
        assert_eq!(error["jsonrpc"], "2.0", "{shown}: {error}");
        assert_eq!(error["id"], id, "{shown}: {error}");
        assert_eq!(error["error"]["code"], code, "{shown}: {error}");
        assert!(error["error"]["message"].is_string(), "{shown}: {error}");
        // ... and the next request is answered as usual.
        let hover = hover_text(&mut client, uri, hover_at.clone());
        assert!(
            hover.contains("fn sum(n: Node) -> int"),
            "after {shown}: {hover}"
        );
    }
    // A response to nothing the server asked is ignored, and so are unknown notifications.
    client.send(json!({ "jsonrpc": "2.0", "id": 12345, "result": null }));
    client
        .send(json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32700, "message": "?" } }));
    client.notify("$/unknown", json!([1, 2]));
    shutdown(client);
}

/// A burst of edits is checked once, at its last version: the only diagnostics published after
/// it are those of the final text.
fn a_burst_of_edits_is_checked_once_at_its_last_version() {
    let uri = "untitled:burst.pl";
    let mut client = Client::start();
    initialize(&mut client, json!({}));
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": PROGRAM } }),
    );
    let opened = client.next_published();
    assert_eq!(
        (&opened["version"], &opened["diagnostics"]),
        (&json!(1), &json!([]))
    );
    // 20 edits, each naming an undefined variable of its own, written at once.
    let mut burst = Vec::new();
    for version in 2..=21 {
        let text = PROGRAM.replace("sum(head) + LIMIT", &format!("sum(head) + v{version}"));
        let change = json!({ "jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] } });
        burst.extend(frame(change.to_string().as_bytes()));
    }
    client.stdin.write_all(&burst).unwrap();
    client.stdin.flush().unwrap();
    let published = client.next_published();
    assert_eq!(published["version"], 21, "{published}");
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published}");
    assert!(
        diagnostics[0]["message"].as_str().unwrap().contains("v21"),
        "{published}"
    );
    // Nothing else was published meanwhile (`request` keeps what it meets on the way).
    assert_eq!(client.request("shutdown", Value::Null), Value::Null);
    assert_eq!(client.published, Vec::<Value>::new());
    client.notify("exit", Value::Null);
    assert!(client.child.wait().unwrap().success());
}

/// Completion after `p.` offers the struct's fields (`.` triggers it), also on a half-typed
/// line that keeps its function from parsing, which keeps the function's locals too; rename
/// edits every occurrence, and refuses a keyword; document highlight marks them.
fn fields_after_a_dot_rename_and_highlight() {
    let mut client = Client::start();
    initialize(&mut client, json!({}));
    let uri = "file:///tmp/fields.pl";
    let typing = PROGRAM.replace(
        "    println(sum(head) + LIMIT);",
        "    println(sum(head) + LIMIT);\n    let k = head.next.",
    );
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "pl", "version": 1, "text": typing } }),
    );
    let labels = |client: &mut Client, position: Value| -> Vec<String> {
        let items = client.request("textDocument/completion", position_params(uri, position));
        (items.as_array().unwrap().iter())
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    let after_dot = labels(&mut client, at(&typing, "head.next.", 0, 10));
    assert_eq!(after_dot, ["key", "next"], "the fields of Node");
    let in_broken_line = labels(&mut client, at(&typing, "let k", 0, 4));
    assert!(
        in_broken_line.contains(&"head".to_string()),
        "{in_broken_line:?}"
    );

    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 },
                "contentChanges": [{ "text": PROGRAM }] }),
    );
    let highlights = client.request(
        "textDocument/documentHighlight",
        position_params(uri, at(PROGRAM, "total", 0, 1)),
    );
    assert_eq!(highlights.as_array().unwrap().len(), 3, "{highlights}");
    let rename = |client: &mut Client, name: &str| {
        client.exchange(
            "textDocument/rename",
            json!({ "textDocument": { "uri": uri }, "position": at(PROGRAM, "total", 0, 1),
                    "newName": name }),
        )
    };
    let edit = rename(&mut client, "acc");
    let edits = edit["result"]["changes"][uri].as_array().unwrap();
    assert_eq!(edits.len(), 3, "{edit}");
    assert!(edits.iter().all(|e| e["newText"] == "acc"));
    // Signature help inside a call: the function's, with the parameter the cursor is at.
    let signature_help = |client: &mut Client, before: &str, shift: u32| {
        let position = position_params(uri, at(PROGRAM, before, 0, shift));
        client.request("textDocument/signatureHelp", position)
    };
    let help = signature_help(&mut client, "sum(head)", 4);
    assert_eq!(
        help["signatures"][0]["label"], "fn sum(n: Node) -> int",
        "{help}"
    );
    assert_eq!(help["activeParameter"], 0);
    assert_eq!(help["signatures"][0]["parameters"][0]["label"], "n: Node");
    let help = signature_help(&mut client, "LIMIT);", 0);
    assert_eq!(
        help["signatures"][0]["label"], "fn println(any...)",
        "{help}"
    );
    // Semantic tokens: every name by what it names; the first is the struct `Node`, declared.
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({ "textDocument": { "uri": uri } }),
    );
    let data: Vec<u64> = (tokens["data"].as_array().unwrap().iter())
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(data.len() % 5, 0);
    assert_eq!(
        data[..5],
        [0, 7, 4, 1, 1],
        "struct Node, a declaration: {data:?}"
    );
    let locals = data.chunks(5).filter(|t| t[3] == 5).count();
    assert!(locals >= 4, "total and head, declared and used: {data:?}");
    let refused = rename(&mut client, "while");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a name"),
        "{refused}"
    );
    shutdown(client);
}

/// This file's tests (`tests/main.rs` runs them).
/// Constants and maps: hover shows a constant's type and value and the map built-ins'
/// signatures, completion offers both, and a shared-rows warning is published as a warning.
fn constants_maps_and_warnings() {
    const SOURCE: &str = "const LIMIT: int = 2 + 1;\nfn main() {\n    let m = new map[str]int;\n    set(m, \"a\", LIMIT);\n    println(get(m, \"a\", 0));\n    let g = [[0; LIMIT]; 2];\n    println(g);\n}\n";
    let scratch = common::Scratch::new("lsp_constants");
    let (mut client, uri) = opened(&scratch, "c.pl", SOURCE);
    let diagnostics = client.diagnostics();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0]["severity"], 2, "a warning: {diagnostics:?}");
    assert_eq!(diagnostics[0]["range"]["start"], at(SOURCE, "[[0;", 0, 0));
    let hover =
        |client: &mut Client, needle, nth| hover_text(client, &uri, at(SOURCE, needle, nth, 1));
    assert!(hover(&mut client, "LIMIT);", 0).contains("const LIMIT: int = 3"));
    assert!(hover(&mut client, "get(", 0).contains("fn get(m: map[K]V, key: K, default: V) -> V"));
    let completion = client.request(
        "textDocument/completion",
        position_params(&uri, at(SOURCE, "println(g", 0, 0)),
    );
    let items = completion.as_array().unwrap();
    let label = |name: &str| items.iter().find(|i| i["label"] == name);
    for name in [
        "LIMIT", "m", "get", "set", "has", "delete", "keys", "push", "pop", "insert", "remove",
    ] {
        assert!(label(name).is_some(), "{name} in {completion}");
    }
    assert_eq!(label("LIMIT").unwrap()["detail"], "const LIMIT: int = 3");
    shutdown(client);
}

/// The string built-ins and `sort`: hover shows their signatures, completion offers them.
fn string_built_ins_and_sort() {
    const SOURCE: &str = "fn main() {\n    let w = split(\"b a\", \" \");\n    sort(w);\n    println(join(w, \",\"), find(\"ab\", \"b\", 0));\n}\n";
    let scratch = common::Scratch::new("lsp_text");
    let (mut client, uri) = opened(&scratch, "t.pl", SOURCE);
    let diagnostics = client.diagnostics();
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    let hover =
        |client: &mut Client, needle, nth| hover_text(client, &uri, at(SOURCE, needle, nth, 1));
    assert!(hover(&mut client, "split(", 0).contains("fn split(str, str) -> [str]"));
    assert!(hover(&mut client, "join(", 0).contains("fn join([str], str) -> str"));
    assert!(hover(&mut client, "find(", 0).contains("fn find(str, str, int) -> int"));
    assert!(hover(&mut client, "sort(", 0).contains("fn sort(a: [T])"));
    let completion = client.request(
        "textDocument/completion",
        position_params(&uri, at(SOURCE, "sort(w)", 0, 0)),
    );
    let items = completion.as_array().unwrap();
    for name in [
        "split",
        "join",
        "find",
        "replace",
        "trim",
        "starts_with",
        "ends_with",
        "to_upper",
        "to_lower",
        "sort",
    ] {
        assert!(
            items.iter().any(|i| i["label"] == name),
            "{name} in {completion}"
        );
    }
    shutdown(client);
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::plain_trials![
        an_editor_session,
        profile_lenses_and_stale_warnings,
        a_fifo_beside_a_document_does_not_hang_the_server,
        random_edits_never_crash_the_handlers,
        random_edits_over_stdio,
        malformed_messages_are_answered_and_the_session_goes_on,
        a_burst_of_edits_is_checked_once_at_its_last_version,
        fields_after_a_dot_rename_and_highlight,
        constants_maps_and_warnings,
        string_built_ins_and_sort
    ]
}
