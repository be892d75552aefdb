//! The seams the bots layer plugs into, driven the way it drives them: a turn of a front end's
//! own plan (`Agent::run_plan`) over another model protocol and another tool set, on a session
//! the front end started itself; the system-prompt override, user images in a turn, the tool's
//! name on the `tool_call` update, and the turn's usage on its result.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::cell::RefCell;
use std::collections::HashMap;

use futures::executor::block_on;
use fx_wasm::agent::context::ContextPolicy;
use fx_wasm::agent::model::DEFAULT_MODEL_IDLE_TIMEOUT_MS;
use fx_wasm::agent::modes::Mode;
use fx_wasm::agent::prompt::Prompt;
use fx_wasm::agent::prompt::PromptImage;
use fx_wasm::agent::protocol::{ModelCall, ModelProtocol, StreamDecoder};
use fx_wasm::agent::turn::TurnPlan;
use fx_wasm::agent::{Agent, AgentConfig};
use fx_wasm::caps::acp::{StopReason, ToolKind, Update, Usage};
use fx_wasm::caps::{Cancel, HttpRequest, Method};
use fx_wasm::gateway::error::ProviderError;
use fx_wasm::gateway::request::RequestError;
use fx_wasm::gateway::{Message, SseError, SseEvent, StreamEnd, ToolDefinition};
use fx_wasm::log::types::{Preferences, Provider};
use fx_wasm::tools::set::{Prepared, PreparedCall, ToolOutcome, ToolSet};
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
    /// The text to say back.
    type Arguments = String;

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
    fn prepare(&self, name: &str, arguments_json: &str) -> Prepared<String> {
        let title = format!("{name}!");
        if name != "echo" {
            return Prepared {
                title,
                call: Err(ToolOutcome::unavailable(name)),
            };
        }
        let value: serde_json::Value = serde_json::from_str(arguments_json).unwrap();
        Prepared {
            title,
            call: Ok(PreparedCall {
                name: name.into(),
                arguments: value["text"].as_str().unwrap_or_default().into(),
                permission_key: None,
            }),
        }
    }
    async fn run(&self, call: &PreparedCall<String>, _cancel: &Cancel) -> ToolOutcome {
        self.runs.borrow_mut().push(call.arguments.clone());
        ToolOutcome::success(format!("echo: {}", call.arguments))
    }
    fn cancelled(&self, _call: &PreparedCall<String>) -> ToolOutcome {
        ToolOutcome::unavailable("echo")
    }
}

