//! The lexer: source text to tokens, with every lexical error collected as a diagnostic.
//!
//! The whole file is lexed before parsing so that all lexical errors are reported even when
//! the parser stops at the first syntax error. Erroneous tokens are left out of the token
//! stream; the parser then ignores syntax errors that sit right after one of them (see
//! `parser.rs`), which avoids reporting each bad character twice.

use std::fmt;

use logos::{Lexer, Logos, Skip};

use crate::diagnostics::Diagnostic;
use crate::span::Span;

/// Why logos produced an error token.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LexError {
    /// No token matches here (logos' default error).
    #[default]
    UnexpectedChar,
    /// The token is unusable and its problem is already in the lexer's extras.
    Reported,
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(error = LexError)]
#[logos(extras = Vec<Diagnostic>)]
#[logos(skip r"[ \t\r\n\f\u{FEFF}]+")]
#[logos(skip("//[^\n]*", allow_greedy = true))]
pub enum Tok<'a> {
    #[token("/*", block_comment)]
    BlockComment,

    #[token("fn")]
    Fn,
    #[token("let")]
    Let,
    #[token("const")]
    Const,
    #[token("struct")]
    Struct,
    #[token("new")]
    New,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("while")]
    While,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("match")]
    Match,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("null")]
    Null,

    #[regex("[A-Za-z_][A-Za-z0-9_]*")]
    Ident(&'a str),
    /// The magnitude of an integer literal; range checks happen in the checker, which knows
    /// whether the literal is negated. Values beyond `u64` saturate (they are out of range
    /// either way).
    #[regex("[0-9][0-9_]*", |lex| int_value(lex.slice(), 10))]
    #[regex("0[xX][0-9a-fA-F_]*", hex_literal)]
    Int(u64),
    #[regex(r"[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9][0-9_]*)?", float_literal)]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*", float_literal)]
    Float(f64),
    /// The bytes of a string literal, escapes already decoded.
    #[token("\"", string_literal)]
    Str(Vec<u8>),

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token("->")]
    Arrow,
    #[token("=>")]
    FatArrow,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,
    #[token("%=")]
    PercentAssign,
    #[token("&=")]
    AmpAssign,
    #[token("|=")]
    PipeAssign,
    #[token("^=")]
    CaretAssign,
    #[token("<<=")]
    ShlAssign,
    #[token(">>=")]
    ShrAssign,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&&")]
    AndAnd,
    #[token("||")]
    OrOr,
}

impl fmt::Display for Tok<'_> {
    /// How a token is named in "found ..." messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Ident(name) => write!(f, "identifier `{name}`"),
            Tok::Int(_) => write!(f, "integer literal"),
            Tok::Float(_) => write!(f, "float literal"),
            Tok::Str(_) => write!(f, "string literal"),
            other => write!(f, "`{}`", other.text()),
        }
    }
}

impl Tok<'_> {
    /// The source text of a token with fixed spelling (identifiers and literals excepted).
    pub fn text(&self) -> &'static str {
        match self {
            Tok::BlockComment => "/*",
            Tok::Fn => "fn",
            Tok::Let => "let",
            Tok::Const => "const",
            Tok::Struct => "struct",
            Tok::New => "new",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::While => "while",
            Tok::For => "for",
            Tok::In => "in",
            Tok::Break => "break",
            Tok::Continue => "continue",
            Tok::Return => "return",
            Tok::Match => "match",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Null => "null",
            Tok::Ident(_) => "identifier",
            Tok::Int(_) => "integer literal",
            Tok::Float(_) => "float literal",
            Tok::Str(_) => "string literal",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Semi => ";",
            Tok::Colon => ":",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Arrow => "->",
            Tok::FatArrow => "=>",
            Tok::Assign => "=",
            Tok::PlusAssign => "+=",
            Tok::MinusAssign => "-=",
            Tok::StarAssign => "*=",
            Tok::SlashAssign => "/=",
            Tok::PercentAssign => "%=",
            Tok::AmpAssign => "&=",
            Tok::PipeAssign => "|=",
            Tok::CaretAssign => "^=",
            Tok::ShlAssign => "<<=",
            Tok::ShrAssign => ">>=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Amp => "&",
            Tok::Pipe => "|",
            Tok::Caret => "^",
            Tok::Tilde => "~",
            Tok::Bang => "!",
            Tok::Shl => "<<",
            Tok::Shr => ">>",
            Tok::EqEq => "==",
            Tok::NotEq => "!=",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::AndAnd => "&&",
            Tok::OrOr => "||",
        }
    }
}

