//! The wire of `pcc lsp`: JSON-RPC messages on stdin/stdout, each a `Content-Length` header
//! block and a JSON body (the base protocol of the LSP specification).
//!
//! `lsp-server`'s reader stops at the first body that is not a message it knows, which ends the
//! session; here a reader thread parses each body itself. A body that is not JSON is answered
//! with JSON-RPC's Parse error (-32700), JSON that is neither a request, a notification nor a
//! response with Invalid Request (-32600), with the message's id where it has a valid one and
//! `null` otherwise, and reading goes on. Only a broken frame ends the session (a header line
//! without `:`, no `Content-Length`, the end of the input inside a message): after it, where the
//! next message starts is unknown.

use std::io::{self, BufRead, Read, Write};
use std::sync::mpsc;

use lsp_server::{Message, Notification, Request, RequestId};
use serde_json::{Value, json};

/// JSON-RPC's error codes for bodies that are not messages.
pub const PARSE_ERROR: i32 = -32700;
pub const INVALID_REQUEST: i32 = -32600;

/// The longest header line read (headers are a few dozen bytes).
const MAX_HEADER_LINE: u64 = 8 * 1024;

/// What the reader passes on.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    /// A body that is not a message: the error response to send.
    Invalid(Value),
    /// A response without a valid id: nothing to do.
    Ignored,
    /// The end of the input (`Ok`) or a broken frame (`Err`, why). Nothing follows.
    End(Result<(), String>),
}

/// One frame's worth, and whether more input was already buffered after it (then the next
/// message is on its way: a burst of edits is not checked in the middle).
pub struct Received {
    pub incoming: Incoming,
    pub more: bool,
}

/// Reads stdin on a thread of its own, so that the server can tell when the input is quiet.
pub fn spawn_reader() -> mpsc::Receiver<Received> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("pcc-lsp-reader".to_string())
        .spawn(move || {
            // Our buffer over the unbuffered reads of `RawStdin`: `buffer()` then tells what
            // has arrived.
            let mut input = io::BufReader::with_capacity(1 << 16, RawStdin);
            loop {
                let incoming = match read_frame(&mut input) {
                    Ok(Some(body)) => classify(&body),
                    Ok(None) => Incoming::End(Ok(())),
                    Err(error) => Incoming::End(Err(error)),
                };
                let end = matches!(incoming, Incoming::End(_));
                let more = !input.buffer().is_empty();
                if sender.send(Received { incoming, more }).is_err() || end {
                    break;
                }
            }
        })
        .expect("a thread to read stdin");
    receiver
}

/// Stdin read past its own buffer: reads of at least its capacity (8 KiB) go straight to the
/// file, and ours are 64 KiB.
struct RawStdin;

impl Read for RawStdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        io::stdin().read(buf)
    }
}

/// The body of the next frame, `None` at the end of the input between frames. Blank lines
/// before a header block are skipped; header names are case-insensitive and headers other than
/// `Content-Length` are ignored.
pub fn read_frame(input: &mut impl BufRead) -> Result<Option<Vec<u8>>, String> {
    let mut length = None;
    let mut headers = 0;
    loop {
        let mut line = Vec::new();
        (&mut *input)
            .take(MAX_HEADER_LINE)
            .read_until(b'\n', &mut line)
            .map_err(|error| format!("cannot read stdin: {error}"))?;
        if line.is_empty() && headers == 0 {
            return Ok(None);
        }
        if line.last() != Some(&b'\n') {
            return Err(if line.len() as u64 == MAX_HEADER_LINE {
                "a header line longer than 8 KiB".to_string()
            } else {
                "the input ended inside a header".to_string()
            });
        }
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.is_empty() {
            if headers == 0 {
                continue;
            }
            break;
        }
        headers += 1;
        let line = String::from_utf8_lossy(&line);
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("a header line without `:`: {:?}", excerpt(&line)));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let parsed = value.parse::<u64>();
            length = Some(parsed.map_err(|_| format!("Content-Length {:?}", excerpt(value)))?);
        }
    }
    let length = length.ok_or("a header block without Content-Length")?;
    // Read as it comes rather than allocated up front: the length is the client's word.
    let mut body = Vec::with_capacity(length.min(1 << 24) as usize);
    (&mut *input)
        .take(length)
        .read_to_end(&mut body)
        .map_err(|error| format!("cannot read stdin: {error}"))?;
    if (body.len() as u64) < length {
        return Err(format!(
            "the input ended inside a message ({} of its {length} bytes)",
            body.len()
        ));
    }
    Ok(Some(body))
}

