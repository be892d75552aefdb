//! A strict JSON parser: an ordered tree whose numbers stay as source text, duplicate keys and
//! lone surrogates rejected; plus a stack-free validator for embedded JSON (`arguments_json`).

use std::borrow::Cow;

use crate::log::error::Reason;

/// Objects nest at most this deep in frames and state documents (the schema needs ~12).
pub(crate) const MAX_DEPTH: usize = 128;

/// A parsed JSON value. Numbers keep their source text; objects keep key order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value<'a> {
    Null,
    Bool(bool),
    Num(&'a str),
    Str(Cow<'a, str>),
    Arr(Vec<Value<'a>>),
    Obj(Vec<(Cow<'a, str>, Value<'a>)>),
}

/// Parses `text` as exactly one JSON value surrounded by optional whitespace.
pub(crate) fn parse(text: &str) -> Result<Value<'_>, Reason> {
    let mut lx = Lexer { src: text, pos: 0 };
    lx.skip_ws();
    let value = lx.value(0)?;
    lx.skip_ws();
    if lx.pos != text.len() {
        return Err(lx.err("trailing data after the value"));
    }
    Ok(value)
}

/// True when `text` is one valid JSON value with no duplicate keys, at any depth.
pub(crate) fn is_valid_json(text: &str) -> bool {
    validate(text).is_ok()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn err(&self, detail: &'static str) -> Reason {
        Reason::InvalidJson {
            offset: self.pos,
            detail,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8, detail: &'static str) -> Result<(), Reason> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(detail))
        }
    }

    fn literal(&mut self, word: &'static str) -> Result<(), Reason> {
        if self.src.as_bytes().get(self.pos..self.pos + word.len()) == Some(word.as_bytes()) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.err("invalid literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, Reason> {
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.literal("true").map(|()| Value::Bool(true)),
            Some(b'f') => self.literal("false").map(|()| Value::Bool(false)),
            Some(b'n') => self.literal("null").map(|()| Value::Null),
            Some(b'-' | b'0'..=b'9') => Ok(Value::Num(self.number()?)),
            Some(_) => Err(self.err("unexpected character")),
            None => Err(self.err("unexpected end of input")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, Reason> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        self.pos += 1;
        let mut entries: Vec<(Cow<'a, str>, Value<'a>)> = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Obj(entries));
        }
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected an object key"));
            }
            let key_at = self.pos;
            let key = self.string()?;
            self.skip_ws();
            self.eat(b':', "expected ':'")?;
            self.skip_ws();
            let value = self.value(depth)?;
            if entries.len() < 16 && entries.iter().any(|(k, _)| *k == key) {
                return Err(Reason::DuplicateKey {
                    key: key.into_owned(),
                    offset: key_at,
                });
            }
            entries.push((key, value));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
        if entries.len() > 16 {
            check_unique(&entries, self.pos)?;
        }
        Ok(Value::Obj(entries))
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, Reason> {
        if depth > MAX_DEPTH {
            return Err(self.err("nesting too deep"));
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Arr(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Arr(items));
                }
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    /// Scans a number token (RFC 8259 grammar) and returns its text.
    fn number(&mut self) -> Result<&'a str, Reason> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.err("invalid number")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.err("invalid number"));
            }
            self.digits();
        }
        if matches!(self.peek(), Some(b'0'..=b'9')) {
            return Err(self.err("invalid number"));
        }
        self.src
            .get(start..self.pos)
            .ok_or_else(|| self.err("invalid number"))
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// Bytes from `pos` up to the next `"`, `\\` or control byte.
    fn plain_run(&mut self) -> &'a str {
        let bytes = self.src.as_bytes().get(self.pos..).unwrap_or_default();
        let len = bytes
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .unwrap_or(bytes.len());
        let start = self.pos;
        self.pos += len;
        // The run ends before an ASCII byte (or at the end), so it is a char boundary.
        self.src.get(start..self.pos).unwrap_or_default()
    }

    /// Scans a string token; borrows the source when it has no escapes.
    fn string(&mut self) -> Result<Cow<'a, str>, Reason> {
        self.pos += 1;
        let first = self.plain_run();
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                return Ok(Cow::Borrowed(first));
            }
            Some(b'\\') => {}
            Some(_) => return Err(self.err("control character in string")),
            None => return Err(self.err("unterminated string")),
        }
        let mut out = String::from(first);
        loop {
            match self.peek() {
                None => return Err(self.err("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                    let run = self.plain_run();
                    out.push_str(run);
                }
                Some(_) => return Err(self.err("control character in string")),
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), Reason> {
        let c = self.peek().ok_or_else(|| self.err("unterminated escape"))?;
        self.pos += 1;
        match c {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            b'/' => out.push('/'),
            b'b' => out.push('\u{8}'),
            b'f' => out.push('\u{c}'),
            b'n' => out.push('\n'),
            b'r' => out.push('\r'),
            b't' => out.push('\t'),
            b'u' => {
                let first = self.hex4()?;
                let code = match first {
                    0xD800..=0xDBFF => {
                        if self.src.as_bytes().get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return Err(self.err("lone surrogate escape"));
                        }
                        self.pos += 2;
                        let second = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return Err(self.err("lone surrogate escape"));
                        }
                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return Err(self.err("lone surrogate escape")),
                    other => other,
                };
                out.push(char::from_u32(code).ok_or_else(|| self.err("invalid escape"))?);
            }
            _ => return Err(self.err("invalid escape")),
        }
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, Reason> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.err("invalid \\u escape")),
            };
            v = v * 16 + u32::from(d);
            self.pos += 1;
        }
        Ok(v)
    }
}

