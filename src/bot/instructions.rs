//! A bot's system prompt for one turn (fxbot DESIGN §11.1): our short preamble, then the bot's
//! own instructions, then the handoff a provider switch carried over, then its newest memories
//! within 2 % of the model's context window ([`crate::bot::memory::within_budget`]), then the
//! list of its skills within 1 % ([`crate::bot::skill::list_within`]). The prompt is fixed for
//! the turn (a memory saved during it shows from the next turn), so a provider's prompt cache
//! holds across its steps.

/// What every bot is told first.
pub const PREAMBLE: &str = "You are a personal bot in a chat with the person who made you. \
Answer in plain, friendly prose. Files the person sends are in your library: list them with \
library_list and read text files with library_read. Earlier messages of this chat are searchable \
with chat_history. Save what is worth remembering across chats with memory_save.";

/// The heading of the handoff section.
pub const HANDOFF_HEADING: &str = "## Where the earlier chat left off";
/// The heading of the memories.
pub const MEMORIES_HEADING: &str = "## What you remember";
/// The heading of the skills list.
pub const SKILLS_HEADING: &str = "## Your skills";
/// What the skills list says first.
pub const SKILLS_INTRO: &str = "Load a skill's full instructions with the skill tool when a \
request needs it; a message that names $name comes with that skill's instructions.";

/// The context window of `model` on a provider: the provider's own `contextWindow`, else what
/// its model list reports for the model, else the gateway's known windows, else
/// [`crate::bot::kinds::FALLBACK_CONTEXT_WINDOW`]. The budgets of the memories and the skills
/// list are shares of it.
pub fn window_of(provider: &crate::bot::settings::ProviderDoc, model: &str) -> u64 {
    provider
        .context_window
        .or_else(|| {
            provider
                .models
                .as_ref()?
                .models
                .iter()
                .find(|m| m.id == model)?
                .context_window
        })
        .or_else(|| crate::gateway::catalog::fallback_context_window(model))
        .unwrap_or(crate::bot::kinds::FALLBACK_CONTEXT_WINDOW)
}

/// The system prompt of a turn of a bot named `name`, with the lines of its memories and of
/// its skills list (each already cut to its budget).
pub fn assemble(
    name: &str,
    instructions: &str,
    handoff: Option<&str>,
    memories: &[String],
    skills: &[String],
) -> String {
    let mut out = String::from(PREAMBLE);
    out.push_str("\n\nYour name is ");
    out.push_str(name);
    out.push('.');
    let instructions = instructions.trim();
    if !instructions.is_empty() {
        out.push_str("\n\n## Your instructions\n\n");
        out.push_str(instructions);
    }
    if let Some(handoff) = handoff.map(str::trim).filter(|h| !h.is_empty()) {
        out.push_str("\n\n");
        out.push_str(HANDOFF_HEADING);
        out.push_str("\n\n");
        out.push_str(handoff);
    }
    if !memories.is_empty() {
        out.push_str("\n\n");
        out.push_str(MEMORIES_HEADING);
        out.push_str("\n\nNewest first; search for more with memory_search.");
        for line in memories {
            out.push('\n');
            out.push_str(line);
        }
    }
    if !skills.is_empty() {
        out.push_str("\n\n");
        out.push_str(SKILLS_HEADING);
        out.push_str("\n\n");
        out.push_str(SKILLS_INTRO);
        for line in skills {
            out.push('\n');
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_preamble_instructions_handoff() {
        let prompt = assemble("Ada", "Speak French.", Some("They like tea."), &[], &[]);
        let i = prompt.find("Speak French.").unwrap();
        let h = prompt.find(HANDOFF_HEADING).unwrap();
        assert!(prompt.starts_with(PREAMBLE));
        assert!(prompt.contains("Your name is Ada."));
        assert!(i < h && prompt.ends_with("They like tea."));
        let plain = assemble("Ada", "  ", None, &[], &[]);
        assert!(!plain.contains("## "));
        let skills = assemble(
            "Ada",
            "",
            Some("h"),
            &["- [mem:000000000001] tea".to_owned()],
            &["- $review — Reviews.".to_owned()],
        );
        assert!(skills.find(HANDOFF_HEADING) < skills.find(MEMORIES_HEADING));
        assert!(skills.find(MEMORIES_HEADING) < skills.find(SKILLS_HEADING));
        assert!(skills.ends_with(&format!("{SKILLS_INTRO}\n- $review — Reviews.")));
    }
}