/// At most 64 bytes of a text, for a message.
fn excerpt(text: &str) -> String {
    match text.char_indices().nth(64) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// A body as a message, or the error response it gets. Responses (to the server's requests)
/// come back as `Incoming::Message` too when they have a valid id; others are dropped as a
/// response without an id (the client could not make sense of a request of ours).
pub fn classify(body: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return Incoming::Invalid(error_response(
                Value::Null,
                PARSE_ERROR,
                &format!("Parse error: {error}"),
            ));
        }
    };
    let Value::Object(mut object) = value else {
        let message = "Invalid Request: a message is a JSON object";
        return Incoming::Invalid(error_response(Value::Null, INVALID_REQUEST, message));
    };
    let method = object.remove("method");
    let id = object.remove("id");
    let valid_id = id
        .clone()
        .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
    let echo = |valid: &Option<RequestId>| {
        valid
            .as_ref()
            .and_then(|id| serde_json::to_value(id).ok())
            .unwrap_or(Value::Null)
    };
    let invalid = |message: &str| {
        let message = format!("Invalid Request: {message}");
        Incoming::Invalid(error_response(echo(&valid_id), INVALID_REQUEST, &message))
    };
    match (method, id) {
        (Some(Value::String(method)), None) => {
            let params = object.remove("params").unwrap_or(Value::Null);
            Incoming::Message(Message::Notification(Notification { method, params }))
        }
        (Some(Value::String(method)), Some(_)) => match valid_id {
            Some(id) => {
                let params = object.remove("params").unwrap_or(Value::Null);
                Incoming::Message(Message::Request(Request { id, method, params }))
            }
            None => invalid("an id is an integer of 32 bits or a string"),
        },
        (Some(_), _) => invalid("the method is not a string"),
        (None, id) if object.contains_key("result") || object.contains_key("error") => {
            let mut response = object;
            if let Some(id) = id {
                response.insert("id".to_string(), id);
            }
            match serde_json::from_value(Value::Object(response)) {
                Ok(response) => Incoming::Message(Message::Response(response)),
                Err(_) => Incoming::Ignored,
            }
        }
        (None, _) => invalid("neither a request, a notification nor a response (no method)"),
    }
}

/// A JSON-RPC error response (`id` is `null` where the message had no valid one).
pub fn error_response(id: Value, code: i32, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// Writes one message (a `lsp_server::Message` or a JSON value) as a frame.
pub fn write(out: &mut impl Write, message: &impl serde::Serialize) -> io::Result<()> {
    let body = serde_json::to_string(message)?;
    write!(out, "Content-Length: {}\r\n\r\n", body.len())?;
    out.write_all(body.as_bytes())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Result<Option<Vec<u8>>, String>> {
        let mut input = io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            let frame = read_frame(&mut input);
            let last = !matches!(frame, Ok(Some(_)));
            out.push(frame);
            if last {
                return out;
            }
        }
    }

    #[test]
    fn frames_are_read_by_their_length() {
        let input = b"Content-Length: 2\r\n\r\n{}\r\ncontent-length:3\nContent-Type: x\n\n[1]";
        assert_eq!(
            frames(input),
            [
                Ok(Some(b"{}".to_vec())),
                Ok(Some(b"[1]".to_vec())),
                Ok(None)
            ]
        );
        let broken: [&[u8]; 4] = [
            b"Content-Length: 5\r\n\r\n{}",
            b"Content-Type: x\r\n\r\n{}",
            b"Content-Length 2\r\n\r\n{}",
            b"Content-Length: 2\r\n",
        ];
        for input in broken {
            let frames = frames(input);
            assert!(matches!(frames[..], [Err(_)]), "{frames:?}");
        }
    }

    fn error_of(body: &str) -> (Value, i64) {
        match classify(body.as_bytes()) {
            Incoming::Invalid(response) => (
                response["id"].clone(),
                response["error"]["code"].as_i64().unwrap(),
            ),
            other => panic!("{body}: {other:?}"),
        }
    }

    #[test]
    fn bodies_that_are_not_messages_get_errors() {
        let parse = PARSE_ERROR as i64;
        let invalid = INVALID_REQUEST as i64;
        assert_eq!(error_of("{not json}"), (Value::Null, parse));
        assert_eq!(
            error_of(r#"{"id":1,"method":"x","params":"\ud800"}"#).1,
            parse
        );
        assert_eq!(error_of("5"), (Value::Null, invalid));
        assert_eq!(error_of("[]"), (Value::Null, invalid));
        assert_eq!(error_of(r#"{"id": 99}"#), (json!(99), invalid));
        assert_eq!(
            error_of(r#"{"id": "a", "method": 5}"#),
            (json!("a"), invalid)
        );
        assert_eq!(
            error_of(r#"{"id": 1.5, "method": "x"}"#),
            (Value::Null, invalid)
        );
        assert_eq!(
            error_of(r#"{"id": null, "method": "x"}"#),
            (Value::Null, invalid)
        );
        assert_eq!(error_of(r#"{"id": 4294967296, "method": "x"}"#).1, invalid);
    }

    #[test]
    fn messages_pass() {
        let request = classify(br#"{"jsonrpc":"2.0","id":"7","method":"shutdown"}"#);
        assert!(
            matches!(request, Incoming::Message(Message::Request(r)) if r.method == "shutdown")
        );
        let notification = classify(br#"{"jsonrpc":"2.0","method":"exit"}"#);
        assert!(
            matches!(notification, Incoming::Message(Message::Notification(n)) if n.method == "exit")
        );
        let response = classify(br#"{"jsonrpc":"2.0","id":3,"result":null}"#);
        assert!(matches!(response, Incoming::Message(Message::Response(_))));
    }
}
