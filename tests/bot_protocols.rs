//! The four wire protocols of the bots' providers (fxbot DESIGN §7.1): each recorded stream in
//! tests/fixtures/providers/ (the vendors' own wire formats: Chat Completions as DeepSeek sends
//! it, Responses, Anthropic Messages with thinking, Gemini with CRLF framing) decodes into the
//! same events whole and split at every byte boundary (text, reasoning, split tool-call
//! arguments, usage, finish reason); a cut stream is no finish (the gateway's retry rule); the
//! request bodies match goldens; Anthropic requests carry the browser-access header.
#![cfg(feature = "bot")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use fx_wasm::agent::protocol::{ModelCall, ModelProtocol, StreamDecoder};
use fx_wasm::bot::kinds::Kind;
use fx_wasm::gateway::completion::{Disposition, StreamAccumulator};
use fx_wasm::gateway::events::{FinishReason, SseEvent};
use fx_wasm::gateway::prompt::{ImagePart, ToolCallPart, ToolResult};
use fx_wasm::gateway::request::{ToolChoice, ToolDefinition};
use fx_wasm::gateway::{AssistantPart, Effort, Message, UserPart};
use fx_wasm::providers::BotProtocol;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/providers");

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/{name}")).unwrap()
}

/// The events with runs of text, of reasoning and of one call's argument text joined (how
/// many events a run makes depends on how the bytes were split).
fn joined(events: Vec<SseEvent>) -> Vec<SseEvent> {
    let mut out: Vec<SseEvent> = Vec::new();
    for event in events {
        match (out.last_mut(), &event) {
            (Some(SseEvent::TextDelta(a)), SseEvent::TextDelta(b))
            | (Some(SseEvent::ReasoningDelta(a)), SseEvent::ReasoningDelta(b)) => a.push_str(b),
            (
                Some(SseEvent::ToolInputDelta { id: a, delta }),
                SseEvent::ToolInputDelta { id: b, delta: more },
            ) if a == b => delta.push_str(more),
            _ => out.push(event),
        }
    }
    out
}

fn decode(kind: Kind, chunks: &[&[u8]]) -> (Vec<SseEvent>, bool) {
    let protocol = BotProtocol::wire(kind, "https://x.test".to_owned());
    let mut decoder = protocol.decoder();
    let mut events = Vec::new();
    for chunk in chunks {
        decoder.feed(chunk, &mut events).unwrap();
    }
    let end = decoder.end(&mut events).unwrap();
    (joined(events), end.finished)
}

/// What every fixture says: reasoning, text, one `library_list` call with `{"tag": "rés"}`
/// split across deltas, 182 tokens in and 41 out, finish `tool-calls`.
fn check_fixture(kind: Kind, name: &str, call_id: &str, args: &str) {
    let bytes = fixture(name);
    let (events, finished) = decode(kind, &[&bytes]);
    assert!(finished, "{name} finishes");
    let summary: Vec<String> = events
        .iter()
        .map(|e| match e {
            SseEvent::TextDelta(t) => format!("text {t}"),
            SseEvent::ReasoningDelta(t) => format!("reasoning {t}"),
            SseEvent::ToolInputStart { id, tool_name } => format!("start {id} {tool_name}"),
            SseEvent::ToolInputDelta { id, delta } => format!("delta {id} {delta}"),
            SseEvent::ToolInputEnd { id } => format!("end {id}"),
            SseEvent::ToolCall(c) => {
                format!(
                    "call {} {} {} {}",
                    c.id, c.name, c.arguments_json, c.malformed
                )
            }
            SseEvent::Finish(f) => format!(
                "finish {} {:?} {:?} {:?} {:?}",
                f.reason.label(),
                f.usage.input_tokens,
                f.usage.output_tokens,
                f.usage.cache_read_tokens,
                f.usage.reasoning_tokens,
            ),
            other => format!("{other:?}"),
        })
        .collect();
    let reasoning = if kind == Kind::Openai || kind == Kind::Google {
        "reasoning **Listing the library**"
    } else {
        "reasoning The user asks for files; list them."
    };
    assert_eq!(
        summary,
        [
            reasoning.to_owned(),
            "text Let me check the library — un moment.".to_owned(),
            format!("start {call_id} library_list"),
            format!("delta {call_id} {args}"),
            format!("end {call_id}"),
            format!("call {call_id} library_list {args} false"),
            if kind == Kind::Anthropic {
                "finish tool-calls Some(182) Some(41) Some(128) None".to_owned()
            } else {
                "finish tool-calls Some(182) Some(41) Some(128) Some(12)".to_owned()
            },
        ],
        "{name}"
    );
    // Split at every byte boundary (inside UTF-8 characters, CRLF pairs, `data:` prefixes).
    for cut in 0..=bytes.len() {
        let (head, tail) = bytes.split_at(cut);
        let (split, finished) = decode(kind, &[head, tail]);
        assert!(finished);
        assert_eq!(split, events, "{name} cut at {cut}");
    }
    // And byte by byte.
    let singles: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode(kind, &singles).0, events, "{name} byte by byte");
    // The events fold into a completed step with the call.
    let mut accumulator = StreamAccumulator::new();
    accumulator.push_all(&mut events.clone());
    let completion = accumulator.into_completion();
    assert_eq!(completion.disposition(), Disposition::Completed);
    assert_eq!(completion.tool_calls.len(), 1);
    assert_eq!(
        (
            completion.usage.input_tokens,
            completion.usage.output_tokens
        ),
        (Some(182), Some(41))
    );
}

