//! Request building: every request fx sent in the fixtures (`requests.jsonl`) is rebuilt from
//! its messages and compared key by key, in order; plus the body option rules, cache markers,
//! tool definitions and history validation.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::fmt;
use std::path::Path;

use fx_wasm::gateway::catalog::{Effort, ModelInfo};
use fx_wasm::gateway::endpoint::ChatEndpoint;
use fx_wasm::gateway::prompt::{
    cache_marks, validate_history, AssistantPart, ImagePart, Message, PromptError, ToolCallPart,
    ToolResult, UserPart,
};
use fx_wasm::gateway::request::{
    build_request, clip_tool_description, RequestError, RequestOptions, ToolChoice, ToolDefinition,
};
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// JSON with object key order kept, for order-sensitive comparison.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

impl Node {
    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Obj(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn keys(&self) -> Vec<&str> {
        match self {
            Node::Obj(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }
    fn as_str(&self) -> &str {
        match self {
            Node::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    fn items(&self) -> &[Node] {
        match self {
            Node::Arr(items) => items,
            other => panic!("not an array: {other:?}"),
        }
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }
    fn visit_str<E>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Node::Arr(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Node>()? {
            entries.push((key, value));
        }
        Ok(Node::Obj(entries))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

fn node(text: impl AsRef<[u8]>) -> Node {
    serde_json::from_slice(text.as_ref()).unwrap()
}

/// A fixture message part, with `input` kept as raw text (key order intact).
#[derive(Deserialize)]
struct FxPart<'a> {
    #[serde(rename = "type")]
    kind: String,
    text: Option<String>,
    #[serde(rename = "toolCallId")]
    tool_call_id: Option<String>,
    #[serde(rename = "toolName")]
    tool_name: Option<String>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    output: Option<FxOutput>,
}

#[derive(Deserialize)]
struct FxOutput {
    value: String,
}

#[derive(Deserialize)]
struct FxMessage<'a> {
    role: String,
    #[serde(borrow)]
    content: Vec<FxPart<'a>>,
}

/// Builds our message model from a fixture message.
fn to_message(fx: &FxMessage<'_>) -> Message {
    match fx.role.as_str() {
        "user" => Message::User {
            parts: fx
                .content
                .iter()
                .map(|p| {
                    assert_eq!(p.kind, "text");
                    UserPart::Text(p.text.clone().unwrap())
                })
                .collect(),
        },
        "assistant" => Message::Assistant {
            parts: fx
                .content
                .iter()
                .map(|p| match p.kind.as_str() {
                    "text" => AssistantPart::Text(p.text.clone().unwrap()),
                    "tool-call" => AssistantPart::ToolCall(
                        ToolCallPart::new(
                            p.tool_call_id.clone().unwrap(),
                            p.tool_name.clone().unwrap(),
                            p.input.unwrap().get(),
                        )
                        .unwrap(),
                    ),
                    other => panic!("unexpected assistant part {other}"),
                })
                .collect(),
        },
        "tool" => Message::Tool {
            results: fx
                .content
                .iter()
                .map(|p| {
                    assert_eq!(p.kind, "tool-result");
                    ToolResult {
                        tool_call_id: p.tool_call_id.clone().unwrap(),
                        tool_name: p.tool_name.clone().unwrap(),
                        output: p.output.as_ref().unwrap().value.clone(),
                    }
                })
                .collect(),
        },
        other => panic!("unexpected role {other}"),
    }
}

fn tool(name: &str) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        description: format!("The {name} tool."),
        input_schema: RawValue::from_string(
            r#"{"type":"object","properties":{},"additionalProperties":false}"#.to_owned(),
        )
        .unwrap(),
    }
}

const FX_HEADER_ORDER: [&str; 11] = [
    "content-type",
    "authorization",
    "HTTP-Referer",
    "X-Title",
    "ai-gateway-protocol-version",
    "ai-language-model-specification-version",
    "ai-language-model-id",
    "ai-language-model-streaming",
    "x-vercel-ai-gateway-team",
    "x-session-id",
    "x-session-affinity",
];

#[test]
fn every_fixture_request_is_rebuilt_exactly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fx-sessions");
    let mut checked = 0;
    let mut scenarios: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scenarios.sort();
    for dir in scenarios {
        let Ok(text) = std::fs::read_to_string(dir.join("requests.jsonl")) else {
            continue;
        };
        for (line_no, line) in text.lines().enumerate() {
            let here = format!("{}:{}", dir.display(), line_no + 1);
            let fixture = node(line);
            let raw: serde_json::Value = serde_json::from_str(line).unwrap();
            let headers = fixture.get("headers").unwrap();
            let body = fixture.get("body").unwrap();

            // Messages: N system messages, then the fixture's non-system messages.
            let fx_messages: Vec<FxMessage<'_>> = {
                #[derive(Deserialize)]
                struct Line<'a> {
                    #[serde(borrow)]
                    body: LineBody<'a>,
                }
                #[derive(Deserialize)]
                struct LineBody<'a> {
                    #[serde(borrow)]
                    prompt_without_system: Vec<FxMessage<'a>>,
                }
                let parsed: Line<'_> = serde_json::from_str(line).unwrap();
                parsed.body.prompt_without_system
            };
            let system_count = raw["body"]["system_message_count"].as_u64().unwrap();
            let mut messages: Vec<Message> = (0..system_count)
                .map(|i| Message::system(format!("system {i}")))
                .collect();
            messages.extend(fx_messages.iter().map(to_message));
            let tools: Vec<ToolDefinition> = raw["body"]["tool_names"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| tool(n.as_str().unwrap()))
                .collect();

            let other = body.get("other_keys").unwrap();
            let tool_choice = match other
                .get("toolChoice")
                .unwrap()
                .get("type")
                .unwrap()
                .as_str()
            {
                "auto" => ToolChoice::Auto,
                "none" => ToolChoice::None,
                "required" => ToolChoice::Required,
                other => panic!("{other}"),
            };
            let model_id = headers
                .get("ai-language-model-id")
                .unwrap()
                .as_str()
                .to_owned();
            let catalog_entry = raw["body"]["other_keys"]["maxOutputTokens"]
                .as_u64()
                .map(|max| ModelInfo {
                    id: model_id.clone(),
                    max_tokens: Some(max),
                    context_window: Some(262_144),
                    ..ModelInfo::default()
                });
            let session = headers.get("x-session-id").map(|s| s.as_str().to_owned());
            let options = RequestOptions {
                model_id: &model_id,
                token: Some("test-key"),
                session_id: session.as_deref(),
                tool_choice,
                model: catalog_entry.as_ref(),
                ..RequestOptions::default()
            };
            let request = build_request(&ChatEndpoint::canonical(), &messages, &tools, &options)
                .unwrap_or_else(|e| panic!("{here}: {e}"));

            // Headers: fx's order, and every captured header with the same value.
            let names: Vec<&str> = request.headers.iter().map(|(n, _)| n.as_str()).collect();
            let expected_order: Vec<&str> = FX_HEADER_ORDER
                .iter()
                .copied()
                .filter(|n| names.contains(n))
                .collect();
            assert_eq!(names, expected_order, "{here}");
            for (name, value) in match headers {
                Node::Obj(e) => e,
                _ => panic!(),
            } {
                let ours = request
                    .headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(name));
                assert_eq!(
                    ours.map(|(_, v)| v.as_str()),
                    Some(value.as_str()),
                    "{here}: header {name}"
                );
            }
            assert_eq!(
                request.headers.len(),
                headers.keys().len() + 4,
                "{here}: extra headers"
            );
            assert_eq!(
                request.url,
                "https://ai-gateway.vercel.sh/v3/ai/language-model"
            );

