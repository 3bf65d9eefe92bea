//! Whether two texts are the same JSON value, so a result's
//! `structuredContent` is not sent twice when a text block already carries
//! it. Values compare as JSON.parse would read them: object keys in any
//! order (the last of a repeated key wins), numbers by value (`1.50` is
//! `1.5`), strings after escapes.

use std::collections::BTreeMap;

/// Deeper nesting is not parsed (never equal): no input can exhaust the stack.
const MAX_DEPTH: usize = 256;

#[derive(Debug, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Value>),
    Object(BTreeMap<String, Value>),
}

/// True when both texts are JSON (surrounding whitespace allowed) of equal value.
pub fn same_value(a: &str, b: &str) -> bool {
    match (parse(a), parse(b)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

fn parse(text: &str) -> Option<Value> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        pos: 0,
    };
    let value = parser.value(0)?;
    parser.skip_whitespace();
    (parser.pos == parser.bytes.len()).then_some(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, literal: &[u8]) -> bool {
        let end = self.pos + literal.len();
        if self.bytes.get(self.pos..end) == Some(literal) {
            self.pos = end;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_whitespace();
        match self.peek()? {
            b'n' => self.eat(b"null").then_some(Value::Null),
            b't' => self.eat(b"true").then_some(Value::Bool(true)),
            b'f' => self.eat(b"false").then_some(Value::Bool(false)),
            b'"' => self.string().map(Value::String),
            b'[' => self.array(depth),
            b'{' => self.object(depth),
            _ => self.number().map(Value::Number),
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.eat(b"]") {
            return Some(Value::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_whitespace();
            if self.eat(b"]") {
                return Some(Value::Array(items));
            }
            if !self.eat(b",") {
                return None;
            }
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        let mut entries = BTreeMap::new();
        self.skip_whitespace();
        if self.eat(b"}") {
            return Some(Value::Object(entries));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return None;
            }
            let key = self.string()?;
            self.skip_whitespace();
            if !self.eat(b":") {
                return None;
            }
            entries.insert(key, self.value(depth + 1)?);
            self.skip_whitespace();
            if self.eat(b"}") {
                return Some(Value::Object(entries));
            }
            if !self.eat(b",") {
                return None;
            }
        }
    }

    fn number(&mut self) -> Option<f64> {
        let start = self.pos;
        self.eat(b"-");
        let digits = |p: &mut Self| {
            let from = p.pos;
            while matches!(p.peek(), Some(b'0'..=b'9')) {
                p.pos += 1;
            }
            p.pos > from
        };
        // No leading zeros: `0` alone, or a digit 1-9 and more digits.
        if self.eat(b"0") {
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                return None;
            }
        } else if !digits(self) {
            return None;
        }
        if self.eat(b".") && !digits(self) {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if !self.eat(b"+") {
                self.eat(b"-");
            }
            if !digits(self) {
                return None;
            }
        }
        // The grammar above admits only what Rust's float parser reads, and
        // it rounds correctly, as JSON.parse does.
        std::str::from_utf8(&self.bytes[start..self.pos])
            .ok()?
            .parse()
            .ok()
    }

    fn string(&mut self) -> Option<String> {
        self.pos += 1;
        let mut units: Vec<u16> = Vec::new();
        loop {
            let start = self.pos;
            while !matches!(self.peek(), None | Some(b'"' | b'\\' | 0..=0x1F)) {
                self.pos += 1;
            }
            // The text is a &str: any run between delimiters is valid UTF-8.
            let run = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
            units.extend(run.encode_utf16());
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    // Lone surrogates read as U+FFFD, as they arrive from JS.
                    return Some(String::from_utf16_lossy(&units));
                }
                b'\\' => {
                    self.pos += 1;
                    let escaped = self.peek()?;
                    self.pos += 1;
                    let unit = match escaped {
                        b'"' => u16::from(b'"'),
                        b'\\' => u16::from(b'\\'),
                        b'/' => u16::from(b'/'),
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => u16::from(b'\n'),
                        b'r' => u16::from(b'\r'),
                        b't' => u16::from(b'\t'),
                        b'u' => {
                            let hex = self.bytes.get(self.pos..self.pos + 4)?;
                            self.pos += 4;
                            u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?
                        }
                        _ => return None,
                    };
                    units.push(unit);
                }
                // A raw control character (or the end) inside a string.
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_whatever_the_layout() {
        assert!(same_value(
            r#"{"a":1,"b":[true,null,"x"]}"#,
            "{\n  \"b\": [ true, null, \"x\" ],\n  \"a\": 1.0\n}\n"
        ));
        assert!(same_value(r#""caf\u00e9\n""#, "\"café\\n\""));
        assert!(same_value("1e2", "100"));
        assert!(same_value(r#"{"a":1,"a":2}"#, r#"{"a":2}"#));
        assert!(same_value("[]", " [ ] "));
        assert!(same_value(r#""\ud83d\ude00""#, "\"\u{1F600}\""));
    }

    #[test]
    fn different_values_or_not_json() {
        assert!(!same_value(r#"{"a":1}"#, r#"{"a":2}"#));
        assert!(!same_value(r#"{"a":1}"#, r#"{"a":1,"b":2}"#));
        assert!(!same_value("[1,2]", "[2,1]"));
        assert!(!same_value(r#"{"a":1}"#, "Result: {\"a\":1}"));
        assert!(!same_value("1", "01"));
        assert!(!same_value("[1,]", "[1,]"));
        assert!(!same_value("\"a\u{1}\"", "\"a\u{1}\""));
        assert!(!same_value("{}", ""));
        assert!(!same_value("1 2", "1 2"));
        assert!(!same_value("-", "-"));
        assert!(!same_value("1.", "1."));
    }

    #[test]
    fn deep_nesting_is_refused_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(!same_value(&deep, &deep));
        let ok = "[".repeat(200) + &"]".repeat(200);
        assert!(same_value(&ok, &ok));
    }
}
