//! The canonical JSON writer (spec §0.1): compact output, Zig `std.json` string escaping,
//! plain-decimal floats, lowercase hex ids, durable bytes (§0.3).

use base64::Engine as _;

use crate::log::durable::DurableBytes;

/// An append-only buffer of canonical JSON text.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    pub(crate) out: Vec<u8>,
}

const HEX: &[u8; 16] = b"0123456789abcdef";

impl Writer {
    pub(crate) fn new() -> Self {
        Self {
            out: Vec::with_capacity(256),
        }
    }

    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.out
    }

    /// Writes raw text (keys, punctuation) as-is.
    pub(crate) fn raw(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    /// Writes a JSON string with Zig's escaping: short escapes for `"` `\` BS FF LF CR TAB,
    /// `\u00xx` (lowercase) for other control bytes, everything else raw.
    pub(crate) fn str(&mut self, text: &str) {
        self.out.push(b'"');
        let bytes = text.as_bytes();
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: Option<&[u8]> = match b {
                b'"' => Some(b"\\\""),
                b'\\' => Some(b"\\\\"),
                0x08 => Some(b"\\b"),
                0x0c => Some(b"\\f"),
                b'\n' => Some(b"\\n"),
                b'\r' => Some(b"\\r"),
                b'\t' => Some(b"\\t"),
                0..=0x1f => None,
                _ => continue,
            };
            self.out
                .extend_from_slice(bytes.get(run..i).unwrap_or_default());
            match esc {
                Some(e) => self.out.extend_from_slice(e),
                None => {
                    self.out.extend_from_slice(b"\\u00");
                    self.out.push(HEX[usize::from(b >> 4)]);
                    self.out.push(HEX[usize::from(b & 15)]);
                }
            }
            run = i + 1;
        }
        self.out
            .extend_from_slice(bytes.get(run..).unwrap_or_default());
        self.out.push(b'"');
    }

    /// Writes durable bytes: a string when UTF-8, else the base64 object form.
    pub(crate) fn db(&mut self, bytes: &DurableBytes) {
        match std::str::from_utf8(bytes.as_bytes()) {
            Ok(text) => self.str(text),
            Err(_) => {
                self.raw("{\"encoding\":\"base64\",\"data\":\"");
                let encoded = base64::engine::general_purpose::STANDARD.encode(bytes.as_bytes());
                self.raw(&encoded);
                self.raw("\"}");
            }
        }
    }

    pub(crate) fn opt_db(&mut self, bytes: Option<&DurableBytes>) {
        match bytes {
            Some(b) => self.db(b),
            None => self.null(),
        }
    }

    pub(crate) fn opt_str(&mut self, text: Option<&str>) {
        match text {
            Some(t) => self.str(t),
            None => self.null(),
        }
    }

    pub(crate) fn u64(&mut self, v: u64) {
        self.raw(&v.to_string());
    }

    pub(crate) fn i64(&mut self, v: i64) {
        self.raw(&v.to_string());
    }

    pub(crate) fn opt_u64(&mut self, v: Option<u64>) {
        match v {
            Some(v) => self.u64(v),
            None => self.null(),
        }
    }

    /// Writes a finite float as shortest round-trip plain decimal (`0`, `5`, `0.0123`).
    pub(crate) fn f64(&mut self, v: f64) {
        // Rust's `Display` for f64 is the shortest round-trip digits in plain decimal, no
        // exponent, no fraction for integral values: the same text as Zig's `{d}`.
        self.raw(&format!("{v}"));
    }

    pub(crate) fn bool(&mut self, v: bool) {
        self.raw(if v { "true" } else { "false" });
    }

    pub(crate) fn null(&mut self) {
        self.raw("null");
    }

    /// Writes bytes as a quoted lowercase hex string.
    pub(crate) fn hex(&mut self, bytes: &[u8]) {
        self.out.push(b'"');
        push_hex(&mut self.out, bytes);
        self.out.push(b'"');
    }

    /// Writes a list: `[` item `,` item `]`.
    pub(crate) fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.out.push(b'[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(b',');
            }
            each(self, item);
        }
        self.out.push(b']');
    }
}

/// Appends `bytes` as lowercase hex.
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 15)]);
    }
}

/// `bytes` as a lowercase hex string.
pub fn hex_string(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    push_hex(&mut out, bytes);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_zig() {
        let mut w = Writer::new();
        w.str("a\"b\\c/\u{1}\u{8}\u{c}\n\r\t\u{7f}é🚀\u{1f}");
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap_or_default(),
            "\"a\\\"b\\\\c/\\u0001\\b\\f\\n\\r\\t\u{7f}é🚀\\u001f\""
        );
    }

    #[test]
    fn floats_are_plain_decimal() {
        for (v, text) in [
            (0.0, "0"),
            (5.0, "5"),
            (0.0123, "0.0123"),
            (1e-7, "0.0000001"),
            (1e21, "1000000000000000000000"),
        ] {
            let mut w = Writer::new();
            w.f64(v);
            assert_eq!(String::from_utf8(w.into_bytes()).unwrap_or_default(), text);
        }
    }

    #[test]
    fn durable_bytes_use_base64_for_non_utf8() {
        let mut w = Writer::new();
        w.db(&DurableBytes::from(vec![0xff, 0x00]));
        assert_eq!(
            String::from_utf8(w.into_bytes()).unwrap_or_default(),
            "{\"encoding\":\"base64\",\"data\":\"/wA=\"}"
        );
    }
}