            // Body: prompt without system messages equals the fixture's, in order.
            let ours = node(&request.body);
            let prompt = ours.get("prompt").unwrap().items();
            let (system, rest): (Vec<&Node>, Vec<&Node>) = prompt
                .iter()
                .partition(|m| m.get("role") == Some(&Node::Str("system".into())));
            assert_eq!(system.len() as u64, system_count, "{here}");
            let expected: Vec<&Node> = body
                .get("prompt_without_system")
                .unwrap()
                .items()
                .iter()
                .collect();
            assert_eq!(rest, expected, "{here}: prompt_without_system");

            // Tools in order, then exactly the other keys fx sent, in order.
            let tool_names: Vec<&str> = ours
                .get("tools")
                .unwrap()
                .items()
                .iter()
                .map(|t| t.get("name").unwrap().as_str())
                .collect();
            let fixture_tools: Vec<&str> = body
                .get("tool_names")
                .unwrap()
                .items()
                .iter()
                .map(Node::as_str)
                .collect();
            assert_eq!(tool_names, fixture_tools, "{here}");
            let mut other_keys: Vec<(String, Node)> = match &ours {
                Node::Obj(entries) => entries.clone(),
                _ => panic!(),
            };
            other_keys.retain(|(k, _)| k != "prompt" && k != "tools");
            assert_eq!(&Node::Obj(other_keys), other, "{here}: other keys");
            checked += 1;
        }
    }
    assert_eq!(checked, 52, "every fixture request was checked");
}

