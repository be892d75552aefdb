//! The `chat.send` message check (fxbot DESIGN §3.4 `chat.send` rows, §8.1 steps 1 and 3): the
//! `messageId`, the text, and up to 8 files given as base64, each sniffed by its bytes (PNG,
//! JPEG, GIF, WebP: the sniffed type wins over `Upload.type`), with the size limits, and every
//! other file checked to be UTF-8 text without NUL.
//!
//! Sizes are decoded bytes. The exact decoded size is computed from the base64 length before
//! anything is decoded, so an oversized file is refused without allocating for it.

use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{Arg, Object};
use super::ids::{IdError, MessageId};
use super::shown::{kind_of, shown};

const MIB: usize = 1024 * 1024;

/// The limits of one message; [`Limits::DEFAULT`] is the design's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_files: usize,
    /// One image, decoded.
    pub max_image_bytes: usize,
    /// A message's images together, decoded.
    pub max_images_bytes: usize,
    /// One text file, decoded.
    pub max_text_file_bytes: usize,
    /// A message's files together, decoded.
    pub max_files_bytes: usize,
    /// The message text itself (UTF-8 bytes).
    pub max_text_bytes: usize,
    /// A file name (characters).
    pub max_name_chars: usize,
}

impl Limits {
    /// 8 files; an image ≤ 3.75 MiB, images ≤ 6 MiB together; a text file ≤ 1 MiB; all files
    /// ≤ 16 MiB; the text ≤ 1 MiB; a file name ≤ 255 characters.
    pub const DEFAULT: Limits = Limits {
        max_files: 8,
        max_image_bytes: 3 * MIB + 3 * MIB / 4,
        max_images_bytes: 6 * MIB,
        max_text_file_bytes: MIB,
        max_files_bytes: 16 * MIB,
        max_text_bytes: MIB,
        max_name_chars: 255,
    };
}

/// An image type, known by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageType {
    Png,
    Jpeg,
    Gif,
    Webp,
}

impl ImageType {
    /// The media type.
    pub fn media_type(self) -> &'static str {
        match self {
            ImageType::Png => "image/png",
            ImageType::Jpeg => "image/jpeg",
            ImageType::Gif => "image/gif",
            ImageType::Webp => "image/webp",
        }
    }

    /// The name messages use.
    pub fn label(self) -> &'static str {
        match self {
            ImageType::Png => "PNG",
            ImageType::Jpeg => "JPEG",
            ImageType::Gif => "GIF",
            ImageType::Webp => "WebP",
        }
    }
}

/// The image type of `bytes` by its signature: PNG `89 50 4E 47 0D 0A 1A 0A`, JPEG `FF D8 FF`,
/// GIF `GIF87a`/`GIF89a`, WebP `RIFF....WEBP`; `None` for anything else.
pub fn sniff_image(bytes: &[u8]) -> Option<ImageType> {
    match bytes {
        [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, ..] => Some(ImageType::Png),
        [0xff, 0xd8, 0xff, ..] => Some(ImageType::Jpeg),
        [b'G', b'I', b'F', b'8', b'7' | b'9', b'a', ..] => Some(ImageType::Gif),
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => Some(ImageType::Webp),
        _ => None,
    }
}

/// What a checked file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Image(ImageType),
    /// UTF-8 text without NUL.
    Text,
}

/// One checked file of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedFile {
    pub name: String,
    /// The sniffed type for an image; for text, the declared type when it is a plausible
    /// non-image media type, else `text/plain`.
    pub media_type: String,
    pub kind: FileKind,
    pub bytes: Vec<u8>,
}

impl CheckedFile {
    /// The text of a text file (`None` for an image).
    pub fn text(&self) -> Option<&str> {
        match self.kind {
            FileKind::Text => std::str::from_utf8(&self.bytes).ok(),
            FileKind::Image(_) => None,
        }
    }
}

/// One file as the caller gave it (the seed's `Upload`): a message's file, or `library.add`'s
/// argument. `url` is what fxbot hands back; it is ignored here.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct UploadArg {
    pub name: Arg<String>,
    #[serde(rename = "type")]
    pub media_type: Arg<String>,
    pub data: Arg<String>,
}

