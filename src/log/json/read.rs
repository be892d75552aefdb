//! Typed, strict reading of a parsed [`Value`]: exact key sets, integers from their source
//! text, canonical hex and base64, durable bytes; every error names its JSON path.

use std::borrow::Cow;

use base64::Engine as _;

use super::tree::Value;
use crate::log::durable::DurableBytes;
use crate::log::error::Reason;

/// A JSON location, built on the stack and rendered only when an error needs it.
#[derive(Clone, Copy)]
pub(crate) struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    seg: Seg<'p>,
}

#[derive(Clone, Copy)]
enum Seg<'p> {
    Root(&'static str),
    Key(&'p str),
    Index(usize),
}

impl<'p> Path<'p> {
    pub(crate) const fn root(name: &'static str) -> Path<'static> {
        Path {
            parent: None,
            seg: Seg::Root(name),
        }
    }

    pub(crate) fn key<'q>(&'q self, key: &'q str) -> Path<'q> {
        Path {
            parent: Some(self),
            seg: Seg::Key(key),
        }
    }

    pub(crate) fn index(&'p self, i: usize) -> Path<'p> {
        Path {
            parent: Some(self),
            seg: Seg::Index(i),
        }
    }

    pub(crate) fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut cur = Some(self);
        while let Some(p) = cur {
            segs.push(p.seg);
            cur = p.parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root(name) => out.push_str(name),
                Seg::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Seg::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
            }
        }
        out
    }

    pub(crate) fn wrong(&self, expected: &'static str) -> Reason {
        Reason::WrongType {
            path: self.render(),
            expected,
        }
    }

    pub(crate) fn invalid(&self, detail: &'static str) -> Reason {
        Reason::InvalidField {
            path: self.render(),
            detail,
        }
    }
}

type Entries<'v, 'a> = &'v [(Cow<'a, str>, Value<'a>)];

/// An object whose key set has been checked; getters fetch and type-check one field each.
pub(crate) struct Fields<'v, 'a, 'p> {
    entries: Entries<'v, 'a>,
    pub(crate) path: &'p Path<'p>,
}

/// Checks that `value` is an object whose keys are all in `required` or `optional` and that
/// every `required` key is present.
pub(crate) fn fields<'v, 'a, 'p>(
    value: &'v Value<'a>,
    path: &'p Path<'p>,
    required: &[&'static str],
    optional: &[&'static str],
) -> Result<Fields<'v, 'a, 'p>, Reason> {
    let Value::Obj(entries) = value else {
        return Err(path.wrong("an object"));
    };
    for (key, _) in entries {
        let k = key.as_ref();
        if !required.contains(&k) && !optional.contains(&k) {
            return Err(Reason::UnknownKey {
                key: k.to_owned(),
                path: path.render(),
            });
        }
    }
    for key in required {
        if !entries.iter().any(|(k, _)| k == key) {
            return Err(Reason::MissingKey {
                key,
                path: path.render(),
            });
        }
    }
    Ok(Fields { entries, path })
}

/// The keys of an object, in source order (for order-sensitive documents).
pub(crate) fn keys<'v>(value: &'v Value<'_>) -> impl Iterator<Item = &'v str> {
    let entries: &[(Cow<'_, str>, Value<'_>)] = match value {
        Value::Obj(e) => e,
        _ => &[],
    };
    entries.iter().map(|(k, _)| k.as_ref())
}

impl<'v, 'a, 'p> Fields<'v, 'a, 'p> {
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn has(&self, key: &str) -> bool {
        self.entries.iter().any(|(k, _)| k == key)
    }

    /// The raw value of `key` (`None` when absent).
    pub(crate) fn get(&self, key: &str) -> Option<&'v Value<'a>> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value of a required key (presence is checked by [`fields`]).
    pub(crate) fn req(&self, key: &'static str) -> Result<&'v Value<'a>, Reason> {
        self.get(key).ok_or_else(|| Reason::MissingKey {
            key,
            path: self.path.render(),
        })
    }

