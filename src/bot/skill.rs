//! Skills (fxbot DESIGN §9.2): a `SKILL.md` read into its name, description and instructions;
//! the skills a message names (`$name` anywhere, `/name` at its start); and the list of a bot's
//! skills in its instructions, within 1 % of the model's context window.
//!
//! The frontmatter reader is the small subset of YAML a `SKILL.md` uses: `key: value` lines at
//! the left margin, values plain, single- or double-quoted, or block scalars (`|` and `>`, with
//! the `-` and `+` chomping indicators); indented lines under another key (a map or a list) and
//! comments are skipped. Keys other than `name` and `description` are kept out of the skill but
//! do not refuse it.

use std::fmt;

use crate::agent::context::estimate_tokens;

/// Longest skill name (the Agent Skills rule).
pub const MAX_NAME: usize = 64;
/// Longest description, in bytes.
pub const MAX_DESCRIPTION: usize = 1024;
/// Longest instructions (the body after the frontmatter), in bytes.
pub const MAX_INSTRUCTIONS: usize = 64 * 1024;
/// Longest frontmatter, in bytes.
pub const MAX_FRONTMATTER: usize = 64 * 1024;
/// Longest `SKILL.md` as a whole.
pub const MAX_MARKDOWN: usize = MAX_FRONTMATTER + MAX_INSTRUCTIONS + 16;

/// A skill as its `SKILL.md` gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillText {
    pub name: String,
    pub description: String,
    pub instructions: String,
}

/// Why a `SKILL.md` was refused (a 400).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillError {
    TooLarge {
        bytes: usize,
    },
    NoFrontmatter,
    Unclosed,
    FrontmatterTooLarge {
        bytes: usize,
    },
    /// A line of the frontmatter that is not `key: value` (1-based line number).
    Line {
        line: usize,
    },
    /// A quoted value without its closing quote.
    Quote {
        key: String,
    },
    Missing {
        key: &'static str,
    },
    Name {
        name: String,
    },
    DescriptionTooLong {
        bytes: usize,
    },
    InstructionsTooLong {
        bytes: usize,
    },
    NoInstructions,
}

impl std::error::Error for SkillError {}

impl fmt::Display for SkillError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkillError::TooLarge { bytes } => write!(
                f,
                "the SKILL.md is {bytes} bytes; at most {MAX_MARKDOWN} are allowed"
            ),
            SkillError::NoFrontmatter => f.write_str(
                "a SKILL.md starts with frontmatter: a line \"---\", the name and description, and another \"---\"",
            ),
            SkillError::Unclosed => {
                f.write_str("the SKILL.md frontmatter has no closing \"---\" line")
            }
            SkillError::FrontmatterTooLarge { bytes } => write!(
                f,
                "the SKILL.md frontmatter is {bytes} bytes; at most {MAX_FRONTMATTER} are allowed"
            ),
            SkillError::Line { line } => write!(
                f,
                "line {line} of the SKILL.md frontmatter is not \"key: value\""
            ),
            SkillError::Quote { key } => {
                write!(f, "the SKILL.md value of {key} has no closing quote")
            }
            SkillError::Missing { key } => write!(f, "the SKILL.md frontmatter has no {key}"),
            SkillError::Name { name } => write!(
                f,
                "{name:?} is not a skill name: 1 to {MAX_NAME} lowercase letters, digits and single hyphens between them"
            ),
            SkillError::DescriptionTooLong { bytes } => write!(
                f,
                "the skill description is {bytes} bytes; at most {MAX_DESCRIPTION} are allowed"
            ),
            SkillError::InstructionsTooLong { bytes } => write!(
                f,
                "the skill instructions are {bytes} bytes; at most {MAX_INSTRUCTIONS} are allowed"
            ),
            SkillError::NoInstructions => {
                f.write_str("the SKILL.md has no instructions after its frontmatter")
            }
        }
    }
}