/// A checked `chat.send` message (its `messageId` is read apart, by [`message_id`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedMessage {
    /// As given (not trimmed); may be empty only when there are files.
    pub text: String,
    pub files: Vec<CheckedFile>,
}

/// A message (or one of its files) that breaks a rule. Files are numbered from 1 and named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    #[error("the message must be an object, not {found}")]
    NotAnObject { found: &'static str },
    #[error("{0}")]
    MessageId(IdError),
    #[error("text must be a string, not {found}")]
    TextNotAString { found: &'static str },
    #[error("text is required unless the message has files")]
    TextRequired,
    #[error("text is {bytes} bytes; it may be at most {max} bytes ({})", mib(*max))]
    TextTooLarge { bytes: usize, max: usize },
    #[error("files must be an array, not {found}")]
    FilesNotAnArray { found: &'static str },
    #[error("a message takes at most {max} files; this one has {count}")]
    TooManyFiles { count: usize, max: usize },
    #[error("file {index} must be an object {{ name, type, data }}, not {found}")]
    FileNotAnObject { index: usize, found: &'static str },
    #[error("file {index} has no name")]
    NameMissing { index: usize },
    #[error("file {index}: name must be a string, not {found}")]
    NameNotAString { index: usize, found: &'static str },
    #[error("file {index}: name {shown} {why}")]
    BadName {
        index: usize,
        shown: String,
        why: &'static str,
    },
    #[error("file {index} ({name}): type must be a string, not {found}")]
    TypeNotAString {
        index: usize,
        name: String,
        found: &'static str,
    },
    #[error("file {index} ({name}) has no data (base64 bytes are required)")]
    DataMissing { index: usize, name: String },
    #[error("file {index} ({name}): data must be a base64 string, not {found}")]
    DataNotAString {
        index: usize,
        name: String,
        found: &'static str,
    },
    #[error("file {index} ({name}): data is a data: URL; pass only the base64 after the comma")]
    DataUrl { index: usize, name: String },
    #[error("file {index} ({name}): data is not valid base64 ({detail})")]
    BadBase64 {
        index: usize,
        name: String,
        detail: String,
    },
    #[error(
        "file {index} ({name}) is a {} image of {bytes} bytes; an image may be at most {max} bytes ({})",
        image.label(),
        mib(*max)
    )]
    ImageTooLarge {
        index: usize,
        name: String,
        image: ImageType,
        bytes: usize,
        max: usize,
    },
    #[error("the images of this message are {bytes} bytes together; they may be at most {max} bytes ({})", mib(*max))]
    ImagesTooLarge { bytes: usize, max: usize },
    #[error(
        "file {index} ({name}) is neither a PNG, JPEG, GIF or WebP image nor UTF-8 text (invalid UTF-8 at byte {offset})"
    )]
    NotUtf8 {
        index: usize,
        name: String,
        offset: usize,
    },
    #[error("file {index} ({name}) is not a text file: it has a NUL byte at byte {offset}")]
    HasNul {
        index: usize,
        name: String,
        offset: usize,
    },
    #[error("file {index} ({name}) is {bytes} bytes of text; a text file may be at most {max} bytes ({})", mib(*max))]
    TextFileTooLarge {
        index: usize,
        name: String,
        bytes: usize,
        max: usize,
    },
    #[error("the files of this message are {bytes} bytes together; they may be at most {max} bytes ({})", mib(*max))]
    FilesTooLarge { bytes: usize, max: usize },
}

/// `bytes` in MiB for a message: `3.75 MiB`, `6 MiB`.
fn mib(bytes: usize) -> String {
    let hundredths = bytes.saturating_mul(100) / MIB;
    let (whole, frac) = (hundredths / 100, hundredths % 100);
    match frac {
        0 => format!("{whole} MiB"),
        f if f % 10 == 0 => format!("{whole}.{} MiB", f / 10),
        f => format!("{whole}.{f:02} MiB"),
    }
}

fn object(message: &Value) -> Result<&Map<String, Value>, MessageError> {
    message.as_object().ok_or(MessageError::NotAnObject {
        found: kind_of(message),
    })
}

