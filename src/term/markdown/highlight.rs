//! A small lexical highlighter for fenced code: keywords, strings, numbers and literals, and
//! comments (line and block), for Rust, JavaScript/TypeScript, Python, shell, JSON, Go and C.
//! Other languages are shown unhighlighted. Block comments and Python triple-quoted strings
//! carry over from one line to the next.

use crate::term::style::{Span, Style, Tone};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    Rust,
    Js,
    Python,
    Shell,
    Json,
    Go,
    C,
    Plain,
}

/// Highlighting state for one code block.
#[derive(Debug, Clone)]
pub(crate) struct Highlighter {
    lang: Lang,
    in_block_comment: bool,
    in_triple: Option<&'static str>,
}

const RUST: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "type", "unsafe", "use",
    "where", "while",
];
const JS: &[&str] = &[
    "async",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "default",
    "delete",
    "do",
    "else",
    "export",
    "extends",
    "finally",
    "for",
    "from",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "of",
    "return",
    "static",
    "switch",
    "this",
    "throw",
    "try",
    "type",
    "typeof",
    "var",
    "void",
    "while",
    "yield",
];
const PYTHON: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];
const SHELL: &[&str] = &[
    "case", "do", "done", "elif", "else", "esac", "export", "fi", "for", "function", "if", "in",
    "local", "return", "then", "until", "while",
];
const GO: &[&str] = &[
    "break",
    "case",
    "chan",
    "const",
    "continue",
    "default",
    "defer",
    "else",
    "fallthrough",
    "for",
    "func",
    "go",
    "goto",
    "if",
    "import",
    "interface",
    "map",
    "package",
    "range",
    "return",
    "select",
    "struct",
    "switch",
    "type",
    "var",
];
const C: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "if",
    "include",
    "int",
    "long",
    "namespace",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "template",
    "typedef",
    "union",
    "unsigned",
    "void",
    "while",
];
const LITERALS: &[&str] = &[
    "true",
    "false",
    "null",
    "undefined",
    "None",
    "True",
    "False",
    "nil",
    "NULL",
];

impl Highlighter {
    /// A highlighter for a fence's language label (case-insensitive; unknown → plain).
    pub(crate) fn new(label: &str) -> Self {
        let lang = match label.to_ascii_lowercase().as_str() {
            "rust" | "rs" => Lang::Rust,
            "js" | "javascript" | "jsx" | "ts" | "typescript" | "tsx" | "mjs" | "cjs" => Lang::Js,
            "python" | "py" | "python3" => Lang::Python,
            "sh" | "bash" | "zsh" | "shell" | "console" | "shellsession" => Lang::Shell,
            "json" | "jsonc" | "json5" => Lang::Json,
            "go" | "golang" => Lang::Go,
            "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "java" | "cs" | "csharp" => Lang::C,
            _ => Lang::Plain,
        };
        Self {
            lang,
            in_block_comment: false,
            in_triple: None,
        }
    }

