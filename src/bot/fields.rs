//! A bot's fields (fxbot DESIGN §4.1–§4.2): [`Fields`], the [`Shape`] and [`Color`] tables, the
//! limits, the parsing of a `bots.create`/`bots.update` argument into a [`FieldsPatch`], and the
//! pinned rule ([`MAX_PINNED`], [`check_pin`]).
//!
//! The seed lost the fields table and the Shape/Color values; what is here is reconstructed and
//! kept in one place so a correction is one edit (a test snapshots the tables).
//!
//! Lengths count Unicode scalar values (Rust `char`s), not UTF-16 units: a name of 64 emoji is
//! accepted although JavaScript's `length` says 128.

use serde::{Deserialize, Serialize};

use super::args::{Arg, Object};
use super::ids::{BotId, ProviderId};
use super::shown::shown;

/// Longest name, after trimming.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest instructions (about 8k tokens).
pub const MAX_INSTRUCTIONS_CHARS: usize = 32_000;
/// Longest model id.
pub const MAX_MODEL_CHARS: usize = 256;
/// How many bots may be pinned at once (`maxPinned` in the seed).
pub const MAX_PINNED: usize = 3;
/// The name of a bot created without one.
pub const DEFAULT_NAME: &str = "New bot";

macro_rules! table_enum {
    ($(#[$doc:meta])* $name:ident, $table:ident, [$($variant:ident = $text:literal),+ $(,)?]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)+
        }

        /// Every value with its wire name, in display order.
        pub const $table: &[($name, &str)] = &[$(($name::$variant, $text)),+];

        impl $name {
            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value named `text`, if any.
            pub fn parse(text: &str) -> Option<Self> {
                $table.iter().find(|(_, name)| *name == text).map(|(value, _)| *value)
            }

            /// The wire names joined for a message.
            fn names() -> String {
                $table.iter().map(|(_, name)| *name).collect::<Vec<_>>().join(", ")
            }
        }
    };
}

table_enum!(
    /// A bot's avatar shape.
    Shape,
    SHAPES,
    [
        Circle = "circle",
        Square = "square",
        Rounded = "rounded",
        Triangle = "triangle",
        Diamond = "diamond",
        Hexagon = "hexagon",
        Star = "star",
    ]
);

table_enum!(
    /// A bot's avatar color.
    Color,
    COLORS,
    [
        Gray = "gray",
        Red = "red",
        Orange = "orange",
        Amber = "amber",
        Green = "green",
        Teal = "teal",
        Blue = "blue",
        Indigo = "indigo",
        Purple = "purple",
        Pink = "pink",
    ]
);

/// The color of a new bot: the first color of [`COLORS`] no bot uses, else blue.
pub fn first_free_color(in_use: &[Color]) -> Color {
    COLORS
        .iter()
        .map(|(color, _)| *color)
        .find(|color| !in_use.contains(color))
        .unwrap_or(Color::Blue)
}

/// A bot's editable fields, as `Fields` in the seed's types.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fields {
    pub name: String,
    pub instructions: String,
    /// `""` means the provider's default model.
    pub model: String,
    /// `None` is the seed's `""`: no provider.
    #[serde(with = "provider_field")]
    pub provider: Option<ProviderId>,
    pub shape: Shape,
    pub color: Color,
}

/// A provider field on the wire: `""` for none, else a provider id.
pub mod provider_field {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::ProviderId;

    /// Writes `""` for none.
    ///
    /// # Errors
    /// The serializer's.
    pub fn serialize<S: Serializer>(id: &Option<ProviderId>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(id.as_ref().map_or("", ProviderId::as_str))
    }

    /// Reads `""` as none.
    ///
    /// # Errors
    /// Neither `""` nor a provider id.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ProviderId>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        ProviderId::try_from(text)
            .map(Some)
            .map_err(serde::de::Error::custom)
    }
}

/// A field value that breaks its rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// The argument is not an object.
    #[error("{what} must be an object, not {found}")]
    NotAnObject {
        what: &'static str,
        found: &'static str,
    },
    /// A field has the wrong JSON type.
    #[error("{field} must be {expected}, not {found}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
        found: &'static str,
    },
    #[error("name must not be empty")]
    EmptyName,
    #[error("name must be at most 64 characters; it has {chars}")]
    NameTooLong { chars: usize },
    #[error("{field} must not contain control characters; got {shown}")]
    ControlCharacter { field: &'static str, shown: String },
    #[error("instructions must be at most 32,000 characters; they have {chars}")]
    InstructionsTooLong { chars: usize },
    #[error("model must be at most 256 characters; it has {chars}")]
    ModelTooLong { chars: usize },
    #[error("provider must be \"\" or a provider id (12 lowercase hex characters); got {shown}")]
    BadProvider { shown: String },
    #[error("{field} must be one of {allowed}; got {shown}")]
    NotInTable {
        field: &'static str,
        allowed: String,
        shown: String,
    },
}