fn check_unique(entries: &[(Cow<'_, str>, Value<'_>)], offset: usize) -> Result<(), Reason> {
    let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
    keys.sort_unstable();
    for pair in keys.windows(2) {
        if let [a, b] = pair {
            if a == b {
                return Err(Reason::DuplicateKey {
                    key: (*a).to_owned(),
                    offset,
                });
            }
        }
    }
    Ok(())
}

enum Open<'a> {
    Array,
    Object(Vec<Cow<'a, str>>),
}

/// Validates JSON without recursion (any depth), rejecting duplicate keys.
fn validate(text: &str) -> Result<(), Reason> {
    let mut lx = Lexer { src: text, pos: 0 };
    let mut stack: Vec<Open<'_>> = Vec::new();
    lx.skip_ws();
    'value: loop {
        // Parse one value start.
        match lx.peek() {
            Some(b'{') => {
                lx.pos += 1;
                lx.skip_ws();
                if lx.peek() == Some(b'}') {
                    lx.pos += 1;
                } else {
                    stack.push(Open::Object(Vec::new()));
                    object_key(&mut lx, &mut stack)?;
                    continue 'value;
                }
            }
            Some(b'[') => {
                lx.pos += 1;
                lx.skip_ws();
                if lx.peek() == Some(b']') {
                    lx.pos += 1;
                } else {
                    stack.push(Open::Array);
                    continue 'value;
                }
            }
            Some(b'"') => {
                lx.string()?;
            }
            Some(b't') => lx.literal("true")?,
            Some(b'f') => lx.literal("false")?,
            Some(b'n') => lx.literal("null")?,
            Some(b'-' | b'0'..=b'9') => {
                lx.number()?;
            }
            _ => return Err(lx.err("unexpected character")),
        }
        // After a complete value: close containers or move to the next element.
        loop {
            lx.skip_ws();
            let Some(top) = stack.last() else {
                return if lx.pos == text.len() {
                    Ok(())
                } else {
                    Err(lx.err("trailing data"))
                };
            };
            let is_object = matches!(top, Open::Object(_));
            match (lx.peek(), is_object) {
                (Some(b','), false) => {
                    lx.pos += 1;
                    lx.skip_ws();
                    continue 'value;
                }
                (Some(b','), true) => {
                    lx.pos += 1;
                    object_key(&mut lx, &mut stack)?;
                    continue 'value;
                }
                (Some(b']'), false) | (Some(b'}'), true) => {
                    lx.pos += 1;
                    if let Some(Open::Object(keys)) = stack.pop() {
                        let mut sorted: Vec<&str> = keys.iter().map(|k| k.as_ref()).collect();
                        sorted.sort_unstable();
                        if sorted.windows(2).any(|w| w.first() == w.get(1)) {
                            return Err(lx.err("duplicate key"));
                        }
                    }
                }
                _ => return Err(lx.err("expected ',' or a closing bracket")),
            }
        }
    }
}

fn object_key<'a>(lx: &mut Lexer<'a>, stack: &mut [Open<'a>]) -> Result<(), Reason> {
    lx.skip_ws();
    if lx.peek() != Some(b'"') {
        return Err(lx.err("expected an object key"));
    }
    let key = lx.string()?;
    if let Some(Open::Object(keys)) = stack.last_mut() {
        keys.push(key);
    }
    lx.skip_ws();
    lx.eat(b':', "expected ':'")?;
    lx.skip_ws();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert!(parse(r#"{"a":[1,-2.5e3,"x\u00e9\ud83d\ude80"],"b":null}"#).is_ok());
        assert!(matches!(
            parse(r#"{"a":1,"a":2}"#),
            Err(Reason::DuplicateKey { .. })
        ));
        assert!(parse(r#""\ud800""#).is_err());
        assert!(parse("01").is_err());
        assert!(parse("1.").is_err());
        assert!(parse("[1,]").is_err());
        assert!(parse(&"[".repeat(200)).is_err());
        assert!(is_valid_json(&format!(
            "{}{}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        )));
        assert!(!is_valid_json(r#"{"a":{"b":1,"b":2}}"#));
        assert!(is_valid_json(r#" {"a":{"b":1,"c":[{},[]]}} "#));
        assert!(!is_valid_json(r#"{"a":1,}"#));
        assert!(!is_valid_json(r#"[1 2]"#));
        assert!(!is_valid_json(""));
        assert!(!is_valid_json("{}}"));
    }
}
