//! The seams the bots layer plugs into, driven the way it will drive them: a turn over another
//! model protocol and another tool set (`run_turn`), the system-prompt override, user images in
//! a turn, the tool's name on the `tool_call` update, and the turn's usage on its result.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::cell::RefCell;
use std::collections::HashMap;

use futures::executor::block_on;
use fx_wasm::agent::context::ContextPolicy;
use fx_wasm::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use fx_wasm::agent::modes::Mode;
use fx_wasm::agent::prompt::Prompt;
#[cfg(feature = "bot")]
use fx_wasm::agent::prompt::PromptImage;
use fx_wasm::agent::protocol::{ModelCall, ModelProtocol, StreamDecoder};
use fx_wasm::agent::session::LiveSession;
use fx_wasm::agent::turn::{run_turn, TurnSettings, TurnUsage};
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::caps::acp::{StopReason, ToolKind, Update};
use fx_wasm::caps::{Cancel, HttpRequest, Method};
use fx_wasm::gateway::error::ProviderError;
use fx_wasm::gateway::request::RequestError;
use fx_wasm::gateway::{Message, SseError, SseEvent, StreamEnd, ToolDefinition};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::tools::set::{Prepared, PreparedCall, ToolSet};
use fx_wasm::tools::terminal::{Status, ToolRecord};
use support::fake_host::{text_reply, tool_reply, FakeHost, Reply};

fn env() -> HashMap<String, String> {
    HashMap::from([("AI_GATEWAY_API_KEY".to_owned(), "test-key".to_owned())])
}

fn preferences() -> Preferences {
    Preferences {
        model: "test/model".into(),
        effort: "auto".into(),
        fast_mode: false,
        provider: Provider::Gateway,
    }
}

/// A protocol of our own: one line per event (`t <text>` or `end`), sent to its own URL.
struct LineProtocol {
    calls: RefCell<Vec<String>>,
}

struct LineDecoder {
    done: bool,
}

impl StreamDecoder for LineDecoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        for line in String::from_utf8_lossy(bytes).lines() {
            match line.split_once(' ') {
                Some(("t", text)) => out.push(SseEvent::TextDelta(text.to_owned())),
                _ if line == "end" => {
                    self.done = true;
                    let finish = r#"{"type":"finish","finishReason":{"unified":"stop","raw":"stop"},"usage":{"inputTokens":{"total":7},"outputTokens":{"total":2}}}"#;
                    let mut decoder = fx_wasm::gateway::SseDecoder::new();
                    decoder.feed(format!("data: {finish}\n\n").as_bytes(), out)?;
                }
                _ => {}
            }
        }
        Ok(())
    }
    fn end(&mut self, _out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError> {
        Ok(StreamEnd {
            finished: self.done,
            done_marker: false,
        })
    }
    fn is_done(&self) -> bool {
        self.done
    }
}

impl ModelProtocol for LineProtocol {
    type Decoder = LineDecoder;

    fn build(&self, call: &ModelCall<'_>) -> Result<HttpRequest, RequestError> {
        let system = match call.messages.first() {
            Some(Message::System { content, .. }) => content.clone(),
            _ => String::new(),
        };
        self.calls.borrow_mut().push(format!(
            "{} tools={} system={system}",
            call.model,
            call.tools.len()
        ));
        Ok(HttpRequest {
            method: Method::Post,
            url: "http://127.0.0.1:9/lines".into(),
            headers: vec![("x-line".into(), "1".into())],
            body: b"{}".to_vec(),
        })
    }
    fn decoder(&self) -> LineDecoder {
        LineDecoder { done: false }
    }
    fn http_error(&self, status: u16, body: &[u8]) -> ProviderError {
        ProviderError::from_http(status, body)
    }
}

/// A tool set of our own: `echo` returns its `text` argument.
struct EchoTools {
    runs: RefCell<Vec<String>>,
}

impl ToolSet for EchoTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        vec![ToolDefinition {
            name: "echo".into(),
            description: "Says it back.".into(),
            input_schema: serde_json::value::to_raw_value(&serde_json::json!({"type": "object"}))
                .unwrap(),
        }]
    }
    fn kind(&self, _name: &str) -> ToolKind {
        ToolKind::Other
    }
    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared {
        let title = format!("{name}!");
        if name != "echo" {
            return Prepared {
                title,
                call: Err(ToolRecord::unavailable(name)),
            };
        }
        let value: serde_json::Value = serde_json::from_str(arguments_json).unwrap();
        Prepared {
            title,
            call: Ok(PreparedCall {
                name: name.into(),
                key: value["text"].as_str().unwrap_or_default().into(),
            }),
        }
    }
    fn needs_permission(&self, _call: &PreparedCall) -> bool {
        false
    }
    async fn run(&self, call: &PreparedCall, _cancel: &Cancel) -> ToolRecord {
        self.runs.borrow_mut().push(call.key.clone());
        ToolRecord {
            status: Status::Success,
            output: format!("echo: {}", call.key),
            exit_code: None,
            cancelled: false,
        }
    }
    fn cancelled(&self, _call: &PreparedCall) -> ToolRecord {
        ToolRecord::unavailable("echo")
    }
}

