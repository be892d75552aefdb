//! The model-protocol seam: how one model step becomes an HTTP request, how its streamed answer
//! becomes [`SseEvent`]s, and how a refusal is classified ([`ModelProtocol`]); and the AI
//! Gateway's protocol over `src/gateway/` ([`AiGateway`], the agent's default: its bytes on the
//! wire are exactly what `gateway::build_request` writes).
//!
//! Every protocol yields the gateway's [`SseEvent`] values, so folding a step's events, the
//! retry schedule, "never retry after text reached the user", cancellation and checkpoints are
//! the same for all of them.

use crate::caps::HttpRequest;
use crate::gateway::error::ProviderError;
use crate::gateway::request::{build_request, RequestError, RequestOptions, ToolChoice};
use crate::gateway::{ChatEndpoint, Effort, Message, ModelInfo, SseDecoder, SseError, SseEvent};
use crate::gateway::{StreamEnd, ToolDefinition};

/// One model step as every protocol sees it.
#[derive(Debug, Clone)]
pub struct ModelCall<'a> {
    pub model: &'a str,
    /// The conversation in order: the system messages first (the stable prompt, then the
    /// per-step runtime context), then the history, the user's message and the turn so far. A
    /// protocol that carries system text elsewhere takes the leading [`Message::System`]s out.
    pub messages: &'a [Message],
    pub tools: &'a [ToolDefinition],
    pub tool_choice: ToolChoice,
    pub session_id: Option<&'a str>,
    /// The bearer token, if any, and the team it bills.
    pub token: Option<&'a str>,
    pub team: Option<&'a str>,
    pub effort: Effort,
    pub fast: bool,
    /// The catalog's entry for `model`, when it lists one.
    pub model_info: Option<&'a ModelInfo>,
}

/// An incremental decoder of one response body.
pub trait StreamDecoder {
    /// Decodes `bytes` (split anywhere), appending events to `out`.
    ///
    /// # Errors
    /// An [`SseError`] when the stream cannot be decoded further.
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError>;
    /// Ends the input and says how the stream ended.
    ///
    /// # Errors
    /// As [`StreamDecoder::feed`].
    fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError>;
    /// The stream has ended (later bytes are ignored).
    fn is_done(&self) -> bool;
}

impl StreamDecoder for SseDecoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        SseDecoder::feed(self, bytes, out)
    }
    fn end(&mut self, out: &mut Vec<SseEvent>) -> Result<StreamEnd, SseError> {
        SseDecoder::end(self, out)
    }
    fn is_done(&self) -> bool {
        SseDecoder::is_done(self)
    }
}

/// A wire protocol of language models.
pub trait ModelProtocol {
    /// The request for one step.
    ///
    /// # Errors
    /// A [`RequestError`] when the conversation or a header value cannot be sent.
    fn build(&self, call: &ModelCall<'_>) -> Result<HttpRequest, RequestError>;

    /// The decoder of this protocol's response bodies.
    type Decoder: StreamDecoder;

    /// A fresh decoder for one response body.
    fn decoder(&self) -> Self::Decoder;

    /// What a non-200 answer means (and whether it is worth a retry).
    fn http_error(&self, status: u16, body: &[u8]) -> ProviderError;

    /// `request` carrying `token` instead of its credential, for the retry after a 401 (by
    /// default: its `authorization` header, as a bearer token).
    fn reauthorized(&self, request: &HttpRequest, token: &str) -> HttpRequest {
        let mut request = request.clone();
        request
            .headers
            .retain(|(name, _)| !name.eq_ignore_ascii_case("authorization"));
        request
            .headers
            .push(("authorization".to_owned(), format!("Bearer {token}")));
        request
    }
}

/// The Vercel AI Gateway language-model protocol (v3, SSE), at `endpoint`.
#[derive(Debug, Clone, Copy)]
pub struct AiGateway<'a> {
    pub endpoint: &'a ChatEndpoint,
}

impl ModelProtocol for AiGateway<'_> {
    type Decoder = SseDecoder;

    fn build(&self, call: &ModelCall<'_>) -> Result<HttpRequest, RequestError> {
        let options = RequestOptions {
            model_id: call.model,
            token: call.token,
            team: call.team,
            session_id: call.session_id,
            tool_choice: call.tool_choice,
            effort: call.effort.clone(),
            fast: call.fast,
            model: call.model_info,
            user_agent: None,
        };
        build_request(self.endpoint, call.messages, call.tools, &options)
    }

    fn decoder(&self) -> SseDecoder {
        SseDecoder::new().with_coalescing(true)
    }

    fn http_error(&self, status: u16, body: &[u8]) -> ProviderError {
        ProviderError::from_http(status, body)
    }
}