#[test]
fn chat_completions_stream() {
    check_fixture(
        Kind::Deepseek,
        "chat-completions.sse",
        "call_0_5f2a",
        r#"{"tag": "rés"}"#,
    );
}

#[test]
fn responses_stream() {
    check_fixture(
        Kind::Openai,
        "responses.sse",
        "call_Qm3x",
        r#"{"tag": "rés"}"#,
    );
}

#[test]
fn anthropic_stream() {
    check_fixture(
        Kind::Anthropic,
        "anthropic-messages.sse",
        "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        r#"{"tag": "rés"}"#,
    );
}

#[test]
fn gemini_stream() {
    check_fixture(Kind::Google, "gemini.sse", "call_0_0", r#"{"tag":"rés"}"#);
}

/// A stream cut before its end (no `[DONE]`, `message_stop`, `response.completed` or
/// `finishReason`) has no `finish`: the step is Interrupted, which the agent retries exactly as
/// a cut gateway stream (nothing reached the user) or ends (text did).
#[test]
fn a_cut_stream_is_interrupted() {
    for (kind, name, marker) in [
        (
            Kind::Deepseek,
            "chat-completions.sse",
            "\"finish_reason\":\"tool_calls\"",
        ),
        (Kind::Openai, "responses.sse", "event: response.completed"),
        (
            Kind::Anthropic,
            "anthropic-messages.sse",
            "event: message_delta",
        ),
        (Kind::Google, "gemini.sse", "\"finishReason\""),
    ] {
        let bytes = fixture(name);
        let text = String::from_utf8(bytes).unwrap();
        let at = text.find(marker).unwrap();
        let cut = text[..at].rfind("data:").unwrap_or(at);
        let (events, finished) = decode(kind, &[&text.as_bytes()[..cut]]);
        assert!(!finished, "{name}");
        assert!(!events.iter().any(|e| matches!(e, SseEvent::Finish(_))));
        let mut accumulator = StreamAccumulator::new();
        accumulator.push_all(&mut events.clone());
        assert_eq!(
            accumulator.into_completion().disposition(),
            Disposition::Interrupted,
            "{name}"
        );
    }
}

/// Errors inside a stream: the provider's error, and a finish that makes it a provider failure
/// (retried while nothing reached the user, as the gateway's `error` event).
#[test]
fn stream_errors() {
    for (kind, body) in [
        (Kind::Anthropic, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n"),
        (Kind::Openai, "event: error\ndata: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"Overloaded\",\"param\":null}\n\n"),
        (Kind::Groq, "data: {\"error\":{\"message\":\"Overloaded\",\"type\":\"server_error\",\"code\":\"server_error\"}}\n\n"),
        (Kind::Google, "data: {\"error\":{\"code\":503,\"message\":\"Overloaded\",\"status\":\"UNAVAILABLE\"}}\n\n"),
    ] {
        let (events, _) = decode(kind, &[body.as_bytes()]);
        let SseEvent::Error(error) = &events[0] else { panic!("{events:?}") };
        assert_eq!(error.message, "Overloaded");
        let mut accumulator = StreamAccumulator::new();
        accumulator.push_all(&mut events.clone());
        let completion = accumulator.into_completion();
        assert_eq!(completion.disposition(), Disposition::ProviderFailure, "{kind:?}");
        assert_eq!(completion.finish.unwrap().reason, FinishReason::Error);
    }
    // Chat Completions without `[DONE]` but with its reason: finished at the end of the body.
    let (events, finished) = decode(
        Kind::Ollama,
        &[b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\n"],
    );
    assert!(finished);
    assert!(matches!(&events[1], SseEvent::Finish(f) if f.reason == FinishReason::Stop));
}

fn conversation() -> Vec<Message> {
    vec![
        Message::system("You are Ada."),
        Message::System {
            content: "Today is Thursday.".to_owned(),
            no_cache: true,
        },
        Message::User {
            parts: vec![
                UserPart::Text("What files do I have?".to_owned()),
                UserPart::Image(ImagePart {
                    media_type: "image/png".to_owned(),
                    data_base64: "iVBORw0KGgo=".to_owned(),
                }),
            ],
        },
        Message::Assistant {
            parts: vec![
                AssistantPart::Text("Let me check.".to_owned()),
                AssistantPart::ToolCall(
                    ToolCallPart::new("call_1", "library_list", r#"{"tag":"rés"}"#).unwrap(),
                ),
            ],
        },
        Message::tool_result(ToolResult {
            tool_call_id: "call_1".to_owned(),
            tool_name: "library_list".to_owned(),
            output: "[]".to_owned(),
        }),
        Message::user_text("Thanks."),
    ]
}

fn tools() -> Vec<ToolDefinition> {
    vec![ToolDefinition {
        name: "library_list".to_owned(),
        description: "List the library's items.".to_owned(),
        input_schema: serde_json::value::RawValue::from_string(
            r#"{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"tag":{"type":"string"}},"additionalProperties":false}"#.to_owned(),
        )
        .unwrap(),
    }]
}

fn request(kind: Kind, base: &str, model: &str) -> fx_wasm::caps::HttpRequest {
    let messages = conversation();
    let tools = tools();
    let call = ModelCall {
        model,
        messages: &messages,
        tools: &tools,
        tool_choice: ToolChoice::Auto,
        session_id: Some("s1"),
        token: Some("sk-test"),
        team: None,
        effort: Effort::default(),
        fast: false,
        model_info: None,
    };
    BotProtocol::wire(kind, base.to_owned())
        .build(&call)
        .unwrap()
}

/// Request URLs, headers and bodies of the four protocols, against the goldens in
/// tests/fixtures/providers/*.request.json (`FX_UPDATE_GOLDENS=1` rewrites them).
#[test]
fn request_goldens() {
    for (kind, base, model, golden) in [
        (
            Kind::Xai,
            "https://api.x.ai/v1",
            "grok-4",
            "chat-completions.request.json",
        ),
        (
            Kind::Openai,
            "https://api.openai.com/v1",
            "gpt-5-mini",
            "responses.request.json",
        ),
        (
            Kind::Anthropic,
            "https://api.anthropic.com/v1",
            "claude-sonnet-4-5",
            "anthropic-messages.request.json",
        ),
        (
            Kind::Google,
            "https://generativelanguage.googleapis.com/v1beta",
            "gemini-2.5-flash",
            "gemini.request.json",
        ),
        (
            Kind::Ollama,
            "http://127.0.0.1:11434",
            "llama3.2",
            "ollama.request.json",
        ),
    ] {
        let request = request(kind, base, model);
        let body: Value = serde_json::from_slice(&request.body).unwrap();
        let headers: Vec<Value> = request
            .headers
            .iter()
            .map(|(n, v)| Value::String(format!("{n}: {v}")))
            .collect();
        let actual = serde_json::json!({"url": request.url, "headers": headers, "body": body});
        let path = format!("{FIXTURES}/{golden}");
        if std::env::var_os("FX_UPDATE_GOLDENS").is_some() {
            let text = serde_json::to_string_pretty(&actual).unwrap();
            std::fs::write(&path, text + "\n").unwrap();
        }
        let expected: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(actual, expected, "{golden}");
    }
    let anthropic = request(Kind::Anthropic, "https://api.anthropic.com/v1", "m");
    assert!(anthropic
        .headers
        .iter()
        .any(|(n, v)| n == "anthropic-dangerous-direct-browser-access" && v == "true"));
    assert!(anthropic
        .headers
        .iter()
        .any(|(n, v)| n == "x-api-key" && v == "sk-test"));
    let gemini = request(Kind::Google, "https://g.test/v1beta", "m");
    assert!(gemini
        .headers
        .iter()
        .any(|(n, v)| n == "x-goog-api-key" && v == "sk-test"));
}

/// A model id that cannot go in Gemini's URL is refused before anything is sent.
#[test]
fn gemini_model_in_the_url() {
    let messages = conversation();
    let call = ModelCall {
        model: "../x?y",
        messages: &messages,
        tools: &[],
        tool_choice: ToolChoice::Auto,
        session_id: None,
        token: None,
        team: None,
        effort: Effort::default(),
        fast: false,
        model_info: None,
    };
    assert!(BotProtocol::wire(Kind::Google, "https://g.test".to_owned())
        .build(&call)
        .is_err());
}

/// Chat Completions reasoning under either name, read once when a server sends both.
#[test]
fn chat_reasoning_names() {
    let stream = concat!(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"a\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"b\",\"reasoning\":\"b\"}}]}\n\n",
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    );
    let (events, finished) = decode(Kind::Openrouter, &[stream.as_bytes()]);
    assert!(finished);
    assert_eq!(events[0], SseEvent::ReasoningDelta("ab".to_owned()));
    assert_eq!(events[1], SseEvent::TextDelta("c".to_owned()));
}