    pub(crate) fn u64(&self, key: &'static str) -> Result<u64, Reason> {
        as_u64(self.req(key)?, &self.path.key(key))
    }

    pub(crate) fn i64(&self, key: &'static str) -> Result<i64, Reason> {
        as_i64(self.req(key)?, &self.path.key(key))
    }

    pub(crate) fn f64(&self, key: &'static str) -> Result<f64, Reason> {
        let path = self.path.key(key);
        match self.req(key)? {
            Value::Num(text) => text.parse::<f64>().map_err(|_| path.wrong("a number")),
            _ => Err(path.wrong("a number")),
        }
    }

    pub(crate) fn bool(&self, key: &'static str) -> Result<bool, Reason> {
        match self.req(key)? {
            Value::Bool(b) => Ok(*b),
            _ => Err(self.path.key(key).wrong("a boolean")),
        }
    }

    pub(crate) fn str(&self, key: &'static str) -> Result<&'v str, Reason> {
        as_str(self.req(key)?, &self.path.key(key))
    }

    pub(crate) fn db(&self, key: &'static str) -> Result<DurableBytes, Reason> {
        as_db(self.req(key)?, &self.path.key(key))
    }

    /// Durable bytes or `null` (a missing key also reads as `None`).
    pub(crate) fn opt_db(&self, key: &'static str) -> Result<Option<DurableBytes>, Reason> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_db(v, &self.path.key(key)).map(Some),
        }
    }

    pub(crate) fn hex16(&self, key: &'static str) -> Result<[u8; 16], Reason> {
        as_hex(self.req(key)?, &self.path.key(key))
    }

    pub(crate) fn hex32(&self, key: &'static str) -> Result<[u8; 32], Reason> {
        as_hex(self.req(key)?, &self.path.key(key))
    }

    /// An array field; `each` receives every element with its path.
    pub(crate) fn list<T>(
        &self,
        key: &'static str,
        mut each: impl FnMut(&'v Value<'a>, &Path<'_>) -> Result<T, Reason>,
    ) -> Result<Vec<T>, Reason> {
        let path = self.path.key(key);
        let Value::Arr(items) = self.req(key)? else {
            return Err(path.wrong("an array"));
        };
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(each(item, &path.index(i))?);
        }
        Ok(out)
    }

    /// A string field parsed into an enum by `parse` (unknown values are rejected).
    pub(crate) fn enumeration<T>(
        &self,
        key: &'static str,
        parse: impl Fn(&str) -> Option<T>,
    ) -> Result<T, Reason> {
        let path = self.path.key(key);
        let text = as_str(self.req(key)?, &path)?;
        parse(text).ok_or_else(|| Reason::UnknownValue {
            path: path.render(),
            value: text.to_owned(),
        })
    }
}

/// A JSON string.
pub(crate) fn as_str<'v>(value: &'v Value<'_>, path: &Path<'_>) -> Result<&'v str, Reason> {
    match value {
        Value::Str(s) => Ok(s.as_ref()),
        _ => Err(path.wrong("a string")),
    }
}

/// An unsigned 64-bit integer written as plain digits.
pub(crate) fn as_u64(value: &Value<'_>, path: &Path<'_>) -> Result<u64, Reason> {
    let Value::Num(text) = value else {
        return Err(path.wrong("an unsigned integer"));
    };
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Reason::BadInteger {
            path: path.render(),
            expected: "an unsigned integer",
        });
    }
    text.parse::<u64>().map_err(|_| Reason::BadInteger {
        path: path.render(),
        expected: "an unsigned integer",
    })
}