fn settings<'a, P: ModelProtocol>(protocol: &'a P, system: &'a str) -> TurnSettings<'a, P> {
    TurnSettings {
        protocol,
        system_prompt: system,
        token: None,
        team: None,
        reauth: None,
        model_info: None,
        workspace: None,
        policy: ContextPolicy::default(),
        step_limit: 8,
        model_idle_timeout_ms: DEFAULT_MODEL_IDLE_TIMEOUT_MS,
    }
}

#[test]
fn a_turn_runs_over_another_model_protocol() {
    let host = FakeHost::new();
    host.reply(Reply::Body {
        status: 200,
        chunks: vec![b"t Hello\nt  from lines\nend\n".to_vec()],
        retry_after: None,
    });
    let protocol = LineProtocol {
        calls: RefCell::new(Vec::new()),
    };
    let tools = EchoTools {
        runs: RefCell::new(Vec::new()),
    };
    let mut session = LiveSession::create(&host, "/", preferences(), Mode::Ask).unwrap();
    let end = block_on(run_turn(
        &host,
        &tools,
        &Cancel::new(),
        &mut session,
        &settings(&protocol, "You are a bot."),
        1,
        Prompt::text("hi"),
    ))
    .unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(
        end.usage,
        TurnUsage {
            input_tokens: 7,
            output_tokens: 2
        }
    );
    assert_eq!(host.texts(1), "Hello from lines");
    assert_eq!(
        *protocol.calls.borrow(),
        ["test/model tools=1 system=You are a bot."]
    );
    let requests = &host.state.borrow().requests;
    assert_eq!(requests[0].url, "http://127.0.0.1:9/lines");
    assert_eq!(requests[0].headers, [("x-line".to_owned(), "1".to_owned())]);
}