/// Reads and checks a message's `messageId` (§8.1 step 1, before the duplicate check).
///
/// # Errors
/// [`MessageError::NotAnObject`] or [`MessageError::MessageId`].
pub fn message_id(message: &Value) -> Result<MessageId, MessageError> {
    let map = object(message)?;
    let value = map.get("messageId").unwrap_or(&Value::Null);
    MessageId::from_json(value).map_err(MessageError::MessageId)
}

/// Checks a message's text and files with the default limits (§8.1 step 3).
///
/// # Errors
/// The first [`MessageError`]: the text, then each file in order, then the totals.
pub fn check_message(message: &Value) -> Result<CheckedMessage, MessageError> {
    check_message_with(message, &Limits::DEFAULT)
}

/// [`check_message`] with other limits (tests reach the rules the defaults make unreachable).
///
/// # Errors
/// As [`check_message`].
pub fn check_message_with(
    message: &Value,
    limits: &Limits,
) -> Result<CheckedMessage, MessageError> {
    let map = object(message)?;
    let files = match map.get("files") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(files)) => files.as_slice(),
        Some(other) => {
            return Err(MessageError::FilesNotAnArray {
                found: kind_of(other),
            })
        }
    };
    let text = match map.get("text") {
        None | Some(Value::Null) => "",
        Some(Value::String(text)) => text.as_str(),
        Some(other) => {
            return Err(MessageError::TextNotAString {
                found: kind_of(other),
            })
        }
    };
    if text.trim().is_empty() && files.is_empty() {
        return Err(MessageError::TextRequired);
    }
    if text.len() > limits.max_text_bytes {
        return Err(MessageError::TextTooLarge {
            bytes: text.len(),
            max: limits.max_text_bytes,
        });
    }
    if files.len() > limits.max_files {
        return Err(MessageError::TooManyFiles {
            count: files.len(),
            max: limits.max_files,
        });
    }
    let mut checked = Vec::with_capacity(files.len());
    let (mut images_bytes, mut all_bytes) = (0usize, 0usize);
    for (i, file) in files.iter().enumerate() {
        let upload = UploadArg::deserialize(file).unwrap_or_default();
        let upload = match file {
            Value::Object(_) => Object::Given(upload),
            other => Object::Wrong(kind_of(other)),
        };
        let file = check_file(i + 1, upload, limits)?;
        all_bytes = all_bytes.saturating_add(file.bytes.len());
        if matches!(file.kind, FileKind::Image(_)) {
            images_bytes = images_bytes.saturating_add(file.bytes.len());
            if images_bytes > limits.max_images_bytes {
                return Err(MessageError::ImagesTooLarge {
                    bytes: images_bytes,
                    max: limits.max_images_bytes,
                });
            }
        }
        if all_bytes > limits.max_files_bytes {
            return Err(MessageError::FilesTooLarge {
                bytes: all_bytes,
                max: limits.max_files_bytes,
            });
        }
        checked.push(file);
    }
    Ok(CheckedMessage {
        text: text.to_owned(),
        files: checked,
    })
}

fn engine() -> GeneralPurpose {
    GeneralPurpose::new(
        &alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    )
}

/// The exact decoded length of well-formed base64 (`None` when no base64 has this length).
fn decoded_len(data: &str) -> Option<usize> {
    let body = data.strip_suffix("==").or_else(|| data.strip_suffix('='));
    let body = body.unwrap_or(data);
    let tail = match body.len() % 4 {
        0 => 0,
        2 => 1,
        3 => 2,
        _ => return None,
    };
    Some(body.len() / 4 * 3 + tail)
}

fn check_name(index: usize, value: Arg<String>, limits: &Limits) -> Result<String, MessageError> {
    let name = match value {
        Arg::Absent => return Err(MessageError::NameMissing { index }),
        Arg::Given(name) => name,
        Arg::Wrong(found) => return Err(MessageError::NameNotAString { index, found }),
    };
    let why = if name.trim().is_empty() {
        Some("is empty")
    } else if name.chars().count() > limits.max_name_chars {
        Some("is longer than 255 characters")
    } else if name.chars().any(char::is_control) {
        Some("has control characters")
    } else {
        None
    };
    match why {
        Some(why) => Err(MessageError::BadName {
            index,
            shown: shown(&name),
            why,
        }),
        None => Ok(name),
    }
}