/// A signed 64-bit integer written as plain digits with an optional `-`.
pub(crate) fn as_i64(value: &Value<'_>, path: &Path<'_>) -> Result<i64, Reason> {
    let Value::Num(text) = value else {
        return Err(path.wrong("an integer"));
    };
    let digits = text.strip_prefix('-').unwrap_or(text);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Reason::BadInteger {
            path: path.render(),
            expected: "an integer",
        });
    }
    text.parse::<i64>().map_err(|_| Reason::BadInteger {
        path: path.render(),
        expected: "an integer",
    })
}

/// `N` bytes written as exactly `2N` lowercase hex digits.
pub(crate) fn as_hex<const N: usize>(
    value: &Value<'_>,
    path: &Path<'_>,
) -> Result<[u8; N], Reason> {
    let text = as_str(value, path)?;
    parse_hex(text).ok_or_else(|| Reason::BadHex {
        path: path.render(),
        digits: N * 2,
    })
}

/// Parses exactly `2N` lowercase hex digits.
pub(crate) fn parse_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = text.as_bytes();
    if bytes.len() != N * 2 {
        return None;
    }
    let mut out = [0u8; N];
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let hi = lower_hex_digit(*pair.first()?)?;
        let lo = lower_hex_digit(*pair.get(1)?)?;
        *slot = (hi << 4) | lo;
    }
    Some(out)
}

fn lower_hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// Decodes canonical standard padded base64 (re-encoding must give the same text).
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(text).ok()?;
    (engine.encode(&bytes) == text).then_some(bytes)
}

/// Durable bytes (§0.3): a string, or `{"encoding":"base64","data":...}` holding non-UTF-8.
pub(crate) fn as_db(value: &Value<'_>, path: &Path<'_>) -> Result<DurableBytes, Reason> {
    match value {
        Value::Str(s) => Ok(DurableBytes::from(s.as_ref())),
        Value::Obj(entries) => {
            let bad = |detail| Reason::BadDurableBytes {
                path: path.render(),
                detail,
            };
            let [(k1, Value::Str(encoding)), (k2, Value::Str(data))] = entries.as_slice() else {
                return Err(bad("the object form must be {\"encoding\",\"data\"}"));
            };
            if k1 != "encoding" || k2 != "data" {
                return Err(bad("the object form must be {\"encoding\",\"data\"}"));
            }
            if encoding != "base64" {
                return Err(bad("encoding must be \"base64\""));
            }
            let bytes = decode_base64(data).ok_or_else(|| bad("data is not canonical base64"))?;
            if std::str::from_utf8(&bytes).is_ok() {
                return Err(bad(
                    "the object form must hold bytes that are not valid UTF-8",
                ));
            }
            Ok(DurableBytes::from(bytes))
        }
        _ => Err(path.wrong("a string or durable-bytes object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_strict() {
        let p = Path::root("x");
        assert_eq!(as_u64(&Value::Num("12"), &p), Ok(12));
        assert!(as_u64(&Value::Num("1.0"), &p).is_err());
        assert!(as_u64(&Value::Num("1e3"), &p).is_err());
        assert!(as_u64(&Value::Num("-0"), &p).is_err());
        assert!(as_u64(&Value::Num("18446744073709551616"), &p).is_err());
        assert_eq!(as_i64(&Value::Num("-5"), &p), Ok(-5));
    }

    #[test]
    fn hex_is_lowercase_only() {
        assert_eq!(parse_hex::<2>("0aff"), Some([10, 255]));
        assert_eq!(parse_hex::<2>("0aFF"), None);
        assert_eq!(parse_hex::<2>("0af"), None);
    }

    #[test]
    fn base64_is_canonical() {
        assert_eq!(decode_base64("/wA="), Some(vec![255, 0]));
        assert_eq!(decode_base64("/wB="), None);
        assert_eq!(decode_base64("/wA"), None);
    }

    #[test]
    fn path_renders() {
        let root = Path::root("payload");
        let turn = root.key("turn");
        let imgs = turn.key("images");
        assert_eq!(imgs.index(2).render(), "payload.turn.images[2]");
    }
}
