//! The arguments of `createFxbot()`'s calls as they cross the boundary: src/api/bot.rs decodes
//! each JS argument once, with serde, into a type of this module (or one built of them), and
//! the engine takes typed values only.
//!
//! A field is an [`Arg`]: absent, a value of the kind the field takes, or the name of the kind
//! it had instead. So decoding never fails on a wrong kind; the rule that reads the field says
//! which field was wrong and how ("name must be a string, not a number", a 400). An argument
//! that must be an object is an [`Object`], which keeps the kind of anything else the same way.
//! JavaScript's `undefined` and `null` are both absent (the seed: "a null value counts as
//! absent").

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One argument (or field of one) as the caller gave it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Arg<T> {
    /// Not given (`undefined` or `null`).
    #[default]
    Absent,
    /// A value of the kind the field takes.
    Given(T),
    /// A value of another kind: its name ("a number", "an array", ...).
    Wrong(&'static str),
}

impl<T> Arg<T> {
    /// The kind the caller gave, as a message names it.
    pub fn found(&self) -> &'static str {
        match self {
            Arg::Absent => "undefined",
            Arg::Given(_) => "given",
            Arg::Wrong(kind) => kind,
        }
    }

    pub fn is_absent(&self) -> bool {
        matches!(self, Arg::Absent)
    }

    /// The value if given; `Err(found)` for a value of another kind.
    ///
    /// # Errors
    /// The name of the kind given instead.
    pub fn given(self) -> Result<Option<T>, &'static str> {
        match self {
            Arg::Absent => Ok(None),
            Arg::Given(value) => Ok(Some(value)),
            Arg::Wrong(kind) => Err(kind),
        }
    }
}

/// A JavaScript value as decoding meets it: only its kind matters, and the value of the kinds
/// a field can take. (Public only as the parameter of [`Kind`].)
#[doc(hidden)]
pub enum Plain {
    Null,
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<Plain>),
    Object,
}

impl Plain {
    fn kind(&self) -> &'static str {
        match self {
            Plain::Null => "null",
            Plain::Bool(_) => "a boolean",
            Plain::Number(_) => "a number",
            Plain::Text(_) => "a string",
            Plain::List(_) => "an array",
            Plain::Object => "an object",
        }
    }
}

struct PlainVisitor;