    fn keywords(&self) -> &'static [&'static str] {
        match self.lang {
            Lang::Rust => RUST,
            Lang::Js => JS,
            Lang::Python => PYTHON,
            Lang::Shell => SHELL,
            Lang::Go => GO,
            Lang::C => C,
            Lang::Json | Lang::Plain => &[],
        }
    }

    fn line_comment(&self) -> Option<&'static str> {
        match self.lang {
            Lang::Rust | Lang::Js | Lang::Go | Lang::C => Some("//"),
            Lang::Python | Lang::Shell => Some("#"),
            Lang::Json | Lang::Plain => None,
        }
    }

    fn has_block_comments(&self) -> bool {
        matches!(self.lang, Lang::Rust | Lang::Js | Lang::Go | Lang::C)
    }

    /// Highlights one line (no newline), updating the multi-line state.
    pub(crate) fn line(&mut self, line: &str) -> Vec<Span> {
        let mut out: Vec<Span> = Vec::new();
        let mut push = |text: &str, tone: Option<Tone>| {
            if text.is_empty() {
                return;
            }
            let style = Style {
                fg: tone,
                ..Style::plain()
            };
            match out.last_mut() {
                Some(last) if last.style == style => last.push_str(text),
                _ => out.push(Span::new(text, style)),
            }
        };
        if self.lang == Lang::Plain {
            push(line, None);
            return out;
        }
        let bytes = line.as_bytes();
        let mut i = 0usize;
        while i < bytes.len() {
            let rest = line.get(i..).unwrap_or("");
            if self.in_block_comment {
                let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
                self.in_block_comment = !rest.get(..end).unwrap_or("").ends_with("*/");
                push(rest.get(..end).unwrap_or(""), Some(Tone::Comment));
                i += end;
                continue;
            }
            if let Some(q) = self.in_triple {
                let end = rest.find(q).map_or(rest.len(), |e| e + q.len());
                if rest.get(..end).is_some_and(|s| s.ends_with(q)) {
                    self.in_triple = None;
                }
                push(rest.get(..end).unwrap_or(""), Some(Tone::String));
                i += end;
                continue;
            }
            let c = rest.chars().next().unwrap_or(' ');
            let prev_ok = i == 0
                || bytes
                    .get(i - 1)
                    .is_some_and(|b| !b.is_ascii_alphanumeric() && *b != b'_');
            if let Some(lc) = self.line_comment() {
                let at_word_start =
                    lc != "#" || i == 0 || bytes.get(i - 1).is_some_and(u8::is_ascii_whitespace);
                if rest.starts_with(lc) && at_word_start {
                    push(rest, Some(Tone::Comment));
                    break;
                }
            }
            if self.has_block_comments() && rest.starts_with("/*") {
                self.in_block_comment = true;
                push("/*", Some(Tone::Comment));
                i += 2;
                continue;
            }
            if self.lang == Lang::Python && (rest.starts_with("\"\"\"") || rest.starts_with("'''"))
            {
                let q = if rest.starts_with("\"\"\"") {
                    "\"\"\""
                } else {
                    "'''"
                };
                self.in_triple = Some(q);
                push(q, Some(Tone::String));
                i += 3;
                continue;
            }
            if let Some(len) = self.string_len(rest) {
                push(rest.get(..len).unwrap_or(rest), Some(Tone::String));
                i += len;
                continue;
            }
            if c.is_ascii_digit() && prev_ok {
                let len = rest
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '.'))
                    .unwrap_or(rest.len());
                push(rest.get(..len).unwrap_or(rest), Some(Tone::Number));
                i += len;
                continue;
            }
            if (c.is_ascii_alphabetic() || c == '_') && prev_ok {
                let len = rest
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
                    .unwrap_or(rest.len());
                let word = rest.get(..len).unwrap_or(rest);
                let tone = if self.keywords().contains(&word) {
                    Some(Tone::Keyword)
                } else if LITERALS.contains(&word) {
                    Some(Tone::Number)
                } else {
                    None
                };
                push(word, tone);
                i += len;
                continue;
            }
            push(rest.get(..c.len_utf8()).unwrap_or(""), None);
            i += c.len_utf8();
        }
        out
    }

    /// Length of a string literal starting at the beginning of `rest`, if one starts there.
    fn string_len(&self, rest: &str) -> Option<usize> {
        let q = rest.chars().next()?;
        let ok = match q {
            '"' => true,
            '\'' => self.lang != Lang::Json,
            '`' => matches!(self.lang, Lang::Js | Lang::Go | Lang::Shell),
            _ => false,
        };
        if !ok {
            return None;
        }
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            if escaped {
                escaped = false;
            } else if c == '\\' && (self.lang != Lang::Shell || q == '"') {
                escaped = true;
            } else if c == q {
                let len = i + c.len_utf8();
                // In Rust a lone quote is a lifetime, not a char literal.
                if q == '\'' && self.lang == Lang::Rust && len > 4 {
                    return None;
                }
                return Some(len);
            }
        }
        // Unterminated: a Rust lifetime or an apostrophe stays plain; otherwise colour the rest.
        (q != '\'' || self.lang == Lang::Python || self.lang == Lang::Js).then_some(rest.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(h: &mut Highlighter, line: &str) -> String {
        h.line(line)
            .iter()
            .map(|s| match s.style.fg {
                Some(Tone::Keyword) => format!("K({})", s.text()),
                Some(Tone::String) => format!("S({})", s.text()),
                Some(Tone::Number) => format!("N({})", s.text()),
                Some(Tone::Comment) => format!("C({})", s.text()),
                _ => s.text().to_owned(),
            })
            .collect()
    }

    #[test]
    fn highlights_common_languages() {
        let table: &[(&str, &str, &str)] = &[
            (
                "rust",
                "fn main() { let x = 42; } // done",
                "K(fn) main() { K(let) x = N(42); } C(// done)",
            ),
            (
                "rust",
                "fn f<'a>(s: &'a str) -> char { 'x' }",
                "K(fn) f<'a>(s: &'a str) -> char { S('x') }",
            ),
            (
                "ts",
                "const s = `hi ${x}`; return null",
                "K(const) s = S(`hi ${x}`); K(return) N(null)",
            ),
            (
                "python",
                "def f(x):  # add \"one\"",
                "K(def) f(x):  C(# add \"one\")",
            ),
            ("python", "return x + 1", "K(return) x + N(1)"),
            (
                "sh",
                "if [ -f a ]; then echo \"$HOME\"; fi",
                "K(if) [ -f a ]; K(then) echo S(\"$HOME\"); K(fi)",
            ),
            ("sh", "echo a#b # note", "echo a#b C(# note)"),
            (
                "json",
                "{\"a\": [1, true, null]}",
                "{S(\"a\"): [N(1), N(true), N(null)]}",
            ),
            ("text", "fn let 42", "fn let 42"),
            ("RUST", "let v2 = x1;", "K(let) v2 = x1;"),
        ];
        for (lang, line, want) in table {
            assert_eq!(
                show(&mut Highlighter::new(lang), line),
                *want,
                "{lang}: {line}"
            );
        }
    }

    #[test]
    fn block_state_carries_over() {
        let mut h = Highlighter::new("js");
        assert_eq!(show(&mut h, "a /* start"), "a C(/* start)");
        assert_eq!(show(&mut h, "still */ b"), "C(still */) b");
        let mut p = Highlighter::new("py");
        assert_eq!(show(&mut p, "x = \"\"\"doc"), "x = S(\"\"\"doc)");
        assert_eq!(show(&mut p, "end\"\"\" + 1"), "S(end\"\"\") + N(1)");
    }
}