/// A token with its byte offsets, as the parser consumes it.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// Lexes a whole file: the tokens, and one diagnostic per lexical error (runs of unexpected
/// characters are reported once). A literal with a problem inside (a bad escape, no hex
/// digits, ...) is still a token, so that parsing goes on as if it were fine; text that makes
/// no token (unexpected characters, an unterminated string) is left out.
pub fn lex(source: &str) -> (Vec<Spanned<'_>>, Vec<Diagnostic>) {
    let mut tokens = Vec::new();
    let mut errors: Vec<Diagnostic> = Vec::new();
    // The span of the run of unexpected characters being accumulated.
    let mut unexpected: Option<Span> = None;
    let mut lexer = Tok::lexer(source);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        match result {
            Err(LexError::UnexpectedChar) if lexer.slice() == "'" => {
                // `'a'`: other languages' character literal, reported once as a whole.
                let rest = lexer.remainder();
                match rest
                    .find(['\'', '\n'])
                    .filter(|&end| rest[end..].starts_with('\''))
                {
                    Some(end) if end <= 8 => {
                        let inside = &rest[..end];
                        lexer.bump(end + 1);
                        errors.push(
                            Diagnostic::new(
                                "PL has no character literals",
                                Span::new(span.lo as usize, lexer.span().end),
                            )
                            .with_note(format!(
                                "strings use double quotes: `\"{inside}\"` (`chr(n)` makes the \
                                 one-byte string of code `n`)"
                            )),
                        );
                    }
                    _ => errors.push(
                        unexpected_chars(source, span)
                            .with_note("strings use double quotes: `\"...\"`"),
                    ),
                }
            }
            Err(LexError::UnexpectedChar) => {
                unexpected = Some(match unexpected {
                    Some(run) if run.hi == span.lo => run.to(span),
                    Some(run) => {
                        errors.push(unexpected_chars(source, run));
                        span
                    }
                    None => span,
                });
            }
            Err(LexError::Reported) | Ok(Tok::BlockComment) => {}
            Ok(tok) => tokens.push((range.start, tok, range.end)),
        }
    }
    errors.append(&mut lexer.extras);
    if let Some(run) = unexpected {
        errors.push(unexpected_chars(source, run));
    }
    errors.sort_by_key(|d| d.span.lo);
    (tokens, errors)
}

fn unexpected_chars(source: &str, span: Span) -> Diagnostic {
    let text = &source[span.lo as usize..span.hi as usize];
    let shown: String = text.chars().take(20).flat_map(char::escape_debug).collect();
    let ellipsis = if text.chars().count() > 20 { "..." } else { "" };
    let message = if text.chars().count() == 1 {
        format!("unexpected character `{shown}`")
    } else {
        format!("unexpected characters `{shown}{ellipsis}`")
    };
    Diagnostic::new(message, span)
}

/// Skips a block comment (they do not nest), or reports it unterminated.
fn block_comment<'a>(lex: &mut Lexer<'a, Tok<'a>>) -> Skip {
    match lex.remainder().find("*/") {
        Some(end) => lex.bump(end + 2),
        None => {
            let opening = span_of(lex);
            lex.extras
                .push(Diagnostic::new("unterminated block comment", opening));
            lex.bump(lex.remainder().len());
        }
    }
    Skip
}

fn span_of<'a>(lex: &Lexer<'a, Tok<'a>>) -> Span {
    Span::new(lex.span().start, lex.span().end)
}

/// Parses digits (with `_` separators) in the given radix, saturating at `u64::MAX`.
fn int_value(digits: &str, radix: u32) -> u64 {
    digits
        .chars()
        .filter_map(|c| c.to_digit(radix))
        .try_fold(0u64, |acc, d| {
            acc.checked_mul(radix as u64)?.checked_add(d as u64)
        })
        .unwrap_or(u64::MAX)
}

fn hex_literal<'a>(lex: &mut Lexer<'a, Tok<'a>>) -> u64 {
    let digits = &lex.slice()[2..];
    if !digits.chars().any(|c| c != '_') {
        let span = span_of(lex);
        lex.extras
            .push(Diagnostic::new("hexadecimal literal has no digits", span));
    }
    int_value(digits, 16)
}