impl<'de> Visitor<'de> for PlainVisitor {
    type Value = Plain;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JavaScript value")
    }
    fn visit_unit<E>(self) -> Result<Plain, E> {
        Ok(Plain::Null)
    }
    fn visit_none<E>(self) -> Result<Plain, E> {
        Ok(Plain::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Plain, D::Error> {
        d.deserialize_any(PlainVisitor)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Plain, E> {
        Ok(Plain::Bool(v))
    }
    // A JavaScript number is an f64: an integer the decoder met as i64 or u64 came from one.
    #[allow(clippy::cast_precision_loss)]
    fn visit_i64<E>(self, v: i64) -> Result<Plain, E> {
        Ok(Plain::Number(v as f64))
    }
    #[allow(clippy::cast_precision_loss)]
    fn visit_u64<E>(self, v: u64) -> Result<Plain, E> {
        Ok(Plain::Number(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Plain, E> {
        Ok(Plain::Number(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Plain, E> {
        Ok(Plain::Text(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Plain, E> {
        Ok(Plain::Text(v))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Plain, E> {
        Ok(Plain::Object)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Plain, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(PlainSeed)? {
            items.push(item);
        }
        Ok(Plain::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Plain, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Plain::Object)
    }
}

struct PlainSeed;

impl<'de> de::DeserializeSeed<'de> for PlainSeed {
    type Value = Plain;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Plain, D::Error> {
        d.deserialize_any(PlainVisitor)
    }
}

/// The kinds an [`Arg`] holds.
pub trait Kind: Sized {
    /// The value, or the plain value back when it is of another kind.
    ///
    /// # Errors
    /// `plain` itself, when it is not of this kind.
    fn from_plain(plain: Plain) -> Result<Self, Plain>;
}

impl Kind for String {
    fn from_plain(plain: Plain) -> Result<Self, Plain> {
        match plain {
            Plain::Text(text) => Ok(text),
            other => Err(other),
        }
    }
}

impl Kind for bool {
    fn from_plain(plain: Plain) -> Result<Self, Plain> {
        match plain {
            Plain::Bool(b) => Ok(b),
            other => Err(other),
        }
    }
}

/// A JavaScript number (whether it is whole, and in range, is the rule's to say).
impl Kind for f64 {
    fn from_plain(plain: Plain) -> Result<Self, Plain> {
        match plain {
            Plain::Number(n) => Ok(n),
            other => Err(other),
        }
    }
}

/// An array; each item keeps its own kind.
impl<T: Kind> Kind for Vec<Arg<T>> {
    fn from_plain(plain: Plain) -> Result<Self, Plain> {
        match plain {
            Plain::List(items) => Ok(items
                .into_iter()
                .map(|item| match item {
                    Plain::Null => Arg::Absent,
                    other => match T::from_plain(other) {
                        Ok(value) => Arg::Given(value),
                        Err(wrong) => Arg::Wrong(wrong.kind()),
                    },
                })
                .collect()),
            other => Err(other),
        }
    }
}

impl<'de, T: Kind> Deserialize<'de> for Arg<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match d.deserialize_any(PlainVisitor)? {
            Plain::Null => Arg::Absent,
            plain => match T::from_plain(plain) {
                Ok(value) => Arg::Given(value),
                Err(wrong) => Arg::Wrong(wrong.kind()),
            },
        })
    }
}

/// An argument that must be an object of fields `T` (each an [`Arg`], so `T` itself always
/// decodes); anything else keeps its kind.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Object<T> {
    #[default]
    Absent,
    Given(T),
    Wrong(&'static str),
}

impl<T> Object<T> {
    /// The fields; `Err(found)` when the argument is absent (`"undefined"`) or not an object.
    ///
    /// # Errors
    /// The name of the kind given instead.
    pub fn required(self) -> Result<T, &'static str> {
        match self {
            Object::Given(fields) => Ok(fields),
            Object::Absent => Err("undefined"),
            Object::Wrong(kind) => Err(kind),
        }
    }
}

impl<T: Default> Object<T> {
    /// The fields, no fields when absent; `Err(found)` when it is not an object.
    ///
    /// # Errors
    /// The name of the kind given instead.
    pub fn or_default(self) -> Result<T, &'static str> {
        match self {
            Object::Given(fields) => Ok(fields),
            Object::Absent => Ok(T::default()),
            Object::Wrong(kind) => Err(kind),
        }
    }
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Object::Given)
    }
    fn visit_unit<E>(self) -> Result<Object<T>, E> {
        Ok(Object::Absent)
    }
    fn visit_none<E>(self) -> Result<Object<T>, E> {
        Ok(Object::Absent)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Object<T>, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Object<T>, E> {
        Ok(Object::Wrong("a boolean"))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Object<T>, E> {
        Ok(Object::Wrong("a number"))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Object<T>, E> {
        Ok(Object::Wrong("a number"))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Object<T>, E> {
        Ok(Object::Wrong("a number"))
    }
    fn visit_str<E>(self, _: &str) -> Result<Object<T>, E> {
        Ok(Object::Wrong("a string"))
    }
    fn visit_bytes<E>(self, _: &[u8]) -> Result<Object<T>, E> {
        Ok(Object::Wrong("bytes"))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Object<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Object::Wrong("an array"))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(default, rename_all = "camelCase")]
    struct Fields {
        name: Arg<String>,
        pinned: Arg<bool>,
        count: Arg<f64>,
        tags: Arg<Vec<Arg<String>>>,
    }

    fn fields(value: serde_json::Value) -> Object<Fields> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn kinds_are_kept_not_refused() {
        let got = fields(json!({
            "name": 3, "pinned": true, "count": 1.5, "tags": ["a", 2, null], "other": {"x": 1}
        }))
        .required()
        .unwrap();
        assert_eq!(got.name, Arg::Wrong("a number"));
        assert_eq!(got.pinned, Arg::Given(true));
        assert_eq!(got.count, Arg::Given(1.5));
        assert_eq!(
            got.tags,
            Arg::Given(vec![
                Arg::Given("a".to_owned()),
                Arg::Wrong("a number"),
                Arg::Absent
            ])
        );
        let got = fields(json!({"name": null, "pinned": "yes", "tags": {}}))
            .required()
            .unwrap();
        assert_eq!(got.name, Arg::Absent);
        assert_eq!(got.pinned, Arg::Wrong("a string"));
        assert_eq!(got.tags, Arg::Wrong("an object"));
        assert_eq!(got.count.found(), "undefined");
    }

    #[test]
    fn an_object_argument_keeps_what_it_was_given_instead() {
        assert_eq!(fields(json!(null)), Object::Absent);
        assert_eq!(fields(json!(null)).or_default(), Ok(Fields::default()));
        assert_eq!(fields(json!(null)).required(), Err("undefined"));
        for (value, kind) in [
            (json!(7), "a number"),
            (json!("x"), "a string"),
            (json!([1, 2]), "an array"),
            (json!(false), "a boolean"),
        ] {
            assert_eq!(fields(value).required(), Err(kind));
        }
        let text: Arg<String> = serde_json::from_value(json!(123_456_789_012_u64)).unwrap();
        assert_eq!(text, Arg::Wrong("a number"));
    }
}