/// True for a skill name: `^[a-z0-9]+(-[a-z0-9]+)*$`, at most 64 characters.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && name.split('-').all(|part| {
            !part.is_empty()
                && part
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Reads a `SKILL.md`.
///
/// # Errors
/// A [`SkillError`] naming what is wrong.
pub fn parse(markdown: &str) -> Result<SkillText, SkillError> {
    if markdown.len() > MAX_MARKDOWN {
        return Err(SkillError::TooLarge {
            bytes: markdown.len(),
        });
    }
    let text = markdown.strip_prefix('\u{feff}').unwrap_or(markdown);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err(SkillError::NoFrontmatter);
    }
    let mut front: Vec<&str> = Vec::new();
    let mut front_bytes = 0usize;
    let mut closed = false;
    let mut consumed = first.len();
    for line in lines.by_ref() {
        consumed += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.trim_end() == "---" {
            closed = true;
            break;
        }
        front_bytes += line.len();
        front.push(bare);
    }
    if !closed {
        return Err(SkillError::Unclosed);
    }
    if front_bytes > MAX_FRONTMATTER {
        return Err(SkillError::FrontmatterTooLarge { bytes: front_bytes });
    }
    let fields = read_fields(&front)?;
    let field = |key: &'static str| {
        fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .ok_or(SkillError::Missing { key })
    };
    let name = field("name")?;
    if !valid_name(&name) {
        return Err(SkillError::Name { name });
    }
    let description = field("description")?;
    if description.len() > MAX_DESCRIPTION {
        return Err(SkillError::DescriptionTooLong {
            bytes: description.len(),
        });
    }
    let instructions = text.get(consumed..).unwrap_or_default().trim().to_owned();
    if instructions.is_empty() {
        return Err(SkillError::NoInstructions);
    }
    if instructions.len() > MAX_INSTRUCTIONS {
        return Err(SkillError::InstructionsTooLong {
            bytes: instructions.len(),
        });
    }
    Ok(SkillText {
        name,
        description,
        instructions,
    })
}

/// The top-level `key: value` pairs of the frontmatter's lines.
fn read_fields(lines: &[&str]) -> Result<Vec<(String, String)>, SkillError> {
    let mut out = Vec::new();
    let mut index = 0;
    while let Some(&line) = lines.get(index) {
        index += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // An indented line belongs to the key above it (a map or list we do not read).
        if line.starts_with([' ', '\t']) || trimmed.starts_with("- ") || trimmed == "-" {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            return Err(SkillError::Line { line: index + 1 });
        };
        let key = key.trim().to_owned();
        let rest = rest.trim();
        let value = if let Some(indicator) = block_indicator(rest) {
            let (value, used) = block_scalar(lines.get(index..).unwrap_or_default(), indicator);
            index += used;
            value
        } else if rest.starts_with('"') || rest.starts_with('\'') {
            quoted(rest).ok_or_else(|| SkillError::Quote { key: key.clone() })?
        } else {
            // A plain scalar, continued by more-indented lines (folded with spaces).
            let mut value = strip_comment(rest).to_owned();
            while let Some(next) = lines.get(index) {
                if next.starts_with([' ', '\t']) && !next.trim().is_empty() {
                    if !value.is_empty() {
                        value.push(' ');
                    }
                    value.push_str(next.trim());
                    index += 1;
                } else {
                    break;
                }
            }
            value
        };
        out.push((key, value));
    }
    Ok(out)
}

/// `|` or `>` with an optional chomping indicator: (folded, chomp).
#[derive(Debug, Clone, Copy)]
struct Block {
    folded: bool,
    chomp: Chomp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

fn block_indicator(rest: &str) -> Option<Block> {
    let rest = strip_comment(rest);
    let mut chars = rest.chars();
    let folded = match chars.next()? {
        '|' => false,
        '>' => true,
        _ => return None,
    };
    let mut chomp = Chomp::Clip;
    for c in chars {
        match c {
            '-' => chomp = Chomp::Strip,
            '+' => chomp = Chomp::Keep,
            '1'..='9' => {}
            _ => return None,
        }
    }
    Some(Block { folded, chomp })
}

/// The block scalar in `lines` (those indented past the key), and how many lines it used.
fn block_scalar(lines: &[&str], block: Block) -> (String, usize) {
    let indent = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .map_or(0, |l| l.len() - l.trim_start_matches([' ', '\t']).len());
    let mut body: Vec<&str> = Vec::new();
    let mut used = 0;
    for line in lines {
        let own = line.len() - line.trim_start_matches([' ', '\t']).len();
        if line.trim().is_empty() {
            body.push("");
        } else if indent > 0 && own >= indent {
            body.push(line.get(indent..).unwrap_or_default());
        } else {
            break;
        }
        used += 1;
    }
    // Blank lines after the block are not part of it unless kept.
    let mut trailing = 0;
    while body.last() == Some(&"") {
        body.pop();
        trailing += 1;
    }
    used -= trailing.min(used);
    let mut text = if block.folded {
        let mut out = String::new();
        let mut blank_run = false;
        for (i, line) in body.iter().enumerate() {
            if line.is_empty() {
                out.push('\n');
                blank_run = true;
            } else {
                if i > 0 && !blank_run && !line.starts_with([' ', '\t']) {
                    out.push(' ');
                } else if i > 0 && !blank_run {
                    out.push('\n');
                }
                out.push_str(line);
                blank_run = false;
            }
        }
        out
    } else {
        body.join("\n")
    };
    match block.chomp {
        Chomp::Strip => {}
        Chomp::Clip => text.push('\n'),
        Chomp::Keep => {
            text.push('\n');
            for _ in 0..trailing {
                text.push('\n');
            }
        }
    }
    (text, used)
}

/// A single- or double-quoted scalar on one line (`None` without its closing quote).
fn quoted(rest: &str) -> Option<String> {
    let mut chars = rest.chars();
    let quote = chars.next()?;
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match (quote, c) {
            ('\'', '\'') => {
                if chars.clone().next() == Some('\'') {
                    chars.next();
                    out.push('\'');
                } else {
                    return Some(out);
                }
            }
            ('"', '"') => return Some(out),
            ('"', '\\') => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            },
            (_, c) => out.push(c),
        }
    }
    None
}