fn options(model_id: &str) -> RequestOptions<'_> {
    RequestOptions {
        model_id,
        token: Some("k"),
        ..RequestOptions::default()
    }
}

fn body_of(messages: &[Message], options: &RequestOptions<'_>) -> Node {
    node(
        &build_request(&ChatEndpoint::canonical(), messages, &[], options)
            .unwrap()
            .body,
    )
}

fn keys_after_tools(body: &Node) -> Vec<String> {
    body.keys().into_iter().skip(2).map(str::to_owned).collect()
}

#[test]
fn body_options_follow_the_catalog() {
    let messages = [Message::user_text("hi")];
    let listed = ModelInfo {
        id: "xai/grok-4".into(),
        efforts: vec!["low".into(), "high".into()],
        fast: true,
        context_window: Some(200_000),
        max_tokens: Some(32_000),
        ..ModelInfo::default()
    };
    // Everything on.
    let full = RequestOptions {
        effort: Effort::Named("high".into()),
        fast: true,
        model: Some(&listed),
        ..options("xai/grok-4")
    };
    let body = body_of(&messages, &full);
    assert_eq!(
        keys_after_tools(&body),
        [
            "toolChoice",
            "maxOutputTokens",
            "reasoning",
            "providerOptions"
        ]
    );
    assert_eq!(
        body.get("maxOutputTokens"),
        Some(&Node::Num("32000".into()))
    );
    assert_eq!(body.get("reasoning"), Some(&Node::Str("high".into())));
    assert_eq!(
        body.get("providerOptions").unwrap(),
        &node(r#"{"gateway":{"speed":"fast"},"xai":{"parallelToolCalls":true}}"#)
    );
    // Effort not listed, auto effort, Fast unsupported, max_tokens not below the window.
    let plain = ModelInfo {
        efforts: vec![],
        fast: false,
        max_tokens: Some(200_000),
        ..listed.clone()
    };
    for effort in [Effort::Named("high".into()), Effort::Auto] {
        let body = body_of(
            &messages,
            &RequestOptions {
                effort,
                fast: true,
                model: Some(&plain),
                ..options("openai/gpt-5")
            },
        );
        assert_eq!(keys_after_tools(&body), ["toolChoice"]);
    }
    // Fast alone; no catalog entry means no Fast, no reasoning, no maxOutputTokens.
    let fast_only = ModelInfo {
        fast: true,
        ..plain.clone()
    };
    let body = body_of(
        &messages,
        &RequestOptions {
            fast: true,
            model: Some(&fast_only),
            ..options("moonshotai/kimi-k3")
        },
    );
    assert_eq!(
        body.get("providerOptions").unwrap(),
        &node(r#"{"gateway":{"speed":"fast"}}"#)
    );
    let body = body_of(
        &messages,
        &RequestOptions {
            fast: true,
            effort: Effort::Named("high".into()),
            ..options("moonshotai/kimi-k3")
        },
    );
    assert_eq!(keys_after_tools(&body), ["toolChoice"]);
    // Unknown window: maxOutputTokens is sent; the local table supplies windows when silent.
    let no_window = ModelInfo {
        context_window: None,
        max_tokens: Some(8192),
        ..plain.clone()
    };
    let body = body_of(
        &messages,
        &RequestOptions {
            model: Some(&no_window),
            ..options("moonshotai/kimi-k3")
        },
    );
    assert_eq!(body.get("maxOutputTokens"), Some(&Node::Num("8192".into())));
    let huge = ModelInfo {
        context_window: None,
        max_tokens: Some(300_000),
        ..plain
    };
    let body = body_of(
        &messages,
        &RequestOptions {
            model: Some(&huge),
            ..options("openai/gpt-5")
        },
    );
    assert_eq!(
        body.get("maxOutputTokens"),
        None,
        "256k fallback window for openai gpt-5"
    );
    // xai without fast; glm user agent; toolChoice none.
    let body = body_of(
        &messages,
        &RequestOptions {
            tool_choice: ToolChoice::None,
            ..options("xai/grok-4")
        },
    );
    assert_eq!(
        body.get("providerOptions").unwrap(),
        &node(r#"{"xai":{"parallelToolCalls":true}}"#)
    );
    assert_eq!(body.get("toolChoice").unwrap(), &node(r#"{"type":"none"}"#));
    let body = body_of(
        &messages,
        &RequestOptions {
            user_agent: Some("fx/0.1.0"),
            ..options("zai/glm-5.2")
        },
    );
    assert_eq!(
        body.get("headers").unwrap(),
        &node(r#"{"user-agent":"fx/0.1.0"}"#)
    );
    let body = body_of(
        &messages,
        &RequestOptions {
            user_agent: Some("fx/0.1.0"),
            ..options("zai/glm-5.1")
        },
    );
    assert_eq!(body.get("headers"), None);
}

#[test]
fn headers_team_session_and_missing_token() {
    let messages = [Message::user_text("hi")];
    let request = build_request(
        &ChatEndpoint::parse("http://localhost:8787/v3/ai/language-model").unwrap(),
        &messages,
        &[],
        &RequestOptions {
            team: Some("team_1"),
            session_id: Some("s1"),
            ..options("a/b")
        },
    )
    .unwrap();
    assert_eq!(request.url, "http://localhost:8787/v3/ai/language-model");
    let expected: Vec<(&str, &str)> = vec![
        ("content-type", "application/json"),
        ("authorization", "Bearer k"),
        ("HTTP-Referer", "https://github.com/vercel-labs/fx"),
        ("X-Title", "fx"),
        ("ai-gateway-protocol-version", "0.0.1"),
        ("ai-language-model-specification-version", "4"),
        ("ai-language-model-id", "a/b"),
        ("ai-language-model-streaming", "true"),
        ("x-vercel-ai-gateway-team", "team_1"),
        ("x-session-id", "s1"),
        ("x-session-affinity", "s1"),
    ];
    let got: Vec<(&str, &str)> = request
        .headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(got, expected);
    let bare = build_request(
        &ChatEndpoint::canonical(),
        &messages,
        &[],
        &RequestOptions {
            token: None,
            team: Some(""),
            session_id: Some(""),
            ..options("a/b")
        },
    )
    .unwrap();
    assert_eq!(bare.headers.len(), 7);
    let bad = build_request(
        &ChatEndpoint::canonical(),
        &messages,
        &[],
        &options("a/b\r\nx: y"),
    );
    assert_eq!(
        bad.unwrap_err(),
        RequestError::InvalidHeaderValue {
            header: "ai-language-model-id"
        }
    );
}

#[test]
fn message_shapes_images_and_empty_text() {
    let messages = [
        Message::User {
            parts: vec![
                UserPart::Text(String::new()),
                UserPart::Text("look".into()),
                UserPart::Image(ImagePart {
                    media_type: "image/png".into(),
                    data_base64: "iVBORw==".into(),
                }),
            ],
        },
        Message::Assistant {
            parts: vec![AssistantPart::Text(String::new())],
        },
        Message::user_text("next"),
    ];
    let body = body_of(&messages, &options("a/b"));
    let prompt = body.get("prompt").unwrap();
    assert_eq!(
        prompt,
        &node(
            r#"[{"role":"user","content":[{"type":"text","text":"look"},{"type":"file","mediaType":"image/png","data":"iVBORw=="}]},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"text","text":"next"}]}]"#
        )
    );
    assert_eq!(body.get("tools"), Some(&Node::Arr(vec![])));
}

#[test]
fn anthropic_cache_markers() {
    let overlay = Message::System {
        content: "overlay".into(),
        no_cache: true,
    };
    let call = ToolCallPart::new("c1", "terminal", r#"{"action":"exec","command":"ls"}"#).unwrap();
    let messages = vec![
        Message::system("base"),
        Message::system("more"),
        Message::user_text("first"),
        Message::Assistant {
            parts: vec![AssistantPart::ToolCall(call)],
        },
        Message::tool_result(ToolResult {
            tool_call_id: "c1".into(),
            tool_name: "terminal".into(),
            output: "ok".into(),
        }),
        Message::user_text("last"),
    ];
    assert_eq!(
        cache_marks(&messages, true),
        [true, true, false, true, false, false]
    );
    assert_eq!(cache_marks(&messages, false), [false; 6]);
    let mut with_overlay = messages.clone();
    with_overlay.insert(2, overlay);
    assert_eq!(
        cache_marks(&with_overlay, true),
        [true, true, false, false, false, false, false]
    );
    assert_eq!(cache_marks(&messages[..2], true), [true, true]);
    let two = [Message::user_text("a"), Message::user_text("b")];
    assert_eq!(cache_marks(&two, true), [false, false]);
    let body = body_of(&messages, &options("anthropic/claude-sonnet-5"));
    let prompt = body.get("prompt").unwrap().items();
    let marker = node(r#"{"anthropic":{"cacheControl":{"type":"ephemeral"}}}"#);
    assert_eq!(prompt[0].keys(), ["role", "content", "providerOptions"]);
    assert_eq!(prompt[0].get("providerOptions"), Some(&marker));
    assert_eq!(prompt[3].get("providerOptions"), Some(&marker));
    assert_eq!(prompt[5].get("providerOptions"), None);
    let other = body_of(&messages, &options("openai/gpt-5"));
    assert!(other
        .get("prompt")
        .unwrap()
        .items()
        .iter()
        .all(|m| m.get("providerOptions").is_none()));
}

#[test]
fn tool_definitions_and_description_cut() {
    let long = "é".repeat(600);
    let clipped = clip_tool_description(&long);
    assert!(clipped.len() <= 1024 && clipped.ends_with("... [truncated]"));
    assert_eq!(
        clipped.len(),
        1008 + 15,
        "1009 is inside a character, so the cut backs off a byte"
    );
    let ascii = "a".repeat(1025);
    assert_eq!(clip_tool_description(&ascii).len(), 1024);
    assert_eq!(clip_tool_description(&"a".repeat(1024)).len(), 1024);
    let body = node(
        &build_request(
            &ChatEndpoint::canonical(),
            &[Message::user_text("x")],
            &[tool("terminal")],
            &options("a/b"),
        )
        .unwrap()
        .body,
    );
    assert_eq!(
        body.get("tools").unwrap(),
        &node(
            r#"[{"type":"function","name":"terminal","description":"The terminal tool.","inputSchema":{"type":"object","properties":{},"additionalProperties":false}}]"#
        )
    );
}

fn call(id: &str, name: &str) -> AssistantPart {
    AssistantPart::ToolCall(ToolCallPart::new(id, name, "{}").unwrap())
}

fn result(id: &str, name: &str) -> Message {
    Message::tool_result(ToolResult {
        tool_call_id: id.into(),
        tool_name: name.into(),
        output: "r".into(),
    })
}

#[test]
fn history_validation_table() {
    let user = Message::user_text("u");
    let two_calls = Message::Assistant {
        parts: vec![
            AssistantPart::Text("t".into()),
            call("a", "x"),
            call("b", "y"),
        ],
    };
    let ok_cases: Vec<Vec<Message>> = vec![
        vec![user.clone()],
        vec![
            user.clone(),
            two_calls.clone(),
            result("a", "x"),
            result("b", "y"),
            user.clone(),
        ],
        vec![
            user.clone(),
            two_calls.clone(),
            result("b", "y"),
            result("a", "x"),
        ],
        vec![
            user.clone(),
            two_calls.clone(),
            Message::Tool {
                results: vec![
                    ToolResult {
                        tool_call_id: "a".into(),
                        tool_name: "x".into(),
                        output: String::new(),
                    },
                    ToolResult {
                        tool_call_id: "b".into(),
                        tool_name: "y".into(),
                        output: String::new(),
                    },
                ],
            },
        ],
    ];
    for messages in &ok_cases {
        assert_eq!(validate_history(messages), Ok(()), "{messages:?}");
    }
    let bad_cases: Vec<(Vec<Message>, PromptError)> = vec![
        (
            vec![user.clone(), result("a", "x")],
            PromptError::UnexpectedToolResult {
                index: 1,
                id: "a".into(),
            },
        ),
        (
            vec![two_calls.clone(), result("a", "x")],
            PromptError::MissingToolResult {
                index: 0,
                id: "b".into(),
            },
        ),
        (
            vec![two_calls.clone(), result("a", "x"), user.clone()],
            PromptError::MissingToolResult {
                index: 0,
                id: "b".into(),
            },
        ),
        (
            vec![two_calls.clone(), result("a", "x"), result("a", "x")],
            PromptError::DuplicateToolResult {
                index: 2,
                id: "a".into(),
            },
        ),
        (
            vec![two_calls.clone(), result("a", "x"), result("c", "y")],
            PromptError::UnexpectedToolResult {
                index: 2,
                id: "c".into(),
            },
        ),
        (
            vec![two_calls.clone(), result("a", "x"), result("b", "x")],
            PromptError::ToolNameMismatch {
                index: 2,
                id: "b".into(),
                expected: "y".into(),
                found: "x".into(),
            },
        ),
        (
            vec![
                two_calls.clone(),
                result("a", "x"),
                result("b", "y"),
                result("b", "y"),
            ],
            PromptError::UnexpectedToolResult {
                index: 3,
                id: "b".into(),
            },
        ),
        (
            vec![Message::Assistant {
                parts: vec![call("a", "x"), call("a", "y")],
            }],
            PromptError::DuplicateToolCallId {
                index: 0,
                id: "a".into(),
            },
        ),
        (
            vec![Message::Assistant {
                parts: vec![call("", "x")],
            }],
            PromptError::EmptyToolCallField {
                index: 0,
                field: "toolCallId",
            },
        ),
        (
            vec![Message::Assistant {
                parts: vec![call("a", "")],
            }],
            PromptError::EmptyToolCallField {
                index: 0,
                field: "toolName",
            },
        ),
        (
            vec![
                Message::Assistant {
                    parts: vec![call("a", "x")],
                },
                Message::Tool {
                    results: vec![
                        ToolResult {
                            tool_call_id: "a".into(),
                            tool_name: "x".into(),
                            output: String::new(),
                        },
                        ToolResult {
                            tool_call_id: "z".into(),
                            tool_name: "x".into(),
                            output: String::new(),
                        },
                    ],
                },
            ],
            PromptError::UnexpectedToolResult {
                index: 1,
                id: "z".into(),
            },
        ),
    ];
    for (messages, expected) in bad_cases {
        let got = validate_history(&messages);
        assert_eq!(got, Err(expected.clone()), "{messages:?}");
        assert_eq!(expected.code(), "FX_GATEWAY_INVALID_HISTORY");
        let built = build_request(&ChatEndpoint::canonical(), &messages, &[], &options("a/b"));
        assert_eq!(built.unwrap_err(), RequestError::History(expected));
    }
    assert_eq!(
        ToolCallPart::new("a", "x", "{not json").unwrap_err(),
        PromptError::InvalidToolArguments { id: "a".into() }
    );
    assert!(ToolCallPart::new("a", "x", "").is_err());
}

proptest::proptest! {
    #[test]
    fn bodies_are_valid_json_and_keep_every_text(
        user in "\\PC{0,40}",
        controls in "[\u{0}-\u{1f}\"\\\\\u{7f}\u{2028}]{0,10}",
        output in "\\PC{0,40}",
    ) {
        let user_text = format!("{user}{controls}");
        let messages = [
            Message::user_text(user_text.clone()),
            Message::Assistant { parts: vec![AssistantPart::Text(controls.clone()), call("c1", "terminal")] },
            Message::tool_result(ToolResult { tool_call_id: "c1".into(), tool_name: "terminal".into(), output: output.clone() }),
        ];
        let request = build_request(&ChatEndpoint::canonical(), &messages, &[tool("terminal")], &options("anthropic/claude-opus-5")).unwrap();
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        let expected_user = (!user_text.is_empty()).then_some(user_text.as_str());
        proptest::prop_assert_eq!(body["prompt"][0]["content"][0]["text"].as_str(), expected_user);
        proptest::prop_assert_eq!(body["prompt"][2]["content"][0]["output"]["value"].as_str(), Some(output.as_str()));
        let assistant_parts = body["prompt"][1]["content"].as_array().unwrap().len();
        proptest::prop_assert_eq!(assistant_parts, if controls.is_empty() { 1 } else { 2 });
    }
}
