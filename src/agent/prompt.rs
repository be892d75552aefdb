//! What a turn is asked: the user's text and images ([`Prompt`]), built from ACP content blocks
//! ([`Block`]: text, and embedded resources as `File: <uri>` sections).

use serde::Deserialize;

use crate::gateway::prompt::ImagePart;
use crate::log::turn::Image;

/// An ACP prompt content block, as js/agent.js normalizes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Block {
    Text { text: String },
    Resource { resource: Resource },
}

/// An embedded resource: its URI and, when it has one, its text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Resource {
    pub uri: String,
    pub text: Option<String>,
}

/// An image the user sends with a turn, before it is staged on the session
/// ([`super::session::LiveSession::stage_images`]). The log keeps it as an image of the user
/// turn (with its bytes as a snapshot), the model gets it as an image part of the user message.
/// (The bots send them; `createFxAgent` and the terminal take none: js/agent.js refuses image
/// blocks.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptImage {
    /// Where it came from (a file name): the log's `path`.
    pub name: String,
    /// e.g. `image/png`.
    pub media_type: String,
    pub bytes: Vec<u8>,
}

/// An image staged on the session a turn runs in: the log's record of it (its bytes wait in
/// the log until the turn is written) and the part the model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagedImage {
    pub logged: Image,
    pub part: ImagePart,
}

/// The user's side of a turn: the text, and the images the front end staged on the session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompt {
    pub text: String,
    pub images: Vec<StagedImage>,
}

impl Prompt {
    /// A prompt of text alone.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            images: Vec::new(),
        }
    }

    /// Nothing to send: no text but spaces, and no image.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        if !self.images.is_empty() {
            return false;
        }
        self.text.trim().is_empty()
    }

    /// The prompt of ACP blocks: their texts one per line, a resource as `File: <uri>` followed
    /// by its text when it has one.
    #[must_use]
    pub fn from_blocks(blocks: Vec<Block>) -> Self {
        let mut parts = Vec::new();
        for block in blocks {
            match block {
                Block::Text { text } => parts.push(text),
                Block::Resource { resource } => match resource.text {
                    Some(text) => parts.push(format!("File: {}\n{}", resource.uri, text)),
                    None => parts.push(format!("File: {}", resource.uri)),
                },
            }
        }
        Self::text(parts.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_one_text() {
        let prompt = Prompt::from_blocks(vec![
            Block::Text {
                text: "look at".into(),
            },
            Block::Resource {
                resource: Resource {
                    uri: "file:///w/a.txt".into(),
                    text: Some("alpha".into()),
                },
            },
            Block::Resource {
                resource: Resource {
                    uri: "file:///w/b.txt".into(),
                    text: None,
                },
            },
        ]);
        assert_eq!(
            prompt.text,
            "look at\nFile: file:///w/a.txt\nalpha\nFile: file:///w/b.txt"
        );
        assert!(!prompt.is_empty());
        assert!(Prompt::text(" \n").is_empty());
    }
}