fn float_literal<'a>(lex: &mut Lexer<'a, Tok<'a>>) -> f64 {
    let text: String = lex.slice().chars().filter(|&c| c != '_').collect();
    // The regexes only match valid float syntax, so parsing cannot fail; it can overflow.
    let value = text.parse::<f64>().unwrap_or(f64::INFINITY);
    if value.is_infinite() {
        let span = span_of(lex);
        lex.extras
            .push(Diagnostic::new("float literal is out of range", span));
    }
    value
}

/// Scans a string literal after its opening quote, decoding escapes. Raw newlines are allowed
/// inside; an unterminated literal runs to the end of the file.
fn string_literal<'a>(lex: &mut Lexer<'a, Tok<'a>>) -> Result<Vec<u8>, LexError> {
    let quote = lex.span().start;
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    // Absolute span of `len` bytes at offset `i` of `rest`.
    let base = lex.span().end;
    let at = |i: usize, len: usize| Span::new(base + i, base + i + len);
    let mut value = Vec::new();
    let mut problems = Vec::new();
    let mut i = 0;
    loop {
        match bytes.get(i) {
            None => {
                lex.bump(i);
                problems.push(Diagnostic::new(
                    "unterminated string literal",
                    Span::new(quote, quote + 1),
                ));
                lex.extras.append(&mut problems);
                return Err(LexError::Reported);
            }
            Some(b'"') => {
                lex.bump(i + 1);
                break;
            }
            Some(b'\\') => {
                let simple = match bytes.get(i + 1) {
                    Some(b'n') => Some(b'\n'),
                    Some(b't') => Some(b'\t'),
                    Some(b'r') => Some(b'\r'),
                    Some(b'\\') => Some(b'\\'),
                    Some(b'"') => Some(b'"'),
                    Some(b'0') => Some(0),
                    _ => None,
                };
                if let Some(byte) = simple {
                    value.push(byte);
                    i += 2;
                } else if bytes.get(i + 1) == Some(&b'x') {
                    let hex = bytes.get(i + 2..i + 4).and_then(|h| {
                        std::str::from_utf8(h)
                            .ok()
                            .and_then(|h| u8::from_str_radix(h, 16).ok())
                    });
                    match hex {
                        // `from_str_radix` accepts a sign: demand two real hex digits.
                        Some(byte) if bytes[i + 2..i + 4].iter().all(u8::is_ascii_hexdigit) => {
                            value.push(byte);
                            i += 4;
                        }
                        _ => {
                            problems.push(Diagnostic::new(
                                "invalid escape `\\x`: expected two hexadecimal digits",
                                at(i, 2),
                            ));
                            i += 2;
                        }
                    }
                } else {
                    match rest[i + 1..].chars().next() {
                        // A backslash right before the end of the file: unterminated.
                        None => i += 1,
                        Some(c) => {
                            let shown: String = c.escape_debug().collect();
                            problems.push(Diagnostic::new(
                                format!("unknown escape `\\{shown}` in string literal"),
                                at(i, 1 + c.len_utf8()),
                            ));
                            i += 1 + c.len_utf8();
                        }
                    }
                }
            }
            Some(&byte) => {
                value.push(byte);
                i += 1;
            }
        }
    }
    lex.extras.append(&mut problems);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(source: &str) -> Vec<Tok<'_>> {
        let (tokens, errors) = lex(source);
        assert!(errors.is_empty(), "unexpected errors: {errors:?}");
        tokens.into_iter().map(|(_, t, _)| t).collect()
    }

    fn errors(source: &str) -> Vec<(String, u32, u32)> {
        lex(source)
            .1
            .into_iter()
            .map(|d| (d.message, d.span.lo, d.span.hi))
            .collect()
    }

    #[test]
    fn keywords_and_identifiers() {
        assert_eq!(
            toks("fn let struct new if else while for in break continue return match"),
            vec![
                Tok::Fn,
                Tok::Let,
                Tok::Struct,
                Tok::New,
                Tok::If,
                Tok::Else,
                Tok::While,
                Tok::For,
                Tok::In,
                Tok::Break,
                Tok::Continue,
                Tok::Return,
                Tok::Match
            ]
        );
        assert_eq!(
            toks("true false null int _ _x fnord x1"),
            vec![
                Tok::True,
                Tok::False,
                Tok::Null,
                Tok::Ident("int"),
                Tok::Ident("_"),
                Tok::Ident("_x"),
                Tok::Ident("fnord"),
                Tok::Ident("x1")
            ]
        );
    }

    #[test]
    fn integers() {
        assert_eq!(
            toks("0 123 1_000_000 0xFF 0x_ff_ff 0X10"),
            vec![
                Tok::Int(0),
                Tok::Int(123),
                Tok::Int(1_000_000),
                Tok::Int(255),
                Tok::Int(0xffff),
                Tok::Int(16)
            ]
        );
        assert_eq!(
            toks("9223372036854775808 99999999999999999999999"),
            vec![Tok::Int(1 << 63), Tok::Int(u64::MAX)]
        );
        assert_eq!(
            errors("0x"),
            vec![("hexadecimal literal has no digits".into(), 0, 2)]
        );
    }

    #[test]
    fn floats_and_ranges() {
        assert_eq!(
            toks("1.5 1e9 2.5e-3 1_0.2_5 3E+2"),
            vec![
                Tok::Float(1.5),
                Tok::Float(1e9),
                Tok::Float(2.5e-3),
                Tok::Float(10.25),
                Tok::Float(300.0)
            ]
        );
        // `1.` is not a float, and `0..n` is a range.
        assert_eq!(toks("1."), vec![Tok::Int(1), Tok::Dot]);
        assert_eq!(
            toks("0..n"),
            vec![Tok::Int(0), Tok::DotDot, Tok::Ident("n")]
        );
        assert_eq!(
            errors("1e999"),
            vec![("float literal is out of range".into(), 0, 5)]
        );
    }

    #[test]
    fn strings_and_escapes() {
        assert_eq!(
            toks(
                r#""a\n\t\r\\\"\0\x41\xff" "line1
line2""#
            ),
            vec![
                Tok::Str(b"a\n\t\r\\\"\0A\xff".to_vec()),
                Tok::Str(b"line1\nline2".to_vec())
            ]
        );
        assert_eq!(
            errors(r#"x = "a\qb\x4" + 1;"#),
            vec![
                ("unknown escape `\\q` in string literal".into(), 6, 8),
                (
                    "invalid escape `\\x`: expected two hexadecimal digits".into(),
                    9,
                    11
                )
            ]
        );
        assert_eq!(
            errors("let s = \"abc"),
            vec![("unterminated string literal".into(), 8, 9)]
        );
        assert_eq!(
            errors("\"\\é\""),
            vec![("unknown escape `\\é` in string literal".into(), 1, 4)]
        );
    }

    #[test]
    fn operators() {
        assert_eq!(
            toks("+= -= *= /= %= &= |= ^= <<= >>= << >> <= >= == != && || -> => .. ~"),
            vec![
                Tok::PlusAssign,
                Tok::MinusAssign,
                Tok::StarAssign,
                Tok::SlashAssign,
                Tok::PercentAssign,
                Tok::AmpAssign,
                Tok::PipeAssign,
                Tok::CaretAssign,
                Tok::ShlAssign,
                Tok::ShrAssign,
                Tok::Shl,
                Tok::Shr,
                Tok::Le,
                Tok::Ge,
                Tok::EqEq,
                Tok::NotEq,
                Tok::AndAnd,
                Tok::OrOr,
                Tok::Arrow,
                Tok::FatArrow,
                Tok::DotDot,
                Tok::Tilde
            ]
        );
    }

    #[test]
    fn comments() {
        assert_eq!(
            toks("a // line\n/* block /* no nesting */ b /**/ c"),
            vec![Tok::Ident("a"), Tok::Ident("b"), Tok::Ident("c")]
        );
        assert_eq!(
            errors("a /* open"),
            vec![("unterminated block comment".into(), 2, 4)]
        );
    }

    #[test]
    fn byte_order_mark_is_whitespace() {
        assert_eq!(toks("\u{FEFF}fn"), vec![Tok::Fn]);
    }

    #[test]
    fn unexpected_characters_are_grouped() {
        assert_eq!(
            errors("a @@ b $ é"),
            vec![
                ("unexpected characters `@@`".into(), 2, 4),
                ("unexpected character `$`".into(), 7, 8),
                ("unexpected character `é`".into(), 9, 11)
            ]
        );
    }
}
