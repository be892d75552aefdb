//! What the model calls a server's tool, and which tools a new server starts with.
//!
//! The model sees `mcp_<server>_<tool>`: characters outside `[A-Za-z0-9_-]` become `_`, and a
//! name longer than 64 characters (OpenAI's limit, the strictest of the protocols) is cut and
//! given `_` and four hex digits of a hash of the whole name; a name that collides with an
//! earlier one of the same list gets the hash too, so every tool keeps a name of its own.

use super::client::Tool;

/// The longest name a model protocol accepts for a tool.
pub const MAX_NAME: usize = 64;

fn sanitise(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a, 16 bits folded: four hex digits that tell two long names apart.
fn tag(text: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{:04x}", (hash >> 16) ^ (hash & 0xffff))
}

fn tagged(name: &str, full: &str) -> String {
    let keep: String = name.chars().take(MAX_NAME - 5).collect();
    format!("{keep}_{}", tag(full))
}

/// The model-facing name of `tool` on `server` (the add-on's name slug), alone.
#[must_use]
pub fn model_name(server: &str, tool: &str) -> String {
    let name = sanitise(&format!("mcp_{server}_{tool}"));
    if name.len() > MAX_NAME {
        tagged(&name, &format!("{server}\u{0}{tool}"))
    } else {
        name
    }
}

/// The model-facing names of a server's tools, in order, each unique.
#[must_use]
pub fn model_names(server: &str, tools: &[&str]) -> Vec<String> {
    let pairs: Vec<(&str, &str)> = tools.iter().map(|t| (server, *t)).collect();
    model_names_of(&pairs, &[])
}

/// The model-facing names of `(server, tool)` pairs (several servers' tools), in order, each
/// unique and none of them one of `taken` (the names of the other tools of the turn).
#[must_use]
pub fn model_names_of(pairs: &[(&str, &str)], taken: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(pairs.len());
    let used = |out: &[String], name: &str| out.iter().any(|n| n == name) || taken.contains(&name);
    for (server, tool) in pairs {
        let mut name = model_name(server, tool);
        if used(&out, &name) {
            name = tagged(&name, &format!("{server}\u{0}{tool}"));
        }
        let mut salt = 0u32;
        while used(&out, &name) {
            salt += 1;
            name = tagged(&name, &format!("{server}\u{0}{tool}\u{0}{salt}"));
        }
        out.push(name);
    }
    out
}

/// The tools a server starts with allowed: those that say they only read
/// (`annotations.readOnlyHint: true`). Tools that appear later are not allowed by themselves.
#[must_use]
pub fn initially_allowed(tools: &[Tool]) -> Vec<String> {
    tools
        .iter()
        .filter(|t| t.read_only)
        .map(|t| t.name.clone())
        .collect()
}

/// The tools the model is offered: the allowed ones that the server still lists.
#[must_use]
pub fn advertised<'t>(tools: &'t [Tool], allowed: &[String]) -> Vec<&'t Tool> {
    tools.iter().filter(|t| allowed.contains(&t.name)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitised_and_at_most_64_characters() {
        assert_eq!(model_name("docs", "search"), "mcp_docs_search");
        assert_eq!(
            model_name("my docs", "get.page/v2"),
            "mcp_my_docs_get_page_v2"
        );
        assert_eq!(model_name("d", "é"), "mcp_d__");
        let long = model_name("tracker", &"very_long_tool_name_".repeat(5));
        assert_eq!(long.len(), MAX_NAME);
        assert!(long.starts_with("mcp_tracker_very_long_tool_name_"));
        let other = model_name("tracker", &format!("{}x", "very_long_tool_name_".repeat(5)));
        assert_eq!(other.len(), MAX_NAME);
        assert_ne!(long, other, "two long names keep names of their own");
        let exact = model_name("s", &"t".repeat(MAX_NAME - 6));
        assert_eq!(
            exact,
            format!("mcp_s_{}", "t".repeat(MAX_NAME - 6)),
            "64 is not cut"
        );
    }

    #[test]
    fn colliding_names_are_told_apart() {
        let names = model_names("s", &["a.b", "a/b", "a_b", "c"]);
        assert_eq!(names.first().map(String::as_str), Some("mcp_s_a_b"));
        assert_eq!(names.get(3).map(String::as_str), Some("mcp_s_c"));
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 4, "{names:?}");
        assert!(names.iter().all(|n| n.len() <= MAX_NAME));
    }

    #[test]
    fn a_new_server_allows_its_read_only_tools() {
        let tool = |name: &str, read_only| Tool {
            name: name.into(),
            title: None,
            description: String::new(),
            input_schema: serde_json::json!({"type": "object"}),
            read_only,
        };
        let tools = vec![
            tool("search", true),
            tool("delete", false),
            tool("get", true),
        ];
        let allowed = initially_allowed(&tools);
        assert_eq!(allowed, ["search", "get"]);
        let offered: Vec<&str> = advertised(&tools, &allowed)
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(offered, ["search", "get"]);
    }
}