fn plan<'a, P: ModelProtocol, T: ToolSet>(
    protocol: &'a P,
    tools: &'a T,
    system: &'a str,
) -> TurnPlan<'a, P, T> {
    TurnPlan {
        protocol,
        tools,
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

/// An agent for plans only (the bots' kind) and a session of its own, not stored yet.
fn plan_agent(host: &FakeHost) -> (Agent<FakeHost>, String) {
    let agent = Agent::new(
        host.clone(),
        AgentConfig::for_plans(fx_wasm::gateway::ChatEndpoint::canonical()),
    );
    let id = agent.start_session("/", preferences(), Mode::Ask).unwrap();
    (agent, id)
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
    let (agent, id) = plan_agent(&host);
    let end = block_on(agent.run_plan(
        &id,
        1,
        Prompt::text("hi"),
        &plan(&protocol, &tools, "You are a bot."),
    ))
    .unwrap();
    assert_eq!(end.stop_reason, StopReason::EndTurn);
    // The turn's end saved the session the front end started.
    assert_eq!(
        fx_wasm::log::SessionLog::load(host.stored(&id))
            .unwrap()
            .state()
            .history
            .len(),
        1
    );
    assert_eq!(
        end.usage,
        Usage {
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
    let (agent, id) = plan_agent(&host);
    let end = block_on(agent.run_plan(
        &id,
        1,
        Prompt::text("echo ping"),
        &plan(&protocol, &tools, "sys"),
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
        Usage {
            input_tokens: 30,
            output_tokens: 8
        }
    );
    // Without a workspace the model is told the tools its request lists, not "no tools".
    let context = requests[0]["prompt"][1]["content"].as_str().unwrap();
    assert!(
        context.contains("Your tools in this session: echo."),
        "{context}"
    );
    assert!(!context.contains("no tools"), "{context}");
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

/// The agent carries images whatever the artifact (js/agent.js takes none from a page; the
/// bots send them).
#[test]
fn user_images_reach_the_model_and_the_log() {
    let host = FakeHost::new();
    host.reply(text_reply(&["a red square"]));
    host.reply(text_reply(&["still red"]));
    let agent = Agent::new(host.clone(), AgentConfig::from_env(&env(), None).unwrap());
    let id = block_on(agent.create_session()).unwrap().session_id;
    let png = b"\x89PNG\r\n\x1a\nred".to_vec();
    // The front end stages its images on the session; the turn takes them.
    let stage = |images: Vec<PromptImage>| {
        agent
            .change_session(&id, |session, _| Ok(session.stage_images(images)?))
            .unwrap()
    };
    let prompt = Prompt {
        text: "what is this?".into(),
        images: stage(vec![PromptImage {
            name: "red.png".into(),
            media_type: "image/png".into(),
            bytes: png.clone(),
        }]),
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
    // The text names the session's images as the fx CLI's does (its `image` fixture's first
    // request), and the image follows as a file part.
    assert_eq!(
        user["content"][0]["text"],
        "what is this?\n\n<available_images>\n[Image #1]\n</available_images>"
    );
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
        images: stage(vec![PromptImage {
            name: "b.png".into(),
            media_type: "image/png".into(),
            bytes: b"\x89PNG\r\n\x1a\nblue".to_vec(),
        }]),
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
        Usage {
            input_tokens: 30,
            output_tokens: 8
        }
    );
    assert_eq!(
        serde_json::to_value(&end).unwrap()["usage"],
        serde_json::json!({"inputTokens": 30, "outputTokens": 8})
    );
}

/// A front end's session: started unsaved, kept by the agent when its save fails, saved by the
/// next load, and settled (a checkpoint a closed page left, turns claimed that never reached the
/// log) through the agent.
#[test]
fn a_front_ends_session_is_kept_until_it_is_saved_and_settled_through_the_agent() {
    use fx_wasm::caps::{Failure, Store, StoreError};
    let host = FakeHost::new();
    host.reply(text_reply(&["one"]));
    host.reply(text_reply(&["two"]));
    let protocol = fx_wasm::agent::protocol::AiGateway {
        endpoint: &fx_wasm::gateway::ChatEndpoint::canonical(),
    };
    let tools = EchoTools {
        runs: RefCell::new(Vec::new()),
    };
    let (agent, id) = plan_agent(&host);
    // Nothing is stored before the first turn ends.
    assert!(!host.state.borrow().sessions.contains_key(&id));
    block_on(agent.run_plan(&id, 1, Prompt::text("one"), &plan(&protocol, &tools, "s"))).unwrap();
    assert!(
        agent.release_session(&id).is_some(),
        "a saved session is let go"
    );
    // The second turn's save fails: the agent keeps what the store lacks.
    let loaded = block_on(agent.load_session(&id, Mode::Ask)).unwrap();
    assert_eq!((loaded.turns, loaded.unfinished), (1, false));
    host.state.borrow_mut().fail_commit = Some(StoreError::failed(
        Store::Session,
        "append",
        Failure::Threw,
        "quota".into(),
    ));
    let error =
        block_on(agent.run_plan(&id, 2, Prompt::text("two"), &plan(&protocol, &tools, "s")))
            .unwrap_err();
    assert_eq!(error.code(), "FX_SESSION_STORE_FAILED");
    assert!(
        agent.release_session(&id).is_none(),
        "an unsaved session stays held"
    );
    host.state.borrow_mut().fail_commit = None;
    let loaded = block_on(agent.load_session(&id, Mode::Ask)).unwrap();
    assert_eq!(loaded.turns, 2, "the next load saved the held turn");
    let stored = fx_wasm::log::SessionLog::load(host.stored(&id)).unwrap();
    assert_eq!(stored.state().history.len(), 2);
    // Two claimed turns that never reached the log are settled into it as failed turns.
    let now = block_on(agent.settle_session(
        &id,
        vec![
            ("three".into(), "it failed (FXBOT_STORE_FAILED)".into()),
            (String::new(), "gone".into()),
        ],
    ))
    .unwrap();
    assert_eq!(now, id);
    let view = fx_wasm::log::SessionLog::load(host.stored(&id))
        .unwrap()
        .view();
    assert_eq!(view.turns.len(), 4);
    match &view.turns[2] {
        fx_wasm::log::view::TurnView::Interrupted(turn) => {
            assert_eq!((turn.user.text.as_str(), turn.reason), ("three", "failed"));
        }
        other => panic!("{other:?}"),
    }
}
