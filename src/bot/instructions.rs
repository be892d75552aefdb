//! A bot's system prompt for one turn (fxbot DESIGN §11.1): our short preamble, then the bot's
//! own instructions, then the handoff a provider switch carried over. (Memories within 2 % of
//! the context window and the skills list within 1 % join with memories and skills.)

/// What every bot is told first.
pub const PREAMBLE: &str = "You are a personal bot in a chat with the person who made you. \
Answer in plain, friendly prose. Files the person sends are in your library: list them with \
library_list and read text files with library_read. Earlier messages of this chat are searchable \
with chat_history.";

/// The heading of the handoff section.
pub const HANDOFF_HEADING: &str = "## Where the earlier chat left off";

/// The system prompt of a turn of a bot named `name`.
pub fn assemble(name: &str, instructions: &str, handoff: Option<&str>) -> String {
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_preamble_instructions_handoff() {
        let prompt = assemble("Ada", "Speak French.", Some("They like tea."));
        let i = prompt.find("Speak French.").unwrap();
        let h = prompt.find(HANDOFF_HEADING).unwrap();
        assert!(prompt.starts_with(PREAMBLE));
        assert!(prompt.contains("Your name is Ada."));
        assert!(i < h && prompt.ends_with("They like tea."));
        let plain = assemble("Ada", "  ", None);
        assert!(!plain.contains("## "));
    }
}