/// The declared type of a text file when it is a plausible non-image media type.
fn text_media_type(declared: &str) -> String {
    let declared = declared.trim().to_ascii_lowercase();
    let plausible = !declared.is_empty()
        && declared.len() <= 127
        && declared.contains('/')
        && !declared.starts_with("image/")
        && declared.bytes().all(|b| {
            (b.is_ascii_graphic() && !matches!(b, b'"' | b'<' | b'>' | b'\\')) || b == b' '
        });
    if plausible {
        declared
    } else {
        "text/plain".to_owned()
    }
}

/// Checks file `index` (from 1) of a message, or `library.add`'s one file.
///
/// # Errors
/// The first [`MessageError`] of the file: its shape, name, type, data, then its size and kind.
pub fn check_file(
    index: usize,
    file: Object<UploadArg>,
    limits: &Limits,
) -> Result<CheckedFile, MessageError> {
    let file = file
        .required()
        .map_err(|found| MessageError::FileNotAnObject { index, found })?;
    let name = check_name(index, file.name, limits)?;
    let declared = match file.media_type {
        Arg::Absent => String::new(),
        Arg::Given(t) => t,
        Arg::Wrong(found) => {
            return Err(MessageError::TypeNotAString {
                index,
                name: shown(&name),
                found,
            })
        }
    };
    let data = match file.data {
        Arg::Absent => {
            return Err(MessageError::DataMissing {
                index,
                name: shown(&name),
            })
        }
        Arg::Given(data) => data,
        Arg::Wrong(found) => {
            return Err(MessageError::DataNotAString {
                index,
                name: shown(&name),
                found,
            })
        }
    };
    let data = data.as_str();
    let bad_base64 = |detail: String| MessageError::BadBase64 {
        index,
        name: shown(&name),
        detail,
    };
    if data.starts_with("data:") {
        return Err(MessageError::DataUrl {
            index,
            name: shown(&name),
        });
    }
    let Some(bytes) = decoded_len(data) else {
        return Err(bad_base64(format!(
            "{} characters is not a possible base64 length",
            data.len()
        )));
    };
    // The first 12 bytes (16 characters) tell an image apart; the sizes are known already.
    let head_chars = if data.len() > 16 { 16 } else { data.len() };
    let head = engine()
        .decode(data.get(..head_chars).unwrap_or_default())
        .map_err(|e| bad_base64(e.to_string()))?;
    let kind = match sniff_image(&head) {
        Some(image) => FileKind::Image(image),
        None => FileKind::Text,
    };
    match kind {
        FileKind::Image(image) if bytes > limits.max_image_bytes => {
            return Err(MessageError::ImageTooLarge {
                index,
                name: shown(&name),
                image,
                bytes,
                max: limits.max_image_bytes,
            })
        }
        FileKind::Text if bytes > limits.max_text_file_bytes => {
            return Err(MessageError::TextFileTooLarge {
                index,
                name: shown(&name),
                bytes,
                max: limits.max_text_file_bytes,
            })
        }
        _ => {}
    }
    let decoded = engine()
        .decode(data)
        .map_err(|e| bad_base64(e.to_string()))?;
    let media_type = match kind {
        FileKind::Image(image) => image.media_type().to_owned(),
        FileKind::Text => {
            if let Err(e) = std::str::from_utf8(&decoded) {
                return Err(MessageError::NotUtf8 {
                    index,
                    name: shown(&name),
                    offset: e.valid_up_to(),
                });
            }
            if let Some(offset) = decoded.iter().position(|&b| b == 0) {
                return Err(MessageError::HasNul {
                    index,
                    name: shown(&name),
                    offset,
                });
            }
            text_media_type(&declared)
        }
    };
    Ok(CheckedFile {
        name,
        media_type,
        kind,
        bytes: decoded,
    })
}

#[cfg(test)]
#[path = "upload_tests.rs"]
mod tests;