/// A plain value without a trailing ` # comment`.
fn strip_comment(value: &str) -> &str {
    match value.find(" #") {
        Some(at) => value.get(..at).unwrap_or(value).trim_end(),
        None => value,
    }
}

/// The skills of `names` that `text` names, in the order it names them: `$name` anywhere (the
/// name followed by anything but another name character), or `/name` at its start.
pub fn mentioned<'n>(text: &str, names: &[&'n str]) -> Vec<&'n str> {
    let mut out: Vec<&'n str> = Vec::new();
    let mut add = |word: &str| {
        if let Some(&name) = names.iter().find(|n| **n == word) {
            if !out.contains(&name) {
                out.push(name);
            }
        }
    };
    if let Some(rest) = text.trim_start().strip_prefix('/') {
        add(name_at(rest));
    }
    let mut from = 0;
    while let Some(at) = text.get(from..).and_then(|t| t.find('$')) {
        let start = from + at + 1;
        add(name_at(text.get(start..).unwrap_or_default()));
        from = start;
    }
    out
}

/// The run of name characters at the start of `text`, without a trailing hyphen.
fn name_at(text: &str) -> &str {
    let end = text
        .bytes()
        .position(|b| !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
        .unwrap_or(text.len());
    text.get(..end).unwrap_or_default().trim_end_matches('-')
}

/// One line of the skills list.
pub fn list_line(name: &str, description: &str) -> String {
    let description = description.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("- ${name} — {description}")
}

/// The skills list within `floor(0.01 · window)` tokens: the lines of `skills` (name,
/// description), by name, as a strict prefix of those that fit.
pub fn list_within(skills: &[(&str, &str)], window: u64) -> Vec<String> {
    let budget = window / 100;
    let mut sorted: Vec<&(&str, &str)> = skills.iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let mut total = 0u64;
    let mut out = Vec::new();
    for (name, description) in sorted {
        let line = list_line(name, description);
        let cost = estimate_tokens(&line);
        if total + cost > budget {
            break;
        }
        total += cost;
        out.push(line);
    }
    out
}

/// A skill's instructions as they go with a message.
pub fn attached(name: &str, instructions: &str) -> String {
    let tag = if instructions.contains("</skill>") {
        "skill-instructions"
    } else {
        "skill"
    };
    format!("<{tag} name=\"{name}\">\n{instructions}\n</{tag}>")
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEW: &str =
        "---\nname: review\ndescription: Reviews a change.\n---\n\n# Review\n\nRead the diff.\n";

    #[test]
    fn a_plain_skill_md_is_read() {
        let skill = parse(REVIEW).unwrap();
        assert_eq!(skill.name, "review");
        assert_eq!(skill.description, "Reviews a change.");
        assert_eq!(skill.instructions, "# Review\n\nRead the diff.");
    }

    #[test]
    fn block_scalars_quotes_comments_and_unknown_keys() {
        let md = "\u{feff}---\r\n# a comment\r\nname: 'pdf-tools'\r\nlicense: MIT\r\nmetadata:\r\n  author: me\r\n  tags:\r\n    - a\r\ndescription: >\r\n  Fills PDF forms\r\n  and merges them.\r\n\r\n  Second paragraph.\r\nallowed-tools: \"Read, Write\"\r\n---\r\nBody\r\n";
        let skill = parse(md).unwrap();
        assert_eq!(skill.name, "pdf-tools");
        assert_eq!(
            skill.description,
            "Fills PDF forms and merges them.\nSecond paragraph."
        );
        assert_eq!(skill.instructions, "Body");
        let literal = "---\nname: a\ndescription: |-\n  line one\n  line two\n---\nx";
        assert_eq!(parse(literal).unwrap().description, "line one\nline two");
        let escaped = "---\nname: a\ndescription: \"say \\\"hi\\\" # not a comment\"\n---\nx";
        assert_eq!(
            parse(escaped).unwrap().description,
            "say \"hi\" # not a comment"
        );
        let plain = "---\nname: a # the name\ndescription: folded\n  onto two lines\n---\nx";
        let skill = parse(plain).unwrap();
        assert_eq!(
            (skill.name.as_str(), skill.description.as_str()),
            ("a", "folded onto two lines")
        );
    }

    #[test]
    fn bad_skill_md_is_refused_with_what_is_wrong() {
        assert_eq!(parse("# no frontmatter"), Err(SkillError::NoFrontmatter));
        assert_eq!(parse("---\nname: a\n"), Err(SkillError::Unclosed));
        assert_eq!(
            parse("---\nname: Review\ndescription: d\n---\nx"),
            Err(SkillError::Name {
                name: "Review".into()
            })
        );
        for bad in ["a--b", "-a", "a-", "a_b", "a b", ""] {
            assert!(!valid_name(bad), "{bad}");
        }
        assert!(valid_name(&"a".repeat(64)) && !valid_name(&"a".repeat(65)));
        assert_eq!(
            parse("---\nname: a\n---\nx"),
            Err(SkillError::Missing { key: "description" })
        );
        assert_eq!(
            parse("---\ndescription: d\n---\nx"),
            Err(SkillError::Missing { key: "name" })
        );
        assert_eq!(
            parse("---\nname: a\ndescription: d\n---\n  \n"),
            Err(SkillError::NoInstructions)
        );
        assert_eq!(
            parse("---\nname: a\njust words\n---\nx"),
            Err(SkillError::Line { line: 3 })
        );
        assert_eq!(
            parse("---\nname: 'a\ndescription: d\n---\nx"),
            Err(SkillError::Quote { key: "name".into() })
        );
        let long = format!("---\nname: a\ndescription: {}\n---\nx", "d".repeat(1025));
        assert_eq!(
            parse(&long),
            Err(SkillError::DescriptionTooLong { bytes: 1025 })
        );
        let edge = format!("---\nname: a\ndescription: {}\n---\nx", "d".repeat(1024));
        assert!(parse(&edge).is_ok());
        let body = format!(
            "---\nname: a\ndescription: d\n---\n{}",
            "b".repeat(MAX_INSTRUCTIONS + 1)
        );
        assert_eq!(
            parse(&body),
            Err(SkillError::InstructionsTooLong {
                bytes: MAX_INSTRUCTIONS + 1
            })
        );
        let huge = "x".repeat(MAX_MARKDOWN + 1);
        assert!(matches!(parse(&huge), Err(SkillError::TooLarge { .. })));
        assert!(SkillError::Name { name: "X".into() }
            .to_string()
            .contains("not a skill name"));
    }

    #[test]
    fn dollar_anywhere_and_slash_at_the_start_name_a_skill() {
        let names = ["review", "pdf-tools"];
        assert_eq!(mentioned("$review please", &names), ["review"]);
        assert_eq!(mentioned("/review please", &names), ["review"]);
        assert_eq!(mentioned("  /review", &names), ["review"]);
        assert_eq!(
            mentioned("please ($review), and $pdf-tools.", &names),
            ["review", "pdf-tools"]
        );
        assert_eq!(mentioned("$review and $review", &names), ["review"]);
        assert!(mentioned("a/review", &names).is_empty());
        assert!(mentioned("see /review", &names).is_empty());
        assert!(mentioned("$unknown", &names).is_empty());
        assert!(mentioned("$reviewer", &names).is_empty());
        assert!(mentioned("$Review", &names).is_empty());
        assert!(mentioned("$", &names).is_empty());
        assert_eq!(mentioned("$pdf-tools- now", &names), ["pdf-tools"]);
    }

    #[test]
    fn the_list_is_a_prefix_by_name_within_one_percent() {
        // Each line "- $aN — dddd" is 1 + 1 + 1 + 1 = 4 tokens.
        let skills = [("a2", "dddd"), ("a1", "dddd"), ("a3", "dddd")];
        assert_eq!(estimate_tokens(&list_line("a1", "dddd")), 4);
        // W = 800: budget 8 → two lines, by name.
        assert_eq!(list_within(&skills, 800), ["- $a1 — dddd", "- $a2 — dddd"]);
        // W = 799: budget 7 → one line; W = 1200: budget 12 → all three.
        assert_eq!(list_within(&skills, 799).len(), 1);
        assert_eq!(list_within(&skills, 1199).len(), 2);
        assert_eq!(list_within(&skills, 1200).len(), 3);
        assert!(list_within(&skills, 399).is_empty());
        // A line that does not fit ends the list: a later, shorter one is not taken.
        let uneven = [("a1", "d"), ("a2", &*"word ".repeat(20)), ("a3", "d")];
        assert_eq!(list_within(&uneven, 1000), ["- $a1 — d"]);
        assert_eq!(list_line("a", "two\n  lines"), "- $a — two lines");
    }

    #[test]
    fn attached_instructions_are_wrapped_so_they_cannot_close_early() {
        assert_eq!(attached("a", "do x"), "<skill name=\"a\">\ndo x\n</skill>");
        assert!(attached("a", "x </skill> y").starts_with("<skill-instructions"));
    }
}