#[test]
fn a_turn_runs_its_calls_through_another_tool_set_and_names_the_tool() {
    let host = FakeHost::new();
    let call =
        r#"{"type":"tool-call","toolCallId":"c1","toolName":"echo","input":"{\"text\":\"ping\"}"}"#;
    let finish = r#"{"type":"finish","finishReason":{"unified":"tool-calls","raw":"tool_calls"},"usage":{"inputTokens":{"total":20},"outputTokens":{"total":5}}}"#;
    host.reply(Reply::Body {
        status: 200,
        chunks: vec![support::fake_host::sse(&[call, finish])],
        retry_after: None,
    });
    host.reply(text_reply(&["done"]));
    let protocol = fx_wasm::agent::protocol::AiGateway {
        endpoint: &fx_wasm::gateway::ChatEndpoint::canonical(),
    };
    let tools = EchoTools {
        runs: RefCell::new(Vec::new()),
    };
    let mut session = LiveSession::create(&host, "/", preferences(), Mode::Ask).unwrap();
    let end = block_on(run_turn(
        &host,
        &tools,
        &Cancel::new(),
        &mut session,
        &settings(&protocol, "sys"),
        1,
        Prompt::text("echo ping"),
    ))
    .unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    assert_eq!(*tools.runs.borrow(), ["ping"]);
    let requests = host.chat_requests();
    assert_eq!(requests[0]["tools"][0]["name"], "echo");
    let result = requests[1]["prompt"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(result["content"][0]["output"]["value"], "echo: ping");
    let state = host.state.borrow();
    let (_, first) = &state.updates[0];
    match first {
        Update::ToolCall {
            tool_name,
            title,
            kind,
            ..
        } => assert_eq!(
            (tool_name.as_str(), title.as_str(), *kind),
            ("echo", "echo!", ToolKind::Other)
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(first.tool_name(), Some("echo"));
    // Not on ACP's wire.
    assert!(!serde_json::to_string(first).unwrap().contains("toolName"));
    assert_eq!(
        end.usage,
        TurnUsage {
            input_tokens: 30,
            output_tokens: 8
        }
    );
}

#[test]
fn the_system_prompt_can_be_replaced() {
    let host = FakeHost::new();
    host.reply(text_reply(&["ok"]));
    let mut config = AgentConfig::from_env(&env(), None).unwrap();
    config.system_prompt = Some("You are Ada, a bot.".into());
    let agent = Agent::new(host.clone(), config);
    let id = block_on(agent.create_session()).unwrap().session_id;
    block_on(agent.prompt(&id, 1, "hi".into())).unwrap();
    let prompt = host.chat_requests()[0]["prompt"].clone();
    assert_eq!(prompt[0]["role"], "system");
    assert_eq!(prompt[0]["content"], "You are Ada, a bot.");
    // The runtime context still follows.
    assert!(prompt[1]["content"]
        .as_str()
        .unwrap()
        .contains("fx-runtime-context"));
}

/// Images ride with feature `bot` (fx-bot.wasm); fx-core and fx-term take none.
#[cfg(feature = "bot")]
#[test]
fn user_images_reach_the_model_and_the_log() {
    let host = FakeHost::new();
    host.reply(text_reply(&["a red square"]));
    host.reply(text_reply(&["still red"]));
    let agent = Agent::new(host.clone(), AgentConfig::from_env(&env(), None).unwrap());
    let id = block_on(agent.create_session()).unwrap().session_id;
    let png = b"\x89PNG\r\n\x1a\nred".to_vec();
    let prompt = Prompt {
        text: "what is this?".into(),
        images: vec![PromptImage {
            name: "red.png".into(),
            media_type: "image/png".into(),
            bytes: png.clone(),
        }],
    };
    let end = block_on(agent.prompt_with(&id, 1, prompt)).unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    let user = host.chat_requests()[0]["prompt"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(user["role"], "user");
    assert_eq!(user["content"][0]["text"], "what is this?");
    assert_eq!(user["content"][1]["type"], "file");
    assert_eq!(user["content"][1]["mediaType"], "image/png");
    use base64::Engine as _;
    assert_eq!(
        user["content"][1]["data"],
        base64::engine::general_purpose::STANDARD.encode(&png)
    );
    // The log keeps the image with its snapshot; the export carries the bytes.
    let bytes = host.stored(&id);
    let log = fx_wasm::log::SessionLog::load(bytes.clone()).unwrap();
    let images = log.state().history[0].images().to_vec();
    assert_eq!(images.len(), 1);
    assert_eq!(
        (images[0].id, images[0].path.as_str()),
        (1, Some("red.png"))
    );
    let files = fx_wasm::log::export_native(&bytes).unwrap();
    assert!(files
        .iter()
        .any(|(path, data)| path.starts_with("images/image-1-") && *data == png));
    // The next image of the session is number 2.
    let again = Prompt {
        text: String::new(),
        images: vec![PromptImage {
            name: "b.png".into(),
            media_type: "image/png".into(),
            bytes: b"\x89PNG\r\n\x1a\nblue".to_vec(),
        }],
    };
    block_on(agent.prompt_with(&id, 2, again)).unwrap();
    let log = fx_wasm::log::SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(log.state().history[1].images()[0].id, 2);
    // Past turns go to the model as their text, as fx sends them.
    let second = host.chat_requests()[1]["prompt"].clone();
    assert!(!second
        .to_string()
        .contains(&base64::engine::general_purpose::STANDARD.encode(&png)));
}

#[test]
fn a_prompt_result_carries_the_turn_usage() {
    let host = FakeHost::new();
    host.reply(tool_reply("", &[("c1", "ls")]));
    host.reply(text_reply(&["done"]));
    let workspace: fx_wasm::tools::workspace::RawWorkspace = serde_json::from_value(serde_json::json!({
        "info": {"version": 1, "root": "/w", "cwd": "/w", "home": "/h", "gitAvailable": false, "ephemeral": true},
        "permission": "allow-sandboxed",
    }))
    .unwrap();
    let agent = Agent::new(
        host.clone(),
        AgentConfig::from_env(&env(), Some(&workspace)).unwrap(),
    );
    let id = block_on(agent.create_session()).unwrap().session_id;
    let end = block_on(agent.prompt(&id, 1, "list".into())).unwrap();
    // 20 + 10 in, 5 + 3 out: the sum of the steps' turn.usage events.
    assert_eq!(
        end.usage,
        TurnUsage {
            input_tokens: 30,
            output_tokens: 8
        }
    );
    assert_eq!(
        serde_json::to_value(&end).unwrap()["usage"],
        serde_json::json!({"inputTokens": 30, "outputTokens": 8})
    );
}