/// The changes a `bots.create`/`bots.update` argument asks for (absent keys change nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldsPatch {
    /// Trimmed and checked.
    pub name: Option<String>,
    pub instructions: Option<String>,
    /// Trimmed and checked; `Some("")` asks for the provider's default.
    pub model: Option<String>,
    /// `Some(None)` is `provider: ""`.
    pub provider: Option<Option<ProviderId>>,
    pub shape: Option<Shape>,
    pub color: Option<Color>,
    /// Only `bots.update` reads it.
    pub pinned: Option<bool>,
}

/// Which call a patch is for: only an update takes `pinned`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchFor {
    Create,
    Update,
}

fn has_control(text: &str) -> bool {
    text.chars().any(char::is_control)
}

/// A `bots.create`/`bots.update` argument as the boundary decodes it: the fields (and
/// `pinned`), each as given; other keys are dropped.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct FieldsArg {
    pub name: Arg<String>,
    pub instructions: Arg<String>,
    pub model: Arg<String>,
    pub provider: Arg<String>,
    pub shape: Arg<String>,
    pub color: Arg<String>,
    pub pinned: Arg<bool>,
}

fn string_field(arg: Arg<String>, field: &'static str) -> Result<Option<String>, FieldError> {
    arg.given().map_err(|found| FieldError::WrongType {
        field,
        expected: "a string",
        found,
    })
}

fn table_field<T: Copy>(
    arg: Arg<String>,
    field: &'static str,
    parse: fn(&str) -> Option<T>,
    names: fn() -> String,
) -> Result<Option<T>, FieldError> {
    let Some(text) = string_field(arg, field)? else {
        return Ok(None);
    };
    parse(&text)
        .map(Some)
        .ok_or_else(|| FieldError::NotInTable {
            field,
            allowed: names(),
            shown: shown(&text),
        })
}

/// Checks a name: trimmed, 1 to 64 characters, no control characters.
///
/// # Errors
/// The rule it breaks.
pub fn check_name(text: &str) -> Result<String, FieldError> {
    let name = text.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err(FieldError::EmptyName);
    }
    if chars > MAX_NAME_CHARS {
        return Err(FieldError::NameTooLong { chars });
    }
    if has_control(name) {
        return Err(FieldError::ControlCharacter {
            field: "name",
            shown: shown(name),
        });
    }
    Ok(name.to_owned())
}

/// Checks instructions: at most 32,000 characters (taken verbatim).
///
/// # Errors
/// [`FieldError::InstructionsTooLong`].
pub fn check_instructions(text: &str) -> Result<String, FieldError> {
    let chars = text.chars().count();
    if chars > MAX_INSTRUCTIONS_CHARS {
        return Err(FieldError::InstructionsTooLong { chars });
    }
    Ok(text.to_owned())
}

/// Checks a model id: trimmed, at most 256 characters, no control characters (`""` is allowed).
///
/// # Errors
/// The rule it breaks.
pub fn check_model(text: &str) -> Result<String, FieldError> {
    let model = text.trim();
    let chars = model.chars().count();
    if chars > MAX_MODEL_CHARS {
        return Err(FieldError::ModelTooLong { chars });
    }
    if has_control(model) {
        return Err(FieldError::ControlCharacter {
            field: "model",
            shown: shown(model),
        });
    }
    Ok(model.to_owned())
}

/// Checks a provider field: `""` or a provider id (whether it exists is the engine's check).
///
/// # Errors
/// [`FieldError::BadProvider`].
pub fn check_provider(text: &str) -> Result<Option<ProviderId>, FieldError> {
    if text.is_empty() {
        return Ok(None);
    }
    ProviderId::parse(text)
        .map(Some)
        .map_err(|_| FieldError::BadProvider { shown: shown(text) })
}

impl FieldsPatch {
    /// Reads a `bots.create` (absent = no fields) or `bots.update` argument. Keys outside the
    /// fields (and `pinned` on create) are ignored, as the seed says; a `null` value counts as
    /// absent.
    ///
    /// # Errors
    /// The first [`FieldError`], in field order.
    pub fn from_arg(arg: Object<FieldsArg>, call: PatchFor) -> Result<Self, FieldError> {
        let (what, fields) = match call {
            PatchFor::Create => ("fields", arg.or_default()),
            PatchFor::Update => ("patch", arg.required()),
        };
        let fields = fields.map_err(|found| FieldError::NotAnObject { what, found })?;
        let pinned = match call {
            PatchFor::Create => None,
            PatchFor::Update => fields
                .pinned
                .given()
                .map_err(|found| FieldError::WrongType {
                    field: "pinned",
                    expected: "a boolean",
                    found,
                })?,
        };
        Ok(Self {
            name: string_field(fields.name, "name")?
                .as_deref()
                .map(check_name)
                .transpose()?,
            instructions: string_field(fields.instructions, "instructions")?
                .as_deref()
                .map(check_instructions)
                .transpose()?,
            model: string_field(fields.model, "model")?
                .as_deref()
                .map(check_model)
                .transpose()?,
            provider: string_field(fields.provider, "provider")?
                .as_deref()
                .map(check_provider)
                .transpose()?,
            shape: table_field(fields.shape, "shape", Shape::parse, Shape::names)?,
            color: table_field(fields.color, "color", Color::parse, Color::names)?,
            pinned,
        })
    }
}

impl FieldsPatch {
    /// True when the patch changes a field (not only `pinned`).
    pub fn changes_fields(&self) -> bool {
        self.name.is_some()
            || self.instructions.is_some()
            || self.model.is_some()
            || self.provider.is_some()
            || self.shape.is_some()
            || self.color.is_some()
    }
}

/// What a patch changed that the engine must act on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changed {
    /// The provider is different now (a chat then compacts and hands off, §10).
    pub provider: bool,
    /// The model is different now.
    pub model: bool,
}

impl Fields {
    /// The fields of a new bot: the patch over the defaults (§4.1): name "New bot", no
    /// instructions, the provider's default model, `default_provider`, a circle, and the first
    /// color no bot uses.
    pub fn create(
        patch: &FieldsPatch,
        default_provider: Option<&ProviderId>,
        colors_in_use: &[Color],
    ) -> Self {
        Self {
            name: patch
                .name
                .clone()
                .unwrap_or_else(|| DEFAULT_NAME.to_owned()),
            instructions: patch.instructions.clone().unwrap_or_default(),
            model: patch.model.clone().unwrap_or_default(),
            provider: patch
                .provider
                .clone()
                .unwrap_or_else(|| default_provider.cloned()),
            shape: patch.shape.unwrap_or(Shape::Circle),
            color: patch
                .color
                .unwrap_or_else(|| first_free_color(colors_in_use)),
        }
    }

    /// Applies a patch. A new provider without a new model sets the model to `""` (seed).
    pub fn apply(&mut self, patch: &FieldsPatch) -> Changed {
        let before = (self.provider.clone(), self.model.clone());
        if let Some(name) = &patch.name {
            self.name.clone_from(name);
        }
        if let Some(instructions) = &patch.instructions {
            self.instructions.clone_from(instructions);
        }
        let provider_changed = patch
            .provider
            .as_ref()
            .is_some_and(|provider| *provider != self.provider);
        if let Some(provider) = &patch.provider {
            self.provider.clone_from(provider);
        }
        match &patch.model {
            Some(model) => self.model.clone_from(model),
            None if provider_changed => self.model.clear(),
            None => {}
        }
        if let Some(shape) = patch.shape {
            self.shape = shape;
        }
        if let Some(color) = patch.color {
            self.color = color;
        }
        Changed {
            provider: before.0 != self.provider,
            model: before.1 != self.model,
        }
    }
}

/// A pin the limit refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at most {max} bots can be pinned; unpin one first")]
pub struct PinError {
    pub max: usize,
}

/// Decides `pinned` for `bot`, given every bot and whether it is pinned now (this bot included or
/// not): unpinning is always allowed; pinning fails when [`MAX_PINNED`] other bots are pinned.
///
/// # Errors
/// [`PinError`] for a pin over the limit.
pub fn check_pin<'a>(
    bots: impl IntoIterator<Item = (&'a BotId, bool)>,
    bot: &BotId,
    pinned: bool,
) -> Result<(), PinError> {
    if !pinned {
        return Ok(());
    }
    let others = bots
        .into_iter()
        .filter(|(id, is_pinned)| *is_pinned && *id != bot)
        .count();
    if others >= MAX_PINNED {
        return Err(PinError { max: MAX_PINNED });
    }
    Ok(())
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
